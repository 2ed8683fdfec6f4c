package scene

import (
	"fmt"
	"image"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"

	"gocv.io/x/gocv"
)

// StillOptions shapes a still scene. Zero fields pick seeded defaults.
type StillOptions struct {
	Width, Height int // default 640x640, like the real overhead photos
	// EdgePx fixes the die edge in pixels (default: 20..64, seeded).
	EdgePx float64
	// MaxDice caps the number of dice (default 12).
	MaxDice int
	// Casino, when set, uses only red translucent casino dice.
	Casino bool
	// CameraHeightMM, when its Min is set, puts the camera a height over
	// the table drawn for each still from Min..Max mm (Max under Min means
	// Min), and a die stacked on another is drawn as a pinhole camera there
	// sees it (StackedView): larger by (H-e)/(H-2e) than a die on the
	// table, e the die's edge, and moved away from the point under the
	// camera by the same factor, with the side that faces the camera drawn
	// between (drawRaised: it hides the lower die's top face; the two top
	// faces lie about half an edge apart 0.3 m from the point under a
	// camera 0.6 m up). A straight-down camera is assumed for the depth;
	// a tilted one's point under it lies H*tan(tilt) towards the
	// picture's bottom. The height comes from a stream of its own, so
	// every other draw of the still (the dice, their places, the light)
	// is the same as without it. The zero value keeps the draw the stills
	// were first made with, bit for bit: stacked dice 1.08..1.2 larger, in
	// place, which a camera about 0.13..0.28 m up would show (see
	// ImpliedCameraHeightMM).
	CameraHeightMM HeightRange
	// Pinhole, when its HeightMM.Min is set, draws the still through a
	// real pinhole camera (PinholeOptions, pinhole.go): every die seen
	// from the camera's centre, at its own depth. It takes the place of
	// CameraHeightMM (both set is an error). The zero value keeps the
	// historical draw.
	Pinhole PinholeOptions
}

// HeightRange is a range of camera heights over the table, in mm.
type HeightRange struct{ Min, Max float64 }

// StackedView is how a pinhole camera h mm over the table, looking at a
// point rho mm (on the table) from the point under it, sees the top face
// of a die resting on another against a die on the table there: scale is
// its size over the lone die's top face, (h-e)/(h-2e) with e the die's
// edge, and the table point under its centre is drawn rho*scale from the
// point under the camera (a raised face moves out from the centre of
// view by rho*e/(h-2e)). Both are the same factor: the renderer draws a
// die on the table at its footprint, so the stacked die is scaled about
// the point under the camera by the ratio of the two faces' depths.
func StackedView(h, e float64) (scale float64) {
	return (h - e) / (h - 2*e)
}

// ImpliedCameraHeightMM is the camera height at which a stacked die looks
// scale times as large as a die on the table (StackedView solved for h):
// e(2s-1)/(s-1). The stills' historical draw, 1.08..1.2, implies 0.28 m
// down to 0.13 m with 19 mm dice; the throw sessions' 1.16..1.2 0.16 m
// down to 0.13 m (and their hops, 1 + 0.0085 per mm of height, a camera
// about 0.14 m up: 1/0.0085 mm is H-e).
func ImpliedCameraHeightMM(scale, e float64) float64 {
	return e * (2*scale - 1) / (scale - 1)
}

// StillTruth is the ground truth of a still scene.
type StillTruth struct {
	Seed       int64  `json:"seed"`
	Width      int    `json:"width"`
	Height     int    `json:"height"`
	Background string `json:"background"` // felt, white_board, grey_tray, wood, dark_cloth
	// EdgePx is the nominal die edge in pixels at the middle of the picture.
	EdgePx float64 `json:"edge_px"`
	// CameraTiltDeg is how far the camera looks off vertical (side faces show).
	CameraTiltDeg float64 `json:"camera_tilt_deg"`
	// CameraHeightMM is the camera's height over the table when the still
	// was drawn with one (StillOptions.CameraHeightMM), else 0.
	CameraHeightMM float64 `json:"camera_height_mm,omitempty"`
	// FocalPx is the focal length of a still drawn through a pinhole
	// (StillOptions.Pinhole), else 0. Such a still's camera is exactly
	// CameraHeightMM over the table, CameraTiltDeg off vertical about the
	// picture's x axis, looking at the picture's centre from its bottom
	// side, with this focal length and the principal point at the
	// picture's centre; the table's origin is under the picture's centre.
	FocalPx     float64           `json:"focal_px,omitempty"`
	Blur        float64           `json:"blur_sigma_px"`
	Noise       float64           `json:"noise_sigma"`
	JPEGQuality int               `json:"jpeg_quality"`
	Glare       bool              `json:"glare"`
	Dice        []StillDie        `json:"dice"`
	Chips       [][2]int          `json:"chips,omitempty"` // chip stack centres, px
	Walls       []image.Rectangle `json:"walls,omitempty"`
}

// StillDie is one die in a still scene.
type StillDie struct {
	Value int    `json:"value"` // the face most upward on the table
	Style string `json:"style"`
	// Box is the top face's pixel box [x0,y0,x1,y1]; Hull boxes every
	// visible face.
	Box  [4]int  `json:"box"`
	Hull [4]int  `json:"hull"`
	CX   float64 `json:"cx"`
	CY   float64 `json:"cy"`
	Flat bool    `json:"flat"`
	// TiltDeg is how far the top face leans off the table plane.
	TiltDeg float64 `json:"tilt_deg"`
	// SizeRatio is the apparent top-face size over a flat die's there.
	SizeRatio float64 `json:"size_ratio"`
	// OnDie is the index of the die this one rests on (stacked), or -1.
	OnDie int `json:"on_die"`
	// Occluded is the fraction of the top-face box covered by dice drawn
	// above it (a die under a stacked one).
	Occluded     float64 `json:"occluded"`
	TouchesChips bool    `json:"touches_chips,omitempty"`
	AgainstWall  bool    `json:"against_wall,omitempty"`
	Touching     bool    `json:"touching,omitempty"` // touches another die on the table
	MotionBlur   bool    `json:"motion_blur,omitempty"`
}

// Styles returns the die colour schemes the still generator uses.
func Styles() []Style {
	base := func(name string, body, pip [3]float64) Style {
		return Style{Name: name, Body: body, Pip: pip, Opacity: 1, Tint: [3]float64{1, 1, 1}, EdgeGain: 0.8,
			PipRadius: 0.1, PipSpread: 0.27, Corner: 0.16, Gloss: 0.15}
	}
	white := base("white", [3]float64{222, 228, 232}, [3]float64{25, 25, 30})
	ivory := base("ivory", [3]float64{190, 222, 236}, [3]float64{30, 30, 30})
	black := base("black", [3]float64{30, 28, 28}, [3]float64{235, 235, 235})
	black.EdgeGain = 1.4
	green := base("green", [3]float64{60, 160, 40}, [3]float64{240, 240, 240})
	blue := base("blue", [3]float64{150, 40, 20}, [3]float64{240, 240, 240})
	yellow := base("yellow", [3]float64{40, 210, 235}, [3]float64{20, 20, 20})
	purple := base("purple", [3]float64{120, 40, 100}, [3]float64{235, 235, 235})
	marble := base("marbled", [3]float64{40, 90, 150}, [3]float64{230, 235, 240})
	marble.Body2, marble.Marble = [3]float64{170, 190, 200}, 0.9
	marble2 := base("marbled_blue", [3]float64{160, 80, 30}, [3]float64{40, 200, 230})
	marble2.Body2, marble2.Marble = [3]float64{230, 230, 230}, 0.8
	tGreen := base("translucent_green", [3]float64{50, 150, 30}, [3]float64{240, 240, 240})
	tGreen.Opacity, tGreen.Tint, tGreen.Gloss = 0.7, [3]float64{0.3, 0.8, 0.3}, 0.35
	tBlue := base("translucent_blue", [3]float64{170, 60, 20}, [3]float64{240, 240, 240})
	tBlue.Opacity, tBlue.Tint, tBlue.Gloss = 0.7, [3]float64{0.85, 0.35, 0.25}, 0.35
	return []Style{Casino(), white, ivory, black, green, blue, yellow, purple, marble, marble2, tGreen, tBlue}
}

// Still renders a still scene for seed: the picture as an 8UC3 Mat (after
// blur, noise and a JPEG round trip; the caller closes it) and its truth.
func Still(seed int64, opt StillOptions) (gocv.Mat, StillTruth, error) {
	b, tr, err := StillJPEG(seed, opt)
	if err != nil {
		return gocv.Mat{}, tr, err
	}
	m, err := gocv.IMDecode(b, gocv.IMReadColor)
	if err != nil {
		return gocv.Mat{}, tr, fmt.Errorf("scene: still: %w", err)
	}
	return m, tr, nil
}

// StillJPEG is Still as JPEG bytes, ready to write as a .jpg.
func StillJPEG(seed int64, opt StillOptions) ([]byte, StillTruth, error) {
	if opt.Width == 0 {
		opt.Width = 640
	}
	if opt.Height == 0 {
		opt.Height = 640
	}
	if opt.MaxDice == 0 {
		opt.MaxDice = 12
	}
	if opt.Width < 64 || opt.Height < 64 || opt.Width > 4096 || opt.Height > 4096 {
		return nil, StillTruth{}, fmt.Errorf("scene: still %dx%d: width and height must be 64..4096", opt.Width, opt.Height)
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 0x7374696c6c)) // "still"
	u := func(a, b float64) float64 { return a + (b-a)*rng.Float64() }
	tr := StillTruth{Seed: seed, Width: opt.Width, Height: opt.Height}
	camH := 0.0
	pinH := 0.0
	if opt.Pinhole.on() {
		if opt.CameraHeightMM.Min != 0 {
			return nil, tr, fmt.Errorf("scene: still: a pinhole camera and a camera height for stacked dice together")
		}
		var err error
		if pinH, err = stillPinholeHeight(seed, opt.Pinhole); err != nil {
			return nil, tr, err
		}
	}
	if hr := opt.CameraHeightMM; hr.Min != 0 && !(hr.Min > 0 && !math.IsInf(hr.Min, 0) && !math.IsNaN(hr.Max) && !math.IsInf(hr.Max, 0)) {
		return nil, tr, fmt.Errorf("scene: still camera height %g..%g mm: not a height", hr.Min, hr.Max)
	} else if hr.Min > 0 {
		camH = hr.Min
		if hr.Max > hr.Min {
			hrng := rand.New(rand.NewPCG(uint64(seed), 0x68656967687400)) // "height"
			camH = hr.Min + (hr.Max-hr.Min)*hrng.Float64()
		}
		if camH < 3*edgeMM {
			return nil, tr, fmt.Errorf("scene: still camera height %g mm: must be at least %g", camH, 3*edgeMM)
		}
		tr.CameraHeightMM = math.Round(camH)
		camH = tr.CameraHeightMM
	}
	edgePx := opt.EdgePx
	if edgePx == 0 {
		edgePx = u(20, 64)
	}
	tr.EdgePx = math.Round(edgePx*10) / 10
	pxmm := edgePx / edgeMM
	// the camera: straight down, or looking up to 35 degrees off vertical
	tilt := 0.0
	if rng.Float64() < 0.35 {
		tilt = u(8, 35)
	}
	tr.CameraTiltDeg = math.Round(tilt*10) / 10
	var pin *pinholeCam
	if pinH > 0 {
		// the camera exactly as the truth gives it
		tilt = tr.CameraTiltDeg
		dist := pinH / math.Cos(tilt*math.Pi/180)
		f := edgePx / edgeMM * dist
		if opt.Pinhole.FocalShare > 0 {
			f = opt.Pinhole.FocalShare * float64(opt.Width)
		}
		f = math.Round(f*10) / 10
		edgePx = f / dist * edgeMM
		tr.EdgePx = math.Round(edgePx*10) / 10
		pxmm = edgePx / edgeMM
		tr.CameraHeightMM, tr.FocalPx = pinH, f
		c := newPinholeCam(pinH, tilt, f, float64(opt.Width), float64(opt.Height))
		pin = &c
	}
	cam := Camera{Width: opt.Width, Height: opt.Height, FPS: 30, PxPerMM: pxmm}
	spanX, spanY := float64(opt.Width)/pxmm, float64(opt.Height)/pxmm
	// perspective: the far (top) side of the picture covers more table
	k := math.Tan(tilt*math.Pi/180) * 0.5
	src := [4]pt{{-spanX / 2 * (1 + k), -spanY / 2}, {spanX / 2 * (1 + k), -spanY / 2}, {spanX / 2 * (1 - k/2), spanY / 2}, {-spanX / 2 * (1 - k/2), spanY / 2}}
	w, h := float64(opt.Width), float64(opt.Height)
	dst := [4]pt{{0, 0}, {w, 0}, {w, h}, {0, h}}
	toImg, err := homography4(src, dst)
	if err != nil {
		return nil, tr, err
	}
	toTab, err := homography4(dst, src)
	if err != nil {
		return nil, tr, err
	}
	if pin != nil {
		if toImg, toTab, err = pin.tableMaps(w, h); err != nil {
			return nil, tr, err
		}
	}
	v := &view{cam: cam, toImg: toImg, toTab: toTab}
	camR := rotX(tilt * math.Pi / 180)
	// the table point under the camera: the picture's centre looking
	// straight down; a tilted camera looks at the centre from the near
	// (bottom, +Y) side, so the point under it lies camH*tan(tilt) that way
	nadir := pt{0, camH * math.Tan(tilt*math.Pi/180)}

	// background
	bgKinds := []string{"felt", "white_board", "grey_tray", "wood", "dark_cloth"}
	tr.Background = bgKinds[rng.IntN(len(bgKinds))]
	m := gocv.NewMatWithSize(opt.Height, opt.Width, gocv.MatTypeCV8UC3)
	defer m.Close()
	buf, err := m.DataPtrUint8()
	if err != nil {
		return nil, tr, fmt.Errorf("scene: still: %w", err)
	}
	walls, surface := stillBackground(&m, buf, v, tr.Background, rng, seed)
	for _, wr := range walls {
		a := image.Pt(int(math.Round(wr[0])), int(math.Round(wr[1])))
		b := image.Pt(int(math.Round(wr[2])), int(math.Round(wr[3])))
		x0, y0 := v.img(float64(a.X), float64(a.Y))
		x1, y1 := v.img(float64(b.X), float64(b.Y))
		tr.Walls = append(tr.Walls, image.Rect(int(x0), int(y0), int(x1), int(y1)))
	}
	// the usable floor, in mm, inside any walls
	// (the picture is a trapezoid on the table: narrowest at the bottom)
	fx0, fy0, fx1, fy1 := -spanX/2*(1-k/2)*0.9, -spanY/2*0.9, spanX/2*(1-k/2)*0.9, spanY/2*0.9
	if pin != nil {
		fx0, fy0, fx1, fy1 = pinFloor(v)
	}
	if len(walls) > 0 {
		fx0, fy0, fx1, fy1 = walls[0][0], walls[0][1], walls[0][2], walls[0][3]
	}
	// chips
	var chips []chip
	if rng.Float64() < 0.5 {
		n := 1 + rng.IntN(4)
		for i := 0; i < n; i++ {
			c := chipColours[rng.IntN(len(chipColours))]
			ch := chip{X: u(fx0+chipR, fx1-chipR), Y: u(fy0+chipR, fy1-chipR), Colour: c, Stripe: stripeFor(c),
				Shadow: [3]float64{surface[0] * 0.45, surface[1] * 0.45, surface[2] * 0.45}}
			chips = append(chips, ch)
			drawChip(&m, v, ch)
			cx, cy := v.img(ch.X, ch.Y)
			tr.Chips = append(tr.Chips, [2]int{int(cx), int(cy)})
		}
	}
	// dice
	styles := Styles()
	pick := func() *Style {
		if opt.Casino || rng.Float64() < 0.3 {
			s := Casino()
			return &s
		}
		s := styles[1+rng.IntN(len(styles)-1)]
		return &s
	}
	type placed struct {
		p     pose
		st    *Style
		tilt  float64
		onDie int
		h     float64
		blur  bool
		// foot, for a die stacked under a camera height, is the table
		// place it rests over (its shadow falls from there); p is where
		// the camera sees it.
		foot pose
	}
	var dice []placed
	var occupied []pt
	free := func(p pt, r float64) bool {
		if p.X < fx0+r || p.X > fx1-r || p.Y < fy0+r || p.Y > fy1-r {
			return false
		}
		for _, o := range occupied {
			if math.Hypot(o.X-p.X, o.Y-p.Y) < r+edgeMM*0.75 {
				return false
			}
		}
		for _, c := range chips {
			if math.Hypot(c.X-p.X, c.Y-p.Y) < chipR+r {
				return false
			}
		}
		return true
	}
	n := 1 + rng.IntN(opt.MaxDice)
	for i := 0; i < n*6 && len(dice) < n; i++ {
		st := pick()
		val := 1 + rng.IntN(6)
		spin := u(0, 2*math.Pi)
		d := placed{st: st, onDie: -1}
		var at pt
		var ok bool
		mode := rng.Float64()
		switch {
		case mode < 0.12 && len(chips) > 0: // against chips, often cocked
			c := chips[rng.IntN(len(chips))]
			a := u(0, 2*math.Pi)
			if rng.Float64() < 0.6 {
				d.tilt = u(12, 40) * math.Pi / 180
			}
			dd := chipR + edgeMM/2*math.Cos(d.tilt) + 1.5
			at = pt{c.X + dd*math.Cos(a), c.Y + dd*math.Sin(a)}
			ok = at.X > fx0+edgeMM && at.X < fx1-edgeMM && at.Y > fy0+edgeMM && at.Y < fy1-edgeMM
			for _, o := range occupied {
				if math.Hypot(o.X-at.X, o.Y-at.Y) < edgeMM*1.5 {
					ok = false
				}
			}
			d.p = pose{X: at.X, Y: at.Y, R: restRotation(val, spin, d.tilt, math.Atan2(c.Y-at.Y, c.X-at.X)), Scale: 1 + 0.02*math.Sin(d.tilt)}
		case mode < 0.22 && len(walls) > 0: // against a wall, sometimes cocked
			side := rng.IntN(4)
			if rng.Float64() < 0.5 {
				d.tilt = u(12, 40) * math.Pi / 180
			}
			off := edgeMM/2*math.Cos(d.tilt) + 1
			var lean float64
			switch side {
			case 0:
				at, lean = pt{fx0 + off, u(fy0+edgeMM, fy1-edgeMM)}, math.Pi
			case 1:
				at, lean = pt{fx1 - off, u(fy0+edgeMM, fy1-edgeMM)}, 0
			case 2:
				at, lean = pt{u(fx0+edgeMM, fx1-edgeMM), fy0 + off}, -math.Pi/2
			default:
				at, lean = pt{u(fx0+edgeMM, fx1-edgeMM), fy1 - off}, math.Pi/2
			}
			ok = free(at, 0)
			d.p = pose{X: at.X, Y: at.Y, R: restRotation(val, spin, d.tilt, lean), Scale: 1}
		case mode < 0.32 && len(dice) > 0: // stacked on, or cocked against, another die
			bi := rng.IntN(len(dice))
			b := dice[bi]
			if b.onDie >= 0 || b.tilt != 0 {
				continue
			}
			if rng.Float64() < 0.5 {
				a := u(0, 2*math.Pi)
				off := u(1, 6)
				at = pt{b.p.X + off*math.Cos(a), b.p.Y + off*math.Sin(a)}
				d.onDie = bi
				d.h = edgeMM
				d.p = pose{X: at.X, Y: at.Y, R: restRotation(val, spin, 0, 0), Scale: u(1.08, 1.2)}
				if camH > 0 {
					// as the camera sees it from camH (StackedView); the
					// footprint (at) keeps its shadow and the dice's spacing
					d.foot = d.p
					s := StackedView(camH, edgeMM)
					d.p.Scale = s
					d.p.X, d.p.Y = nadir.X+(at.X-nadir.X)*s, nadir.Y+(at.Y-nadir.Y)*s
				}
			} else {
				a := u(0, 2*math.Pi)
				d.tilt = u(15, 40) * math.Pi / 180
				dd := edgeMM*0.5 + edgeMM*0.5*math.Cos(d.tilt) + 1
				at = pt{b.p.X + dd*math.Cos(a), b.p.Y + dd*math.Sin(a)}
				d.p = pose{X: at.X, Y: at.Y, R: restRotation(val, spin, d.tilt, a+math.Pi), Scale: 1.03}
				ok = at.X > fx0+edgeMM && at.X < fx1-edgeMM && at.Y > fy0+edgeMM && at.Y < fy1-edgeMM
				for oi, o := range occupied {
					if oi != bi && math.Hypot(o.X-at.X, o.Y-at.Y) < edgeMM*1.5 {
						ok = false
					}
				}
				break
			}
			ok = true
		case mode < 0.45 && len(dice) > 0: // touching another die side by side
			bi := rng.IntN(len(dice))
			b := dice[bi]
			if b.onDie >= 0 || b.tilt != 0 {
				continue
			}
			yaw := math.Atan2(b.p.R[3], b.p.R[0])
			side := float64(rng.IntN(4)) * math.Pi / 2
			gap := edgeMM * u(1.0, 1.08)
			at = pt{b.p.X + gap*math.Cos(yaw+side), b.p.Y + gap*math.Sin(yaw+side)}
			ok = at.X > fx0+edgeMM && at.X < fx1-edgeMM && at.Y > fy0+edgeMM && at.Y < fy1-edgeMM
			for oi, o := range occupied {
				if oi != bi && math.Hypot(o.X-at.X, o.Y-at.Y) < edgeMM*1.45 {
					ok = false
				}
			}
			// same yaw as its neighbour, so the faces meet flat
			r := restRotation(val, 0, 0, 0)
			d.p = pose{X: at.X, Y: at.Y, R: mulMM(rotZ(yaw-math.Atan2(r[3], r[0])), r), Scale: 1}
		default:
			at = pt{u(fx0, fx1), u(fy0, fy1)}
			ok = free(at, edgeMM)
			if ok && rng.Float64() < 0.06 {
				d.tilt = u(10, 35) * math.Pi / 180 // cocked on something off-picture (a pip, a seam)
			}
			d.p = pose{X: at.X, Y: at.Y, R: restRotation(val, spin, d.tilt, u(-math.Pi, math.Pi)), Scale: 1}
		}
		if !ok {
			continue
		}
		if pin != nil {
			// the camera's depth draws the size; a stacked die rests an
			// edge up
			d.p.Scale = 1
			if d.onDie >= 0 {
				d.p.Lift = edgeMM
			}
		}
		d.blur = rng.Float64() < 0.04
		dice = append(dice, d)
		occupied = append(occupied, at)
		sd := StillDie{Style: st.Name, OnDie: d.onDie, SizeRatio: math.Round(d.p.Scale*1000) / 1000, Flat: d.tilt == 0,
			TiltDeg: math.Round(d.tilt*180/math.Pi*10) / 10, MotionBlur: d.blur}
		sd.Value, _ = topValue(d.p.R)
		if pin != nil {
			sd.SizeRatio = math.Round(pin.sizeRatio(edgeMM, d.p)*1000) / 1000
		}
		switch {
		case mode < 0.12 && len(chips) > 0:
			sd.TouchesChips = true
		case mode < 0.22 && len(walls) > 0:
			sd.AgainstWall = true
		case mode >= 0.32 && mode < 0.45:
			sd.Touching = true
		}
		tr.Dice = append(tr.Dice, sd)
	}
	// mark the neighbours of touching dice as touching too
	for i, d := range tr.Dice {
		if !d.Touching {
			continue
		}
		for j := range tr.Dice {
			if j != i && math.Hypot(dice[i].p.X-dice[j].p.X, dice[i].p.Y-dice[j].p.Y) < edgeMM*1.1 {
				tr.Dice[j].Touching = true
			}
		}
	}
	r := &raster{buf: buf, w: opt.Width, h: opt.Height, stride: opt.Width * 3, v: v, camR: &camR, pin: pin}
	// draw bottom dice first, then the ones stacked on them
	order := make([]int, 0, len(dice))
	for i := range dice {
		if dice[i].onDie < 0 {
			order = append(order, i)
		}
	}
	for i := range dice {
		if dice[i].onDie >= 0 {
			order = append(order, i)
		}
	}
	for _, i := range order {
		d := dice[i]
		sp := d.p
		if d.foot.Scale > 0 {
			sp = d.foot
			sp.Scale = 1
		}
		r.drawShadow(edgeMM, sp, d.h+math.Sin(d.tilt)*edgeMM*0.5, 0, d.st.Tint, 0.5)
		poses := []pose{d.p}
		if d.blur {
			poses = poses[:0]
			a := u(0, 2*math.Pi)
			l := u(3, 9)
			for s := 0; s < 8; s++ {
				f := float64(s)/7 - 0.5
				q := d.p
				q.X += math.Cos(a) * l * f
				q.Y += math.Sin(a) * l * f
				q.R = mulMM(rotZ(f*0.3), d.p.R)
				poses = append(poses, q)
			}
		}
		ss := 3
		if d.blur {
			ss = 2
		}
		if d.foot.Scale > 0 && !d.blur {
			foot := d.foot
			foot.Scale = 1
			r.drawRaised(edgeMM, d.st, foot, d.p, ss)
		} else {
			r.drawDie(edgeMM, d.st, poses, ss)
		}
		top := r.faceBox(edgeMM, d.p, true)
		hull := r.faceBox(edgeMM, d.p, false)
		td := &tr.Dice[i]
		td.Box = [4]int{top.Min.X, top.Min.Y, top.Max.X, top.Max.Y}
		td.Hull = [4]int{hull.Min.X, hull.Min.Y, hull.Max.X, hull.Max.Y}
		td.CX, td.CY = v.img(d.p.X, d.p.Y)
		if pin != nil {
			td.CX, td.CY, _ = pin.project(pinCentre(edgeMM, d.p))
		}
		td.CX, td.CY = math.Round(td.CX*10)/10, math.Round(td.CY*10)/10
	}
	for i := range dice {
		if dice[i].onDie < 0 {
			continue
		}
		a := boxRect(tr.Dice[dice[i].onDie].Box)
		b := boxRect(tr.Dice[i].Hull).Intersect(a)
		if aa := a.Dx() * a.Dy(); aa > 0 {
			tr.Dice[dice[i].onDie].Occluded = math.Round(float64(b.Dx()*b.Dy())/float64(aa)*100) / 100
		}
	}
	// lighting, glare, blur, noise, JPEG
	stillLighting(buf, opt.Width, opt.Height, rng, &tr)
	if rng.Float64() < 0.6 {
		tr.Blur = math.Round(u(0.3, 1.3)*100) / 100
		ks := int(math.Ceil(tr.Blur*3))*2 + 1
		gocv.GaussianBlur(m, &m, image.Pt(ks, ks), tr.Blur, tr.Blur, gocv.BorderReflect101)
		buf, _ = m.DataPtrUint8()
	}
	tr.Noise = math.Round(u(1, 6)*10) / 10
	for i := 0; i+2 < len(buf); i += 3 {
		// luma noise plus some chroma: near-Gaussian from 16-bit uniforms
		r := rng.Uint64()
		l := (float64(r&0xffff)+float64((r>>16)&0xffff)+float64((r>>32)&0xffff))/65535 - 1.5
		l *= 2 * tr.Noise
		for c := 0; c < 3; c++ {
			ch := (float64((r>>(48+5*c))&0x1f)/31 - 0.5) * tr.Noise * 1.4
			buf[i+c] = uint8(clampF(float64(buf[i+c]) + l + ch + 0.5))
		}
	}
	tr.JPEGQuality = 35 + rng.IntN(61)
	nb, err := gocv.IMEncodeWithParams(gocv.JPEGFileExt, m, []int{gocv.IMWriteJpegQuality, tr.JPEGQuality})
	if err != nil {
		return nil, tr, fmt.Errorf("scene: still: %w", err)
	}
	defer nb.Close()
	return append([]byte(nil), nb.GetBytes()...), tr, nil
}

func boxRect(b [4]int) image.Rectangle { return image.Rect(b[0], b[1], b[2], b[3]) }

// stillLighting applies an uneven light: a linear gradient, a vignette and
// sometimes a glare spot.
func stillLighting(buf []byte, w, h int, rng *rand.Rand, tr *StillTruth) {
	gx, gy := (rng.Float64()-0.5)*0.5, (rng.Float64()-0.5)*0.5
	vig := rng.Float64() * 0.35
	glare := rng.Float64() < 0.3
	tr.Glare = glare
	gcx, gcy := rng.Float64()*float64(w), rng.Float64()*float64(h)
	gr := (0.08 + rng.Float64()*0.2) * float64(w)
	gs := 60 + rng.Float64()*120
	for y := 0; y < h; y++ {
		ny := float64(y)/float64(h)*2 - 1
		for x := 0; x < w; x++ {
			nx := float64(x)/float64(w)*2 - 1
			g := 1 + gx*nx + gy*ny - vig*(nx*nx+ny*ny)/2
			add := 0.0
			if glare {
				dx, dy := float64(x)-gcx, float64(y)-gcy
				if q := (dx*dx + dy*dy) / (gr * gr); q < 9 {
					add = gs * math.Exp(-q)
				}
			}
			i := 3 * (y*w + x)
			for c := 0; c < 3; c++ {
				buf[i+c] = uint8(clampF(float64(buf[i+c])*g + add))
			}
		}
	}
}

// stillBackground paints the surface and returns the tray's inner floor
// (x0, y0, x1, y1 in mm) when the scene has walls.
func stillBackground(m *gocv.Mat, buf []byte, v *view, kind string, rng *rand.Rand, seed int64) (walls [][4]float64, surface [3]float64) {
	w, h := v.cam.Width, v.cam.Height
	s := uint32(seed)
	var base [3]float64
	switch kind {
	case "felt":
		felts := [][3]float64{{60, 120, 30}, {110, 60, 20}, {40, 40, 130}, {45, 45, 45}}
		base = felts[rng.IntN(len(felts))]
	case "white_board":
		b := 215 + rng.Float64()*30
		base = [3]float64{b, b, b - 5}
	case "grey_tray":
		b := 150 + rng.Float64()*40
		base = [3]float64{b - 5, b, b + 3}
	case "wood":
		base = [3]float64{150, 190, 215}
	default:
		base = [3]float64{30, 28, 30}
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			X, Y := v.tab(float64(x)+0.5, float64(y)+0.5)
			var l float64
			switch kind {
			case "wood":
				l = 1 + 0.12*math.Sin((Y+8*vnoise(X/40, Y/40, s))/2.2) + 0.06*(vnoise(X/9, Y/2, s+1)-0.5)
			case "grey_tray":
				l = 1 + 0.08*(hash2(x, y, s)-0.5) + 0.05*(vnoise(X/3, Y/3, s)-0.5)
			default:
				l = 1 + 0.04*(vnoise(X/3, Y/3, s)-0.5) + 0.06*(vnoise(X/30, Y/30, s+1)-0.5)
			}
			i := 3 * (y*w + x)
			for c := 0; c < 3; c++ {
				buf[i+c] = uint8(clampF(base[c] * l))
			}
		}
	}
	// the table box every part of which is in the picture (the picture is
	// a trapezoid on the table when the camera is tilted)
	x0, y0 := v.tab(0, 0)
	x1, y1 := v.tab(float64(w), float64(h))
	xb0, _ := v.tab(0, float64(h))
	xb1, _ := v.tab(float64(w), 0)
	x0, x1 = math.Max(x0, xb0), math.Min(x1, xb1)
	switch kind {
	case "felt":
		// printed lines and words, as on a layout
		white := [3]float64{225, 230, 232}
		for i := 0; i < 2+rng.IntN(3); i++ {
			a := [2]float64{x0 + rng.Float64()*(x1-x0), y0 + rng.Float64()*(y1-y0)}
			b := [2]float64{x0 + rng.Float64()*(x1-x0), a[1]}
			if rng.IntN(2) == 0 {
				b = [2]float64{a[0], y0 + rng.Float64()*(y1-y0)}
			}
			lineMM(m, v, a, b, 5, white)
		}
		words := []string{"PASS LINE", "COME", "FIELD", "SIX", "8", "NINE", "ODDS"}
		textMM(m, v, words[rng.IntN(len(words))], x0+rng.Float64()*(x1-x0), y0+rng.Float64()*(y1-y0), 25+rng.Float64()*30, white)
		drawPrintedDie(m, v, x0+rng.Float64()*(x1-x0), y0+rng.Float64()*(y1-y0), 1+rng.IntN(6))
	case "grey_tray":
		// dark walls with a colourful print, seen from above
		wall := 12 + rng.Float64()*15
		fx0, fy0, fx1, fy1 := x0*0.82, y0*0.82, x1*0.82, y1*0.82
		dark := [3]float64{40, 35, 35}
		polyMM(m, v, rectMM(x0-50, y0-50, x1+50, fy0), [3]float64{225, 228, 230})
		polyMM(m, v, rectMM(x0-50, fy1, x1+50, y1+50), [3]float64{225, 228, 230})
		polyMM(m, v, rectMM(x0-50, y0-50, fx0, y1+50), [3]float64{225, 228, 230})
		polyMM(m, v, rectMM(fx1, y0-50, x1+50, y1+50), [3]float64{225, 228, 230})
		outlineMM(m, v, rectMM(fx0-wall/2, fy0-wall/2, fx1+wall/2, fy1+wall/2), wall, dark)
		for i := 0; i < 12; i++ {
			c := chipColours[rng.IntN(len(chipColours))]
			t := rng.Float64()
			p := [2]float64{fx0 - wall/2 + t*(fx1-fx0+wall), fy0 - wall/2}
			if i%2 == 1 {
				p[1] = fy1 + wall/2
			}
			polyMM(m, v, circleMM(p[0], p[1], wall*0.3, 12), c)
		}
		return [][4]float64{{fx0, fy0, fx1, fy1}}, base
	}
	return nil, base
}

// StillRecord is one line of stills.jsonl: an image file and its truth.
type StillRecord struct {
	Image string `json:"image"`
	StillTruth
}

// FileStills is the truth file WriteStills writes beside the images.
const FileStills = "stills.jsonl"

// WriteStills renders n still scenes with seeds seed0..seed0+n-1 into dir
// as still_SEED.jpg, with their truth in dir/stills.jsonl.
func WriteStills(dir string, seed0 int64, n int, opt StillOptions) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("scene: %w", err)
	}
	recs := make([]StillRecord, 0, n)
	for i := 0; i < n; i++ {
		seed := seed0 + int64(i)
		b, tr, err := StillJPEG(seed, opt)
		if err != nil {
			return err
		}
		name := fmt.Sprintf("still_%06d.jpg", seed)
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return fmt.Errorf("scene: %w", err)
		}
		recs = append(recs, StillRecord{Image: name, StillTruth: tr})
	}
	return writeJSONL(filepath.Join(dir, FileStills), len(recs), func(i int) any { return recs[i] })
}

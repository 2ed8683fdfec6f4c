package vision

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"testing"

	"github.com/dicewatch/dicewatch/calibration"
	"github.com/dicewatch/dicewatch/vision/scene"
)

// The stills' view from a table calibration, as the product has it
// (DICEWATCH_STILL_VIEW=cal or pinhole), in place of the generator's
// ground truth (DICEWATCH_STILL_VIEW=tilt, stillViewUp): the calibrated
// read is given the calibration's ViewTiltDeg and ViewUp, NaN where the
// calibration does not know the view, as vision/pipeline.go gives them.
//
//   - cal: the calibration an installer makes from the still's table
//     corners (the picture's four corners and the table mm the
//     generator's table-to-picture map puts there), with
//     DICEWATCH_STILL_CAL_FOCAL=keystone (the default) as camera.focal_px
//     the focal length of the pinhole whose table, at the still's tilt,
//     has the keystone the generator draws (stillKeystoneFocal), =estimate
//     none (the view estimated from the homography), or =S S times the
//     picture's width.
//   - pinhole: the calibration an installer makes, from 30 reference
//     points, of a pinhole camera at the still's tilt about the picture's
//     x axis, looking at the picture's centre from its bottom side, with
//     the still's scale there and the focal length as for cal (its view
//     differs from the generator's one tilt for every die across the
//     picture: a pinhole's line of sight leans more at the far side).
//
// The generator's table map is not a pinhole's (the far side's table is
// wider, but no deeper: TestViewGenerators), so cal's calibrations are
// refused where the pinhole check sees it; and it draws every die through
// the one camera rotation, so pinhole's view is right only near the
// picture's centre.

// stillCalView is the still harness's view source.
type stillCalView struct {
	mode  string // "cal" or "pinhole"
	focal string // "keystone", "estimate" or a share of the width
	// tallies, for the log
	stills, given       int
	bySource            map[string]int
	dice, diceGiven     int
	sumDir, maxDir      float64 // ViewUp's direction against the truth's, degrees (truth tilted)
	sumLen, maxLen      float64 // ViewUp's length against sin(tilt)
	sumTilt, maxTiltOff float64 // ViewTiltDeg against the still's tilt, degrees
	firstErr            string
}

// newStillCalView reads DICEWATCH_STILL_VIEW and DICEWATCH_STILL_CAL_FOCAL
// (nil for tilt or none).
func newStillCalView(t testing.TB) *stillCalView {
	m := os.Getenv("DICEWATCH_STILL_VIEW")
	if m != "cal" && m != "pinhole" {
		return nil
	}
	f := os.Getenv("DICEWATCH_STILL_CAL_FOCAL")
	if f == "" {
		f = "keystone"
	}
	if f != "keystone" && f != "estimate" {
		if s, err := strconv.ParseFloat(f, 64); err != nil || !(s > 0) {
			t.Fatalf("DICEWATCH_STILL_CAL_FOCAL=%q: want keystone, estimate or a share of the picture's width", f)
		}
	}
	return &stillCalView{mode: m, focal: f, bySource: map[string]int{}}
}

// stillKeystone is the generator's table-to-picture keystone for a still:
// the far (top) side of the picture covers 1+k of the table's span, the
// near side 1-k/2 (vision/scene's Still).
func stillKeystone(tilt float64) float64 { return math.Tan(tilt*math.Pi/180) * 0.5 }

// stillKeystoneFocal is the focal length, in px, of the pinhole at the
// still's tilt (about the picture's x axis, principal point at the
// centre) whose view of the table has the keystone the generator draws:
// the far side's table over the near side's is cos(tilt-a)/cos(tilt+a)
// for a half field of view a across the picture's height, so tan(a) is
// (r-1)/(r+1)/tan(tilt); about 0.375 at every tilt (its limit
// straight down, taken there).
func stillKeystoneFocal(tr scene.StillTruth) float64 {
	ta := 0.375
	if tr.CameraTiltDeg > 0 {
		k := stillKeystone(tr.CameraTiltDeg)
		r := (1 + k) / (1 - k/2)
		ta = (r - 1) / (r + 1) / math.Tan(tr.CameraTiltDeg*math.Pi/180)
	}
	return float64(tr.Height) / 2 / ta
}

// focalPx is camera.focal_px for the still (0: estimated).
func (v *stillCalView) focalPx(tr scene.StillTruth) float64 {
	switch v.focal {
	case "keystone":
		return stillKeystoneFocal(tr)
	case "estimate":
		return 0
	}
	s, _ := strconv.ParseFloat(v.focal, 64)
	return s * float64(tr.Width)
}

// calibrate makes the still's calibration (nil and the reason when it is
// refused).
func (v *stillCalView) calibrate(tr scene.StillTruth) (*calibration.Calibration, error) {
	const edgeMM = 19.0
	w, h := float64(tr.Width), float64(tr.Height)
	pxmm := tr.EdgePx / edgeMM
	var refs []calibration.RefPoint
	var poly [][2]float64
	f := v.focalPx(tr)
	switch v.mode {
	case "cal":
		spanX, spanY := w/pxmm, h/pxmm
		k := stillKeystone(tr.CameraTiltDeg)
		src := [4][2]float64{{-spanX / 2 * (1 + k), -spanY / 2}, {spanX / 2 * (1 + k), -spanY / 2}, {spanX / 2 * (1 - k/2), spanY / 2}, {-spanX / 2 * (1 - k/2), spanY / 2}}
		dst := [4][2]float64{{0, 0}, {w, 0}, {w, h}, {0, h}}
		for i := range src {
			refs = append(refs, calibration.RefPoint{Label: fmt.Sprintf("corner %d", i), Px: dst[i], MM: src[i]})
			poly = append(poly, src[i])
		}
	case "pinhole":
		// The focal length the picture has (the estimate's camera too).
		if f == 0 {
			f = stillKeystoneFocal(tr)
		}
		refs, poly = pinholeRefs(stillPinhole(tr.CameraTiltDeg, f, f/pxmm, w, h), w, h)
		if v.focal == "estimate" {
			f = 0
		}
	}
	c := &calibration.Calibration{
		Version:      calibration.Version,
		Camera:       calibration.Camera{Width: tr.Width, Height: tr.Height, FocalPx: f},
		Reference:    &calibration.Reference{Method: calibration.MethodPoints, Points: refs},
		TablePolygon: poly,
		Die:          calibration.Die{EdgeMM: edgeMM},
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// stillPinholeCam is a pinhole camera over the generator's table (mm,
// the picture's centre at the origin, y down the picture): tilted about
// the table's x axis, on the near (+y, the picture's bottom) side, dist
// mm from the origin along its line of sight. Table coordinates are
// taken with z towards the camera (the generator's x, y and this z make
// a mirrored frame: a pinhole's map of the plane does not care).
type stillPinholeCam struct {
	f, cx, cy float64
	c         [3]float64    // the camera's centre
	ax        [3][3]float64 // its x, y (down the picture) and z (line of sight) axes
}

func stillPinhole(tilt, f, dist, w, h float64) stillPinholeCam {
	s, c := math.Sin(tilt*math.Pi/180), math.Cos(tilt*math.Pi/180)
	return stillPinholeCam{
		f: f, cx: w / 2, cy: h / 2,
		c:  [3]float64{0, dist * s, dist * c},
		ax: [3][3]float64{{1, 0, 0}, {0, c, -s}, {0, -s, -c}},
	}
}

// project maps a point (x, y, z) to picture px.
func (p stillPinholeCam) project3(q [3]float64) [2]float64 {
	d := [3]float64{q[0] - p.c[0], q[1] - p.c[1], q[2] - p.c[2]}
	var u [3]float64
	for i := range u {
		u[i] = p.ax[i][0]*d[0] + p.ax[i][1]*d[1] + p.ax[i][2]*d[2]
	}
	return [2]float64{p.cx + p.f*u[0]/u[2], p.cy + p.f*u[1]/u[2]}
}

func (p stillPinholeCam) project(mm [2]float64) [2]float64 {
	return p.project3([3]float64{mm[0], mm[1], 0})
}

// unproject is the table point a picture px sees.
func (p stillPinholeCam) unproject(px [2]float64) [2]float64 {
	r := [3]float64{(px[0] - p.cx) / p.f, (px[1] - p.cy) / p.f, 1}
	var d [3]float64
	for k := range d {
		d[k] = r[0]*p.ax[0][k] + r[1]*p.ax[1][k] + r[2]*p.ax[2][k]
	}
	s := -p.c[2] / d[2]
	return [2]float64{p.c[0] + s*d[0], p.c[1] + s*d[1]}
}

// views gives the reader's ViewTiltDeg and ViewUp for a still from its
// calibration (both NaN everywhere when it is refused), and tallies how
// they compare with the generator's at the still's dice.
func (v *stillCalView) views(tr scene.StillTruth) (func(x, y float64) float64, func(x, y float64) [2]float64) {
	v.stills++
	c, err := v.calibrate(tr)
	if err != nil {
		v.bySource["refused"]++
		if v.firstErr == "" {
			v.firstErr = fmt.Sprintf("still %d (tilt %.1f): %v", tr.Seed, tr.CameraTiltDeg, err)
		}
		nan := math.NaN()
		return func(x, y float64) float64 { return nan }, func(x, y float64) [2]float64 { return [2]float64{nan, nan} }
	}
	src := string(c.View().Source)
	if src == "" {
		src = "unknown"
	}
	v.bySource[src]++
	if src == string(calibration.ViewFocal) || src == string(calibration.ViewEstimated) {
		v.given++
	}
	truth := stillViewUp(tr)
	for _, d := range tr.Dice {
		v.dice++
		p := calibration.Point{X: d.CX, Y: d.CY}
		u, tl := c.ViewUp(p), c.ViewTiltDeg(p)
		if math.IsNaN(u.X) || math.IsNaN(tl) {
			continue
		}
		v.diceGiven++
		g := truth(d.CX, d.CY)
		if tr.CameraTiltDeg > 0 {
			a := math.Abs(math.Remainder(math.Atan2(u.Y, u.X)-math.Atan2(g[1], g[0]), 2*math.Pi)) * 180 / math.Pi
			v.sumDir += a
			v.maxDir = math.Max(v.maxDir, a)
		}
		l := math.Abs(math.Hypot(u.X, u.Y) - math.Hypot(g[0], g[1]))
		v.sumLen += l
		v.maxLen = math.Max(v.maxLen, l)
		o := math.Abs(tl - tr.CameraTiltDeg)
		v.sumTilt += o
		v.maxTiltOff = math.Max(v.maxTiltOff, o)
	}
	return func(x, y float64) float64 { return c.ViewTiltDeg(calibration.Point{X: x, Y: y}) },
		func(x, y float64) [2]float64 {
			u := c.ViewUp(calibration.Point{X: x, Y: y})
			return [2]float64{u.X, u.Y}
		}
}

// report sums the views up.
func (v *stillCalView) report() string {
	n := float64(max(v.diceGiven, 1))
	s := fmt.Sprintf("view from the calibration (DICEWATCH_STILL_VIEW=%s, focal %s): given on %d of %d stills %v; at %d of %d dice: angle off the still's tilt %.2f deg mean, %.2f worst; ViewUp's length off sin(tilt) %.3f mean, %.3f worst; its direction off the truth's (tilted stills) %.2f deg mean, %.2f worst",
		v.mode, v.focal, v.given, v.stills, v.bySource, v.diceGiven, v.dice, v.sumTilt/n, v.maxTiltOff, v.sumLen/n, v.maxLen, v.sumDir/n, v.maxDir)
	if v.firstErr != "" {
		s += "; first refused: " + v.firstErr
	}
	return s
}

// TestStillCalView checks the harness's pinhole against the generator's
// view at the picture's centre, where they must agree: the calibration
// made from the pinhole's reference points gives the still's tilt there,
// and ViewUp straight up the picture with length sin(tilt); and it logs
// (-v) the views over the first 200 stills in each mode.
func TestStillCalView(t *testing.T) {
	for _, tilt := range []float64{0, 8, 20, 35} {
		tr := scene.StillTruth{Seed: 1, Width: 640, Height: 640, EdgePx: 40, CameraTiltDeg: tilt}
		v := &stillCalView{mode: "pinhole", focal: "keystone", bySource: map[string]int{}}
		c, err := v.calibrate(tr)
		if err != nil {
			t.Fatalf("tilt %g: %v", tilt, err)
		}
		ctr := calibration.Point{X: 320, Y: 320}
		if got := c.ViewTiltDeg(ctr); math.Abs(got-tilt) > 0.01 {
			t.Errorf("tilt %g: the calibration's angle at the centre %.3f", tilt, got)
		}
		u, want := c.ViewUp(ctr), stillViewUp(tr)(320, 320)
		if math.Hypot(u.X-want[0], u.Y-want[1]) > 1e-3 {
			t.Errorf("tilt %g: ViewUp at the centre %v, the generator's %v", tilt, u, want)
		}
		// The scale across the picture at its centre is the still's.
		m := c.ToTable(ctr)
		a, b := c.ToImage(calibration.Point{X: m.X - 9.5, Y: m.Y}), c.ToImage(calibration.Point{X: m.X + 9.5, Y: m.Y})
		if d := math.Hypot(b.X-a.X, b.Y-a.Y); math.Abs(d-40) > 0.1 {
			t.Errorf("tilt %g: a die's edge across the picture's centre %.2f px, want 40", tilt, d)
		}
	}
	if !testing.Verbose() {
		return
	}
	for _, m := range []string{"cal", "pinhole"} {
		for _, f := range []string{"keystone", "estimate"} {
			v := &stillCalView{mode: m, focal: f, bySource: map[string]int{}}
			for seed := int64(0); seed < 200; seed++ {
				img, tr, err := scene.Still(seed, stillOptions(t))
				if err != nil {
					t.Fatal(err)
				}
				img.Close()
				v.views(tr)
			}
			t.Log(v.report())
		}
	}
}

package scene

import (
	"fmt"
	"math"
)

// Camera is the simulated overhead camera.
type Camera struct {
	Width  int     `json:"width"`
	Height int     `json:"height"`
	FPS    float64 `json:"fps"`
	// PxPerMM is the scale at the middle of the view. Zero picks the
	// default: 0.85 px/mm for 1920x1080, otherwise the scale that frames the
	// same landing area as the default camera.
	PxPerMM float64 `json:"px_per_mm"`
	// Keystone is the slight perspective of a camera not quite straight
	// down: the far end of the view covers this fraction more table than the
	// near end. Zero is straight down; the default session uses 0.02.
	Keystone float64 `json:"keystone"`
}

// DefaultCamera is the demo camera: 1920x1080 at 30 fps, 0.85 px/mm.
func DefaultCamera() Camera {
	return Camera{Width: 1920, Height: 1080, FPS: 30, PxPerMM: 0.85, Keystone: 0.02}
}

// CloseCamera is a 1280x720 camera closer to the table: the same 0.85
// px/mm as the default camera (a die about 16 px), so it sees the far end
// of the layout (X 2174..3680 mm, Y 287..1133 mm) but not the bowl, the
// bank or the rails. Sessions with it take the kinds valid, off_table,
// cocked and stacked.
func CloseCamera() Camera {
	return Camera{Width: 1280, Height: 720, FPS: 30, PxPerMM: 0.85, Keystone: 0.02}
}

// The landing area the default camera frames, in table mm: from a little
// behind the dice bowl and the bank to just past the far end of the table,
// and across the table to a strip of each side rail. Dice that go over the
// side rails leave the picture.
const (
	viewRightMM  = 3680.0 // image right edge: 20 mm past the table end
	viewCentreY  = 710.0
	defaultSpanX = 1920 / 0.85
	defaultSpanY = 1080 / 0.85
)

func (c Camera) withDefaults() Camera {
	if c.Width == 0 && c.Height == 0 {
		d := DefaultCamera()
		d.FPS = c.FPS
		d.PxPerMM = c.PxPerMM
		d.Keystone = c.Keystone
		if d.PxPerMM == 0 {
			d.PxPerMM = 0.85
		}
		c = d
	}
	if c.FPS == 0 {
		c.FPS = 30
	}
	if c.PxPerMM == 0 {
		c.PxPerMM = math.Min(float64(c.Width)/defaultSpanX, float64(c.Height)/defaultSpanY)
	}
	return c
}

func (c Camera) validate() error {
	if c.Width < 64 || c.Height < 64 || c.Width > 8192 || c.Height > 8192 {
		return fmt.Errorf("scene: camera %dx%d: width and height must be 64..8192", c.Width, c.Height)
	}
	if c.FPS < 1 || c.FPS > 240 {
		return fmt.Errorf("scene: camera fps %g: must be 1..240", c.FPS)
	}
	if c.PxPerMM < 0.2 || c.PxPerMM > 20 {
		return fmt.Errorf("scene: camera px_per_mm %g: must be 0.2..20", c.PxPerMM)
	}
	if c.Keystone < 0 || c.Keystone > 0.2 {
		return fmt.Errorf("scene: camera keystone %g: must be 0..0.2", c.Keystone)
	}
	return nil
}

// FrameMS is the stream time of frame k: floor(k*1000/fps) ms.
func (c Camera) FrameMS(k int) int64 {
	return int64(math.Floor(float64(k)*1000/c.FPS + 1e-9))
}

// view maps table mm to image px and back.
type view struct {
	cam   Camera
	toImg [9]float64 // table mm -> image px
	toTab [9]float64 // image px -> table mm
	spanX float64
	spanY float64
	// leftX, topY and bottom bound the table area every part of which is
	// in the picture (the near, narrower end fixes topY and bottom).
	leftX  float64
	topY   float64
	bottom float64
}

func newView(cam Camera) (*view, error) {
	spanX := float64(cam.Width) / cam.PxPerMM
	spanY := float64(cam.Height) / cam.PxPerMM
	x1 := viewRightMM
	x0 := x1 - spanX
	k := cam.Keystone
	// The near (left) edge covers a little less table across, the far
	// (right) edge a little more: a camera tipped slightly towards the far wall.
	hl := spanY / 2 * (1 - k)
	hr := spanY / 2 * (1 + k)
	w, h := float64(cam.Width), float64(cam.Height)
	src := [4]pt{{X: x0, Y: viewCentreY - hl}, {X: x1, Y: viewCentreY - hr}, {X: x1, Y: viewCentreY + hr}, {X: x0, Y: viewCentreY + hl}}
	dst := [4]pt{{X: 0, Y: 0}, {X: w, Y: 0}, {X: w, Y: h}, {X: 0, Y: h}}
	toImg, err := homography4(src, dst)
	if err != nil {
		return nil, err
	}
	toTab, err := homography4(dst, src)
	if err != nil {
		return nil, err
	}
	return &view{cam: cam, toImg: toImg, toTab: toTab, spanX: spanX, spanY: spanY, leftX: x0,
		topY: viewCentreY - hl, bottom: viewCentreY + hl}, nil
}

func applyH(h [9]float64, x, y float64) (float64, float64) {
	w := h[6]*x + h[7]*y + h[8]
	return (h[0]*x + h[1]*y + h[2]) / w, (h[3]*x + h[4]*y + h[5]) / w
}

// img maps table mm to image px.
func (v *view) img(x, y float64) (float64, float64) { return applyH(v.toImg, x, y) }

// tab maps image px to table mm.
func (v *view) tab(x, y float64) (float64, float64) { return applyH(v.toTab, x, y) }

// jac is the local linear map table mm -> image px at (x, y): [a b; c d].
func (v *view) jac(x, y float64) [4]float64 {
	const d = 1.0
	x0, y0 := v.img(x-d, y)
	x1, y1 := v.img(x+d, y)
	x2, y2 := v.img(x, y-d)
	x3, y3 := v.img(x, y+d)
	return [4]float64{(x1 - x0) / (2 * d), (x3 - x2) / (2 * d), (y1 - y0) / (2 * d), (y3 - y2) / (2 * d)}
}

// homography4 solves the 3x3 homography (h[8]=1) taking src[i] to dst[i].
func homography4(src, dst [4]pt) ([9]float64, error) {
	var a [8][9]float64
	for i := 0; i < 4; i++ {
		x, y, u, w := src[i].X, src[i].Y, dst[i].X, dst[i].Y
		a[2*i] = [9]float64{x, y, 1, 0, 0, 0, -u * x, -u * y, u}
		a[2*i+1] = [9]float64{0, 0, 0, x, y, 1, -w * x, -w * y, w}
	}
	for c := 0; c < 8; c++ {
		p := c
		for r := c + 1; r < 8; r++ {
			if math.Abs(a[r][c]) > math.Abs(a[p][c]) {
				p = r
			}
		}
		if math.Abs(a[p][c]) < 1e-12 {
			return [9]float64{}, fmt.Errorf("scene: homography: degenerate points")
		}
		a[c], a[p] = a[p], a[c]
		for r := 0; r < 8; r++ {
			if r == c {
				continue
			}
			f := a[r][c] / a[c][c]
			for k := c; k < 9; k++ {
				a[r][k] -= f * a[c][k]
			}
		}
	}
	var h [9]float64
	for i := 0; i < 8; i++ {
		h[i] = a[i][8] / a[i][i]
	}
	h[8] = 1
	return h, nil
}

type pt struct{ X, Y float64 }

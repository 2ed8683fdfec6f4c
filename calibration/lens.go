package calibration

import (
	"fmt"
	"math"
)

// Lens models radial and tangential lens distortion (Brown-Conrady, the
// model OpenCV's calibrateCamera reports). With Model "" or "none" pixels
// are used as they are. The homography maps undistorted pixels to table mm.
type Lens struct {
	Model string  `yaml:"model,omitempty"` // "", "none" or "brown_conrady"
	FX    float64 `yaml:"fx,omitempty"`    // focal length in px
	FY    float64 `yaml:"fy,omitempty"`
	CX    float64 `yaml:"cx,omitempty"` // principal point in px
	CY    float64 `yaml:"cy,omitempty"`
	K1    float64 `yaml:"k1,omitempty"`
	K2    float64 `yaml:"k2,omitempty"`
	K3    float64 `yaml:"k3,omitempty"`
	P1    float64 `yaml:"p1,omitempty"`
	P2    float64 `yaml:"p2,omitempty"`
}

// Lens models.
const (
	LensNone          = "none"
	LensBrownConrady  = "brown_conrady"
	maxUndistortSteps = 20
)

func (l Lens) active() bool { return l.Model == LensBrownConrady }

func (l Lens) validate() error {
	switch l.Model {
	case "", LensNone:
		return nil
	case LensBrownConrady:
	default:
		return fmt.Errorf("lens.model: %q is not none or brown_conrady", l.Model)
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"fx", l.FX}, {"fy", l.FY}, {"cx", l.CX}, {"cy", l.CY}, {"k1", l.K1}, {"k2", l.K2}, {"k3", l.K3}, {"p1", l.P1}, {"p2", l.P2}} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			return fmt.Errorf("lens.%s: not finite", f.name)
		}
	}
	if l.FX <= 0 || l.FY <= 0 {
		return fmt.Errorf("lens.fx, lens.fy: must be positive for brown_conrady")
	}
	return nil
}

// distort maps an ideal (undistorted) pixel to where the lens puts it.
func (l Lens) distort(p Point) Point {
	if !l.active() {
		return p
	}
	x, y := (p.X-l.CX)/l.FX, (p.Y-l.CY)/l.FY
	xd, yd := l.distortNorm(x, y)
	return Point{xd*l.FX + l.CX, yd*l.FY + l.CY}
}

func (l Lens) distortNorm(x, y float64) (float64, float64) {
	r2 := x*x + y*y
	radial := 1 + l.K1*r2 + l.K2*r2*r2 + l.K3*r2*r2*r2
	xd := x*radial + 2*l.P1*x*y + l.P2*(r2+2*x*x)
	yd := y*radial + l.P1*(r2+2*y*y) + 2*l.P2*x*y
	return xd, yd
}

// undistort maps an observed pixel to the ideal pixel (fixed-point
// iteration, as OpenCV's undistortPoints).
func (l Lens) undistort(p Point) Point {
	if !l.active() {
		return p
	}
	xd, yd := (p.X-l.CX)/l.FX, (p.Y-l.CY)/l.FY
	x, y := xd, yd
	for i := 0; i < maxUndistortSteps; i++ {
		r2 := x*x + y*y
		radial := 1 + l.K1*r2 + l.K2*r2*r2 + l.K3*r2*r2*r2
		dx := 2*l.P1*x*y + l.P2*(r2+2*x*x)
		dy := l.P1*(r2+2*y*y) + 2*l.P2*x*y
		x = (xd - dx) / radial
		y = (yd - dy) / radial
	}
	return Point{x*l.FX + l.CX, y*l.FY + l.CY}
}

// Undistort maps an observed pixel to the ideal pixel the homography
// takes (the identity without a lens model).
func (c *Calibration) Undistort(p Point) Point { return c.Lens.undistort(p) }

// lensGrid are the image positions, as shares of the width and height,
// where checkLens makes sure the model inverts.
var lensGrid = [...]float64{0, 0.25, 0.5, 0.75, 1}

// maxLensRoundTripPx is how far undistorting then distorting a pixel may
// land from it for the lens model to count as inverting over the image.
const maxLensRoundTripPx = 0.5

// checkLens checks a brown_conrady model against the image (validate
// passed): its principal point inside the image, its focal lengths
// plausible for the image's size (as camera.focal_px's), and the model
// invertible over the whole image (distortion coefficients that fold the
// image, or a typing slip, make undistort's iteration wander).
func (c *Calibration) checkLens() error {
	l := c.Lens
	if !l.active() {
		return nil
	}
	w, h := float64(c.Camera.Width), float64(c.Camera.Height)
	if !(l.CX > 0 && l.CX < w && l.CY > 0 && l.CY < h) {
		return fmt.Errorf("lens.cx, lens.cy: (%g, %g) is not inside the %dx%d image (the principal point, in pixels; missing?)", l.CX, l.CY, c.Camera.Width, c.Camera.Height)
	}
	long := c.long()
	for _, f := range []struct {
		name string
		v    float64
	}{{"fx", l.FX}, {"fy", l.FY}} {
		if !(f.v >= minFocalShare*long && f.v <= maxFocalShare*long) {
			return fmt.Errorf("lens.%s: %g is not a plausible focal length for a %dx%d image (%.0f..%.0f px)", f.name, f.v, c.Camera.Width, c.Camera.Height, minFocalShare*long, maxFocalShare*long)
		}
	}
	for _, a := range lensGrid {
		for _, b := range lensGrid {
			p := Point{a * w, b * h}
			q := l.distort(l.undistort(p))
			if d := math.Hypot(q.X-p.X, q.Y-p.Y); !(d <= maxLensRoundTripPx) {
				return fmt.Errorf("lens: the model does not invert at pixel (%g, %g) (undistorted and distorted again it lands %.3g px away): k1, k2, k3, p1, p2 are too strong for fx, fy", p.X, p.Y, d)
			}
		}
	}
	return nil
}

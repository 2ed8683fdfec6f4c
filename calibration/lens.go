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

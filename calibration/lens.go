package calibration

import (
	"fmt"
	"math"
	"strings"
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

// undistortConverged is how far, in units of the focal length, the
// fixed-point iteration's answer may distort from the observed point for
// undistort to keep it without trying Newton's method (about a
// millionth of a pixel).
const undistortConverged = 1e-9

// undistort maps an observed pixel to the ideal pixel: fixed-point
// iteration as OpenCV's undistortPoints, then, where that has not
// converged, Newton's method (see undistortNorm). Where the model does
// not reach the pixel the answer is the nearest it found; undistortOK
// says whether it is one.
func (l Lens) undistort(p Point) Point {
	if !l.active() {
		return p
	}
	x, y := l.undistortNorm((p.X-l.CX)/l.FX, (p.Y-l.CY)/l.FY)
	return Point{x*l.FX + l.CX, y*l.FY + l.CY}
}

// undistortOK is undistort, with ok false where the answer does not
// distort back to within maxLensRoundTripPx of p or lies past a fold of
// the model (another solution of a barrel model past its widest reach:
// the model folds somewhere on the way out to it, at one of
// foldSamples points from the principal point).
func (l Lens) undistortOK(p Point) (Point, bool) {
	q := l.undistort(p)
	if !l.active() {
		return q, true
	}
	r := l.distort(q)
	if !(math.Hypot(r.X-p.X, r.Y-p.Y) <= maxLensRoundTripPx) {
		return q, false
	}
	x, y := (q.X-l.CX)/l.FX, (q.Y-l.CY)/l.FY
	for k := 1; k <= foldSamples; k++ {
		s := float64(k) / foldSamples
		if lo, _ := l.scales(s*x, s*y); !(lo > 0) {
			return q, false
		}
	}
	return q, true
}

// foldSamples is how many points along the way from the principal point
// undistortOK looks for a fold at.
const foldSamples = 32

// undistortNorm solves distortNorm(x, y) = (xd, yd). The fixed-point
// steps converge slowly, or not at all, near the edge of a wide lens's
// image (k1 -0.33 at 1.1 focal lengths from the centre: 8 px off after
// 20 steps). Newton's method from there converges wherever the model is
// invertible; its steps are halved until they bring the point closer and
// stay where the model does not fold (both of the Jacobian's
// eigenvalues positive), so it does not jump to the outer solution a
// barrel model has past its widest reach.
func (l Lens) undistortNorm(xd, yd float64) (float64, float64) {
	x, y := xd, yd
	for i := 0; i < maxUndistortSteps; i++ {
		r2 := x*x + y*y
		radial := 1 + l.K1*r2 + l.K2*r2*r2 + l.K3*r2*r2*r2
		dx := 2*l.P1*x*y + l.P2*(r2+2*x*x)
		dy := l.P1*(r2+2*y*y) + 2*l.P2*x*y
		x = (xd - dx) / radial
		y = (yd - dy) / radial
	}
	if ex, ey := l.distortNorm(x, y); (ex-xd)*(ex-xd)+(ey-yd)*(ey-yd) <= undistortConverged*undistortConverged {
		return x, y
	}
	return l.undistortNewton(xd, yd, x, y)
}

// undistortNewton is undistortNorm's Newton steps, from the fixed-point
// answer (x, y).
func (l Lens) undistortNewton(xd, yd, x, y float64) (float64, float64) {
	miss := func(x, y float64) (float64, float64, float64) {
		ex, ey := l.distortNorm(x, y)
		return ex - xd, ey - yd, math.Hypot(ex-xd, ey-yd)
	}
	rx, ry, m := miss(x, y)
	// Newton from the fixed-point answer if it lies where the model does
	// not fold, else from the observed point.
	if lo, _ := l.scales(x, y); !(lo > 0) || math.IsNaN(m) {
		x, y = xd, yd
		rx, ry, m = miss(x, y)
	}
	for i := 0; i < maxNewtonSteps && m > undistortConverged*1e-3; i++ {
		a, b, d := l.jacobian(x, y)
		det := a*d - b*b
		if !(math.Abs(det) > 1e-12) {
			break
		}
		sx, sy := (d*rx-b*ry)/det, (a*ry-b*rx)/det
		moved := false
		for h := 1.0; h >= 1.0/1024; h /= 2 {
			nx, ny := x-h*sx, y-h*sy
			if lo, _ := l.scales(nx, ny); !(lo > 0) {
				continue
			}
			if nrx, nry, nm := miss(nx, ny); nm < m {
				x, y, rx, ry, m = nx, ny, nrx, nry, nm
				moved = true
				break
			}
		}
		if !moved {
			break
		}
	}
	return x, y
}

// maxNewtonSteps bounds undistortNorm's Newton steps (it converges in a
// handful where the model is invertible).
const maxNewtonSteps = 30

// jacobian is distortNorm's Jacobian at (x, y): [a b; b d] (it is
// symmetric).
func (l Lens) jacobian(x, y float64) (a, b, d float64) {
	r2 := x*x + y*y
	radial := 1 + l.K1*r2 + l.K2*r2*r2 + l.K3*r2*r2*r2
	dr := l.K1 + 2*l.K2*r2 + 3*l.K3*r2*r2 // d radial / d r2
	a = radial + 2*x*x*dr + 2*l.P1*y + 6*l.P2*x
	b = 2*x*y*dr + 2*l.P1*x + 2*l.P2*y
	d = radial + 2*y*y*dr + 6*l.P1*y + 2*l.P2*x
	return a, b, d
}

// scales are the least and greatest eigenvalue of distortNorm's Jacobian
// at (x, y): how much the lens shrinks or stretches the image there, in
// the two directions it does so most (along the radius and across it,
// for a radial model). Both are 1 without distortion; one at or below 0
// is where the model folds the image over.
func (l Lens) scales(x, y float64) (lo, hi float64) {
	a, b, d := l.jacobian(x, y)
	m, s := (a+d)/2, math.Hypot((a-d)/2, b)
	return m - s, m + s
}

// Undistort maps an observed pixel to the ideal pixel the homography
// takes (the identity without a lens model).
func (c *Calibration) Undistort(p Point) Point { return c.Lens.undistort(p) }

// The lens model's strength: over the part of the image the calibration
// uses, the lens may shrink or stretch the image locally (scales) by at
// most these factors. Real lenses over a table stay well inside (nine
// public calibrations, wide ones included: TestLensPublic); a k1 of 40,
// or a k1 of -2 that folds the image, does not.
const (
	minLensScale = 0.2
	maxLensScale = 2.0
)

// maxLensRoundTripPx is how far undistorting then distorting a pixel may
// land from it for the lens model to count as inverting there.
const maxLensRoundTripPx = 0.5

// lensCoreShares and lensCoreAngles are the image's core, where the
// model must invert whatever the table's region: ellipses about the image
// centre at these shares of the way to its sides, at lensCoreAngles
// points each, and the centre. A model that does not invert there (a k1
// of -2 that folds the image halfway out) is absurd, not a real lens
// fitted to points over the image.
var lensCoreShares = [...]float64{0, 0.25, 0.5, 0.75}

const lensCoreAngles = 16

// lensRegionMargin is the margin, as a share of the table outline's
// larger side, around the table outline over which the lens model must
// invert (a die on the rail, an outline a little short).
const lensRegionMargin = 0.1

// lensRegionSteps is the grid, each way, over the table outline and its
// margin where the model is checked.
const lensRegionSteps = 24

// lensImageGrid are the image positions, as shares of the width and
// height, where the model is checked over the whole image (a warning
// only, outside the table's region).
var lensImageGrid = [...]float64{0, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875, 1}

// checkLens checks a brown_conrady model's intrinsics against the image
// (validate passed): its principal point inside the image and its focal
// lengths plausible for the image's size (as camera.focal_px's). Where
// the model inverts is checkLensRegion's (it needs the homography).
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
	return nil
}

// checkLensRegion checks a brown_conrady model over the part of the
// image the calibration uses: the reference points, and the table
// outline with a margin of lensRegionMargin (through the homography,
// c.inv set). There the model must invert (undistorted then distorted
// again within maxLensRoundTripPx, onto the table point it came from),
// and its local scales must lie within minLensScale..maxLensScale (no
// fold, no absurd strength). Over the rest of the image it notes, as
// c.lensWarning, the first pixel of lensImageGrid where the model does
// not invert or is out of those bounds: a model fitted to points nearer
// the centre may not reach a wide lens's corners, and it is accepted if
// the table is not there.
func (c *Calibration) checkLensRegion() error {
	c.lensWarning = ""
	l := c.Lens
	if !l.active() {
		return nil
	}
	strength := func(p Point, where string) error {
		lo, hi := l.scales((p.X-l.CX)/l.FX, (p.Y-l.CY)/l.FY)
		if !(lo > 0) {
			return fmt.Errorf("lens: the model folds the image over at pixel (%.0f, %.0f) %s (its local scale there is %.2f): k1, k2, k3, p1, p2 are too strong for fx, fy, or the model is wrong there", l.distort(p).X, l.distort(p).Y, where, lo)
		}
		if !(lo >= minLensScale && hi <= maxLensScale) {
			return fmt.Errorf("lens: the model shrinks or stretches the image %.2f..%.2f times at pixel (%.0f, %.0f) %s (plausible: %g..%g): k1, k2, k3, p1, p2 are too strong for fx, fy", lo, hi, l.distort(p).X, l.distort(p).Y, where, minLensScale, maxLensScale)
		}
		return nil
	}
	inverts := func(p Point, want Point, where string) error {
		q, ok := l.undistortOK(p)
		if ok && !math.IsNaN(want.X) {
			ok = math.Hypot(q.X-want.X, q.Y-want.Y) <= maxLensRoundTripPx
		}
		if !ok {
			r := l.distort(q)
			return fmt.Errorf("lens: the model does not invert at pixel (%.0f, %.0f) %s (undistorted and distorted again it lands %.3g px away, or on another point): k1, k2, k3, p1, p2 are too strong for fx, fy, or the model is wrong there", p.X, p.Y, where, math.Hypot(r.X-p.X, r.Y-p.Y))
		}
		return strength(q, where)
	}
	w, h := float64(c.Camera.Width), float64(c.Camera.Height)
	for _, s := range lensCoreShares {
		for k := 0; k < lensCoreAngles; k++ {
			a := 2 * math.Pi * float64(k) / lensCoreAngles
			p := Point{w/2 + s*w/2*math.Cos(a), h/2 + s*h/2*math.Sin(a)}
			if err := inverts(p, Point{math.NaN(), math.NaN()}, fmt.Sprintf("(%.0f%% of the way from the image centre to its sides)", 100*s)); err != nil {
				return err
			}
		}
	}
	if r := c.Reference; r != nil {
		for i, rp := range r.Points {
			if err := inverts(Point{rp.Px[0], rp.Px[1]}, Point{math.NaN(), math.NaN()}, fmt.Sprintf("(reference.points[%d])", i)); err != nil {
				return err
			}
		}
	}
	for _, u := range c.tableRegion() {
		p := l.distort(u)
		if !(p.X >= 0 && p.X <= w && p.Y >= 0 && p.Y <= h) {
			continue
		}
		if err := strength(u, "on the table's region"); err != nil {
			return err
		}
		if err := inverts(p, u, "on the table's region"); err != nil {
			return err
		}
	}
	var first error
	failed := 0
	for _, b := range lensImageGrid {
		for _, a := range lensImageGrid {
			p := Point{a * w, b * h}
			if err := inverts(p, Point{math.NaN(), math.NaN()}, "outside the table's region"); err != nil {
				failed++
				if first == nil {
					first = err
				}
			}
		}
	}
	if first != nil {
		n := len(lensImageGrid) * len(lensImageGrid)
		c.lensWarning = fmt.Sprintf("%s; the check fails at %d of %d pixels over the image; table positions and the view there are not reliable", strings.TrimPrefix(first.Error(), "lens: "), failed, n)
	}
	return nil
}

// tableRegion are ideal (undistorted) pixels over the table outline and
// a margin of lensRegionMargin around it: a lensRegionSteps grid over
// the outline's bounding box and margin, the points inside the outline
// or within the margin of it, and the outline's corners. Points the
// homography puts behind the camera are left out.
func (c *Calibration) tableRegion() []Point {
	poly := c.TablePolygon
	if len(poly) < 3 || len(poly) > maxPolygonPoints {
		return nil // refused later
	}
	lo, hi := Point{math.Inf(1), math.Inf(1)}, Point{math.Inf(-1), math.Inf(-1)}
	for _, v := range poly {
		lo.X, lo.Y = math.Min(lo.X, v[0]), math.Min(lo.Y, v[1])
		hi.X, hi.Y = math.Max(hi.X, v[0]), math.Max(hi.Y, v[1])
	}
	margin := lensRegionMargin * math.Max(hi.X-lo.X, hi.Y-lo.Y)
	if !(margin > 0) || math.IsInf(margin, 0) {
		return nil
	}
	var mm []Point
	for _, v := range poly {
		mm = append(mm, Point{v[0], v[1]})
	}
	for i := 0; i <= lensRegionSteps; i++ {
		for j := 0; j <= lensRegionSteps; j++ {
			p := Point{lo.X - margin + (hi.X-lo.X+2*margin)*float64(i)/lensRegionSteps, lo.Y - margin + (hi.Y-lo.Y+2*margin)*float64(j)/lensRegionSteps}
			if inPolygon(poly, p) || distToBoundary(poly, p) <= margin {
				mm = append(mm, p)
			}
		}
	}
	inv := c.inverse()
	// A table point seen from above the table maps back with the sign of
	// the homography's denominator at the pixels that see it: the image
	// centre's (checkHorizon).
	q, ctr := c.Homography, c.Lens.undistort(Point{float64(c.Camera.Width) / 2, float64(c.Camera.Height) / 2})
	side := q[6]*ctr.X + q[7]*ctr.Y + q[8]
	var out []Point
	for _, m := range mm {
		d := inv[6]*m.X + inv[7]*m.Y + inv[8]
		if d == 0 || math.Signbit(d) != math.Signbit(side) {
			continue
		}
		out = append(out, apply(inv, m))
	}
	return out
}

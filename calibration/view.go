package calibration

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// The camera's view of the table: how far off vertical the line of sight
// through each pixel meets the table. A flat die seen at an angle shows
// side faces as a cocked one does, so the reader's cocked call can follow
// the view (vision.ReaderOptions.ViewTiltDeg).
//
// A pinhole camera with square pixels and its principal point at the
// image centre (or at the lens model's) makes the table-to-image
// homography K[r1 r2 t]: r1 and r2, the table's axes in the camera's
// frame, are orthogonal and of one length. Those two constraints fix the
// one unknown, the focal length (Zhang's plane calibration with every
// intrinsic but f known), and with it the table's normal in the camera's
// frame, hence the angle at every pixel. With the camera looking nearly
// straight down the homography is nearly affine and says next to nothing
// about the focal length, while the angle at the image's edges depends
// on it (atan of the distance from the centre over f): the estimate is
// then refused as unsure rather than given as 0. A known focal length
// (Camera.FocalPx, or the lens model's fx and fy) makes the pose exact;
// a measured tilt (Camera.ViewTiltDeg) overrides it all.
//
// Two constraints for one unknown leave one to check: at the focal length
// taken (estimated or known) the table's axes must come out square and of
// one length, to within what the noise does (misfit, viewMaxMisfit). A
// homography that is not such a pinhole's, or a known focal length that
// is not the camera's, is refused there rather than given as a confident
// but wrong view. A fault symmetric about the plane the camera tilts in
// (pixels taller than wide with the image rows level, a principal point
// off along the tilt, radial distortion) keeps the two in agreement at a
// wrong focal length: the check cannot see it (TestViewMisfit).

// Plausible values for the view's inputs and estimate.
const (
	// MaxViewTiltDeg is the steepest view of the table accepted, in
	// degrees off vertical (a die seen at 60 degrees shows more side
	// than top; the reader's nets learnt views up to 35).
	MaxViewTiltDeg = 60
	// minFocalShare and maxFocalShare bound a focal length, as a share
	// of the image's longer side (a 170-degree fisheye to a 3-degree
	// telephoto).
	minFocalShare = 0.08
	maxFocalShare = 20
	// viewNoisePx is the reference points' pixel noise the estimate
	// must stand (viewSpread): a marker or chessboard corner is found to
	// a fraction of a pixel, a point clicked by hand to a pixel or so.
	viewNoisePx = 1.0
	// viewCentreShare is the principal point's uncertainty the estimate
	// must stand, as a share of the image's longer side (a lens centred
	// on the sensor to within a percent or two): the estimate takes it at
	// the image centre, and a wide lens looking a little off vertical
	// reads the view 4 to 8 degrees off with it 2% off (TestViewOffCentre).
	viewCentreShare = 0.01
	// viewMaxSpreadDeg is the largest spread (root mean square over
	// viewTrials, the worst of a grid of image positions) of the
	// estimated angle under that noise for which the estimate is given.
	viewMaxSpreadDeg = 2.0
	viewTrials       = 24
	// viewMaxMisfit is how far, in root-mean-square multiples of what
	// that noise and that principal point's uncertainty do to a pinhole,
	// the homography may miss a square-pixel pinhole's two constraints
	// (see misfit) at the focal length taken: a pinhole's homography
	// meets both at its focal length, to within the noise; one that is
	// not a pinhole's (a bad fit, a principal point far off, a fisheye's
	// points, a keystone drawn as one) can give a confident but wrong
	// focal length and view, as the two constraints disagree.
	viewMaxMisfit = 3.0
)

// ViewSource says where a calibration's view comes from.
type ViewSource string

// View sources.
const (
	ViewUnknown   ViewSource = ""          // not known: see ViewInfo.Reason
	ViewMeasured  ViewSource = "measured"  // camera.view_tilt_deg, one angle for every pixel
	ViewFocal     ViewSource = "focal"     // the homography with a known focal length
	ViewEstimated ViewSource = "estimated" // the homography alone
)

// ViewInfo describes a calibration's view of the table.
type ViewInfo struct {
	Source ViewSource
	// FocalPx is the focal length used (known or estimated; 0 with a
	// measured tilt or none).
	FocalPx float64
	// CentreDeg is the angle off vertical at the image centre, and
	// MinDeg and MaxDeg the least and greatest at the image's corners,
	// the middles of its sides and its centre.
	CentreDeg, MinDeg, MaxDeg float64
	// SpreadDeg is the estimate's spread under viewNoisePx of noise on
	// the reference points (ViewEstimated only).
	SpreadDeg float64
	// Misfit is how far the homography misses a pinhole's constraints at
	// the focal length used, over what the noise and the principal
	// point's uncertainty do to them (ViewFocal and ViewEstimated; a
	// view is given up to viewMaxMisfit).
	Misfit float64
	// Reason says why the view is not known.
	Reason string
	// LensWarning is the calibration's LensWarning.
	LensWarning string
}

// String is a one-line summary for logs and `dicewatch calibrate`, with
// the lens model's warning after it.
func (v ViewInfo) String() string {
	if v.LensWarning != "" {
		w := v
		w.LensWarning = ""
		return w.String() + "; lens warning: " + v.LensWarning
	}
	switch v.Source {
	case ViewUnknown:
		return "not known: " + v.Reason
	case ViewMeasured:
		return fmt.Sprintf("measured %.1f deg off vertical (camera.view_tilt_deg)", v.CentreDeg)
	case ViewFocal:
		return fmt.Sprintf("%.1f deg off vertical at the centre, %.1f..%.1f at the corners and sides (known focal length %.0f px; pinhole misfit %.1f, at most %g)", v.CentreDeg, v.MinDeg, v.MaxDeg, v.FocalPx, v.Misfit, viewMaxMisfit)
	}
	return fmt.Sprintf("%.1f deg off vertical at the centre, %.1f..%.1f at the corners and sides (estimated focal length %.0f px, spread %.1f deg under %g px of noise; pinhole misfit %.1f, at most %g)",
		v.CentreDeg, v.MinDeg, v.MaxDeg, v.FocalPx, v.SpreadDeg, viewNoisePx, v.Misfit, viewMaxMisfit)
}

// pose is a pinhole camera's view of the table plane: principal point,
// focal lengths in px and the table's unit normal in the camera's frame.
type pose struct {
	cx, cy, fx, fy float64
	n              [3]float64
}

// tiltDeg is the angle between the line of sight through undistorted
// pixel p and the table's normal, in degrees.
func (ps *pose) tiltDeg(p Point) float64 {
	d := [3]float64{(p.X - ps.cx) / ps.fx, (p.Y - ps.cy) / ps.fy, 1}
	c := math.Abs(d[0]*ps.n[0]+d[1]*ps.n[1]+d[2]*ps.n[2]) / math.Sqrt(d[0]*d[0]+d[1]*d[1]+d[2]*d[2])
	return math.Acos(math.Min(1, c)) * 180 / math.Pi
}

// view is a calibration's prepared view (see prepareView).
type view struct {
	done  bool
	info  ViewInfo
	fixed float64 // ViewMeasured's angle
	pose  pose
	// ext places the table in the camera's frame, for the pose's views
	// (ViewFocal, ViewEstimated): see extrinsics.
	ext extrinsics
}

// extrinsics are a pose's table in the camera's frame, in mm: the table
// point (X, Y) is at X*r1 + Y*r2 + t, and up is the table's normal on
// the camera's side.
type extrinsics struct {
	ok        bool
	r1, r2, t [3]float64
	up        [3]float64
}

// extrinsicsOf recovers the table's place in the camera's frame from the
// table-to-image homography hi and the pose ps (intrinsics and normal):
// K^-1 hi is [r1 r2 t] up to one scale, which is the table's axes'
// length (their geometric mean, as a homography that is not quite a
// pinhole's makes them differ a little), and up to sign, which puts the
// table point seen (table mm, a point the picture sees) in front of the
// camera.
func extrinsicsOf(hi [9]float64, ps pose, seen Point) extrinsics {
	var m [3][3]float64 // columns of K^-1 hi
	for j := 0; j < 3; j++ {
		g := [3]float64{hi[j], hi[3+j], hi[6+j]}
		m[j] = [3]float64{(g[0] - ps.cx*g[2]) / ps.fx, (g[1] - ps.cy*g[2]) / ps.fy, g[2]}
	}
	norm := func(a [3]float64) float64 { return math.Sqrt(a[0]*a[0] + a[1]*a[1] + a[2]*a[2]) }
	l := math.Sqrt(norm(m[0]) * norm(m[1]))
	if !(l > 0) || math.IsInf(l, 0) {
		return extrinsics{}
	}
	if seen.X*m[0][2]+seen.Y*m[1][2]+m[2][2] < 0 {
		l = -l // the point seen behind the camera: the other sign
	}
	var e extrinsics
	for k := 0; k < 3; k++ {
		e.r1[k], e.r2[k], e.t[k] = m[0][k]/l, m[1][k]/l, m[2][k]/l
	}
	// The camera (the origin) is above the table: on the side up points to.
	e.up = ps.n
	if e.up[0]*e.t[0]+e.up[1]*e.t[1]+e.up[2]*e.t[2] > 0 {
		e.up = [3]float64{-e.up[0], -e.up[1], -e.up[2]}
	}
	e.ok = !math.IsNaN(e.t[0] + e.t[1] + e.t[2] + e.up[0] + e.up[1] + e.up[2])
	return e
}

// project is the undistorted pixel of camera-frame point q (ok false
// when q is not in front of the camera).
func (ps *pose) project(q [3]float64) (Point, bool) {
	if !(q[2] > 0) {
		return Point{}, false
	}
	return Point{ps.cx + ps.fx*q[0]/q[2], ps.cy + ps.fy*q[1]/q[2]}, true
}

// VerticalPx is the picture of a vertical segment mm millimetres tall
// standing on the table where image pixel p sees it: the image vector, in
// pixels, from its foot (p) to its top, through the calibration's pose
// and its lens model. It is NaN where the view is not known: no pose
// (ViewUnknown), a measured tilt (camera.view_tilt_deg gives an angle
// off vertical but no direction in the picture, ViewMeasured), a pixel
// the lens model does not reach, or a top behind the camera.
func (c *Calibration) VerticalPx(p Point, mm float64) Point {
	d, _ := c.vertical(p, mm)
	return d
}

// vertical is VerticalPx, and the undistorted pixel of p (NaN with it).
func (c *Calibration) vertical(p Point, mm float64) (Point, Point) {
	nan := Point{math.NaN(), math.NaN()}
	v := c.viewOf()
	if (v.info.Source != ViewFocal && v.info.Source != ViewEstimated) || !v.ext.ok {
		return nan, nan
	}
	q, ok := c.Lens.undistortOK(p)
	if !ok {
		return nan, nan
	}
	t := apply(c.Homography, q)
	e := &v.ext
	var top [3]float64
	for k := 0; k < 3; k++ {
		top[k] = t.X*e.r1[k] + t.Y*e.r2[k] + e.t[k] + mm*e.up[k]
	}
	u, ok := v.pose.project(top)
	if !ok {
		return nan, nan
	}
	u = c.Lens.distort(u)
	return Point{u.X - p.X, u.Y - p.Y}, q
}

// ViewUp is the picture of a die's vertical edge at image pixel p, the
// function vision.ReaderOptions.ViewUp takes: the direction, in the
// picture, of a die's edge standing on the table there (VerticalPx of
// the die's edge, from its foot to its top), with length the sine of the
// view's angle off vertical there (ViewTiltDeg): 0 straight down, and
// in die edges the picture's shortening of that edge against one lying
// across the line of sight. NaN where VerticalPx is (a measured tilt
// gives none: it has no direction).
func (c *Calibration) ViewUp(p Point) Point {
	h := c.Die.EdgeMM
	if !(h > 0) {
		h = 1
	}
	d, q := c.vertical(p, h)
	l := math.Hypot(d.X, d.Y)
	if math.IsNaN(l) {
		return Point{math.NaN(), math.NaN()}
	}
	t := c.viewOf().pose.tiltDeg(q) // ViewTiltDeg(p), p undistorted once
	if l == 0 {
		return Point{}
	}
	s := math.Sin(t * math.Pi / 180)
	return Point{d.X / l * s, d.Y / l * s}
}

// ViewTiltDeg is the angle, in degrees, between the camera's line of
// sight through image pixel p and the vertical, NaN where it is not known
// (ViewInfo says why). It is the function vision.ReaderOptions.ViewTiltDeg
// takes.
func (c *Calibration) ViewTiltDeg(p Point) float64 {
	v := c.viewOf()
	switch v.info.Source {
	case ViewMeasured:
		return v.fixed
	case ViewFocal, ViewEstimated:
		q, ok := c.Lens.undistortOK(p)
		if !ok {
			return math.NaN() // the lens model does not reach p
		}
		return v.pose.tiltDeg(q)
	}
	return math.NaN()
}

// View describes the calibration's view of the table (and carries the
// lens model's warning, if any, so that where the view is logged it is).
func (c *Calibration) View() ViewInfo {
	in := c.viewOf().info
	in.LensWarning = c.lensWarning
	return in
}

// LensWarning says where, outside the table's region, the lens model does
// not invert or is out of bounds ("" when it is sound over the whole
// image, or there is none): table positions and the view there are not
// reliable. Validate sets it.
func (c *Calibration) LensWarning() string { return c.lensWarning }

func (c *Calibration) viewOf() *view {
	if !c.view.done {
		c.prepareView()
	}
	return &c.view
}

// checkView validates the installer's view inputs.
func (c *Calibration) checkView() error {
	long := float64(max(c.Camera.Width, c.Camera.Height))
	if f := c.Camera.FocalPx; f != 0 && !(f >= minFocalShare*long && f <= maxFocalShare*long) {
		return fmt.Errorf("camera.focal_px: %g is not a plausible focal length for a %dx%d image (%.0f..%.0f px; 0 or absent: estimated from the homography)",
			f, c.Camera.Width, c.Camera.Height, minFocalShare*long, maxFocalShare*long)
	}
	if t := c.Camera.ViewTiltDeg; t != nil {
		if !(*t >= 0 && *t <= MaxViewTiltDeg) {
			return fmt.Errorf("camera.view_tilt_deg: %g is not a plausible view (0..%d degrees off vertical)", *t, MaxViewTiltDeg)
		}
		if c.Camera.FocalPx != 0 {
			return fmt.Errorf("camera.view_tilt_deg and camera.focal_px: give one (a measured tilt overrides the pose the focal length gives)")
		}
	}
	if c.Lens.active() && c.Camera.FocalPx != 0 {
		return fmt.Errorf("camera.focal_px: the lens model's fx and fy are the focal length; leave camera.focal_px out")
	}
	return nil
}

// prepareView works the view out (Validate calls it; checkView passed).
func (c *Calibration) prepareView() {
	c.view = view{done: true}
	v := &c.view
	if t := c.Camera.ViewTiltDeg; t != nil {
		v.info = ViewInfo{Source: ViewMeasured, CentreDeg: *t, MinDeg: *t, MaxDeg: *t}
		v.fixed = *t
		return
	}
	hi, ok := invert3(c.Homography)
	if !ok {
		v.info.Reason = "the homography is not invertible"
		return
	}
	k := c.intrinsics()
	if k.fx > 0 {
		ps, ok := poseFrom(hi, k)
		if !ok {
			v.info.Reason = "the homography gives no pose with the known focal length"
			return
		}
		tr := c.viewTrials(ps, k, false)
		if !tr.fits() {
			v.info.Reason = fmt.Sprintf("the homography is not a pinhole's view with the known focal length %.0f px (%s): check %s and the reference points",
				math.Sqrt(k.fx*k.fy), tr.describe(), c.focalName())
			return
		}
		v.info = c.describe(ps, ViewFocal)
		v.info.Misfit = tr.ratio()
		v.pose = ps
		v.ext = extrinsicsOf(hi, ps, c.centreOnTable())
		c.checkPlausible(v)
		return
	}
	ps, ok := estimatePose(hi, k, c.long())
	if !ok {
		v.info.Reason = "the homography is not a centred square-pixel pinhole's view, or is nearly affine (camera near straight down): " + c.whyNoEstimate(hi, k) + "; give camera.focal_px or camera.view_tilt_deg"
		return
	}
	tr := c.viewTrials(ps, k, true)
	if !tr.ok || tr.spread > viewMaxSpreadDeg {
		v.info.Reason = fmt.Sprintf("the homography does not fix the focal length (estimate %.0f px unsure by %.1f deg under %g px of noise and the principal point %g%% off the centre; a camera near straight down, or a wide lens a little off it): give camera.focal_px or camera.view_tilt_deg",
			ps.fx, tr.spread, viewNoisePx, 100*viewCentreShare)
		return
	}
	if !tr.fits() {
		v.info.Reason = fmt.Sprintf("the homography is not a centred square-pixel pinhole's view (at the estimated focal length %.0f px %s; a bad fit, a lens with distortion and no lens model, or the principal point far off the centre): give camera.focal_px or camera.view_tilt_deg",
			ps.fx, tr.describe())
		return
	}
	v.info = c.describe(ps, ViewEstimated)
	v.info.SpreadDeg = tr.spread
	v.info.Misfit = tr.ratio()
	v.pose = ps
	v.ext = extrinsicsOf(hi, ps, c.centreOnTable())
	c.checkPlausible(v)
}

// focalName names where the known focal length comes from.
func (c *Calibration) focalName() string {
	if c.Lens.active() {
		return "the lens model's fx, fy, cx and cy"
	}
	return "camera.focal_px (for this image size)"
}

// checkPlausible turns a pose that sees the image centre steeper than
// MaxViewTiltDeg into an unknown view. (A wide lens's far corners may be
// steeper: the view there is given as it is.)
func (c *Calibration) checkPlausible(v *view) {
	if v.info.CentreDeg > MaxViewTiltDeg {
		v.info = ViewInfo{Reason: fmt.Sprintf("the pose sees the image centre %.0f deg off vertical (plausible: up to %d)", v.info.CentreDeg, MaxViewTiltDeg)}
	}
}

// centreOnTable is the table point (mm) the image centre sees.
func (c *Calibration) centreOnTable() Point {
	return apply(c.Homography, c.Lens.undistort(Point{float64(c.Camera.Width) / 2, float64(c.Camera.Height) / 2}))
}

func (c *Calibration) long() float64 { return float64(max(c.Camera.Width, c.Camera.Height)) }

// intrinsics are the principal point and, when known, the focal lengths.
func (c *Calibration) intrinsics() pose {
	if c.Lens.active() {
		return pose{cx: c.Lens.CX, cy: c.Lens.CY, fx: c.Lens.FX, fy: c.Lens.FY}
	}
	k := pose{cx: float64(c.Camera.Width) / 2, cy: float64(c.Camera.Height) / 2}
	if c.Camera.FocalPx > 0 {
		k.fx, k.fy = c.Camera.FocalPx, c.Camera.FocalPx
	}
	return k
}

// viewGrid are the image positions, as shares of the width and height,
// where the view is described and its spread taken.
var viewGrid = [...]float64{0, 0.5, 1}

// describe sums the pose up at the image's centre, corners and sides, as
// ViewTiltDeg gives the angle there (through the lens model, if any).
func (c *Calibration) describe(ps pose, src ViewSource) ViewInfo {
	w, h := float64(c.Camera.Width), float64(c.Camera.Height)
	at := func(p Point) float64 {
		q, ok := c.Lens.undistortOK(p)
		if !ok {
			return math.NaN() // the lens model does not reach p
		}
		return ps.tiltDeg(q)
	}
	in := ViewInfo{Source: src, FocalPx: math.Sqrt(ps.fx * ps.fy), MinDeg: math.Inf(1), CentreDeg: at(Point{w / 2, h / 2})}
	for _, a := range viewGrid {
		for _, b := range viewGrid {
			t := at(Point{a * w, b * h})
			if math.IsNaN(t) {
				continue
			}
			in.MinDeg, in.MaxDeg = math.Min(in.MinDeg, t), math.Max(in.MaxDeg, t)
		}
	}
	return in
}

// poseFrom is the table's normal in the camera's frame given the
// table-to-image homography hi and the intrinsics k (focal lengths known).
func poseFrom(hi [9]float64, k pose) (pose, bool) {
	// K^-1 hi's first two columns are the table's axes, up to scale.
	var r [2][3]float64
	for j := 0; j < 2; j++ {
		g := [3]float64{hi[j], hi[3+j], hi[6+j]}
		r[j] = [3]float64{(g[0] - k.cx*g[2]) / k.fx, (g[1] - k.cy*g[2]) / k.fy, g[2]}
	}
	n := [3]float64{
		r[0][1]*r[1][2] - r[0][2]*r[1][1],
		r[0][2]*r[1][0] - r[0][0]*r[1][2],
		r[0][0]*r[1][1] - r[0][1]*r[1][0],
	}
	l := math.Sqrt(n[0]*n[0] + n[1]*n[1] + n[2]*n[2])
	if !(l > 0) || math.IsInf(l, 0) {
		return pose{}, false
	}
	k.n = [3]float64{n[0] / l, n[1] / l, n[2] / l}
	return k, true
}

// whyNoEstimate says why estimatePose gives no pose.
func (c *Calibration) whyNoEstimate(hi [9]float64, k pose) string {
	w, ok := focalConstraint(hi, k, c.long())
	switch {
	case !ok:
		return "it is affine, and says nothing of the focal length"
	case !(w > 0):
		return "no real focal length fits it"
	}
	return fmt.Sprintf("the focal length that fits it, %.3g px, is not plausible for the image (%.0f..%.0f px)",
		c.long()/math.Sqrt(w), minFocalShare*c.long(), maxFocalShare*c.long())
}

// estimatePose estimates the focal length (square pixels) from the two
// constraints on the table's axes, then the pose. long is the image's
// longer side (the estimate's plausible range scales with it).
func estimatePose(hi [9]float64, k pose, long float64) (pose, bool) {
	w, ok := focalConstraint(hi, k, long)
	if !ok || !(w > 0) {
		return pose{}, false
	}
	f := 1 / math.Sqrt(w)
	if !(f >= minFocalShare && f <= maxFocalShare) {
		return pose{}, false
	}
	k.fx, k.fy = f*long, f*long
	return poseFrom(hi, k)
}

// focalConstraint is the least-squares w = (long/f)^2 of the two
// constraints on the table's axes (see estimatePose); ok is false when
// the homography is affine and they do not involve it.
func focalConstraint(hi [9]float64, k pose, long float64) (float64, bool) {
	// Columns of the table-to-image map with the principal point at the
	// origin and pixels in units of long: g = (a, b, c).
	var a, b, cc [2]float64
	for j := 0; j < 2; j++ {
		g2 := hi[6+j]
		a[j] = (hi[j] - k.cx*g2) / long
		b[j] = (hi[3+j] - k.cy*g2) / long
		cc[j] = g2
	}
	// r1.r2 = 0 and |r1| = |r2| with r = (a/f, b/f, c), in w = 1/f^2:
	// w*A + B = 0 for each.
	A := [2]float64{a[0]*a[1] + b[0]*b[1], a[0]*a[0] + b[0]*b[0] - a[1]*a[1] - b[1]*b[1]}
	B := [2]float64{cc[0] * cc[1], cc[0]*cc[0] - cc[1]*cc[1]}
	den := A[0]*A[0] + A[1]*A[1]
	if !(den > 0) {
		return 0, false
	}
	return -(A[0]*B[0] + A[1]*B[1]) / den, true
}

// misfit is how far the homography hi misses a pinhole's two
// constraints with the intrinsics k (focal lengths set): the table's
// axes in the camera's frame, K^-1 hi's first two columns, are square
// (the first term, the cosine of the angle between them) and of one
// length (the second, their squared lengths' difference over their
// sum). Both are 0 for a pinhole's homography at its focal length; they
// do not depend on the homography's scale.
func misfit(hi [9]float64, k pose) [2]float64 {
	var r [2][3]float64
	for j := 0; j < 2; j++ {
		g := [3]float64{hi[j], hi[3+j], hi[6+j]}
		r[j] = [3]float64{(g[0] - k.cx*g[2]) / k.fx, (g[1] - k.cy*g[2]) / k.fy, g[2]}
	}
	dot := func(a, b [3]float64) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
	l0, l1 := dot(r[0], r[0]), dot(r[1], r[1])
	return [2]float64{dot(r[0], r[1]) / math.Sqrt(l0*l1), (l0 - l1) / (l0 + l1)}
}

// trials sums up viewTrials.
type trials struct {
	// spread is the estimated angle's root-mean-square change, the worst
	// over viewGrid (estimating trials only); ok is false when a quarter
	// of the trials give no estimate.
	spread float64
	ok     bool
	// m0 is the misfit of the homography itself and sigma the
	// root-mean-square change of the misfit over the trials: what the
	// noise and the principal point's uncertainty do to it.
	m0    [2]float64
	sigma float64
}

// ratio is the homography's misfit over what the trials' noise does to
// it.
func (tr trials) ratio() float64 {
	m := math.Hypot(tr.m0[0], tr.m0[1])
	if m == 0 {
		return 0
	}
	return m / tr.sigma
}

// fits reports whether the homography's misfit is within viewMaxMisfit
// times what the trials' noise does to it (false when the trials failed).
func (tr trials) fits() bool {
	return tr.ok && tr.ratio() <= viewMaxMisfit
}

// describe says how far off a pinhole's the homography is, for a reason.
func (tr trials) describe() string {
	m := tr.m0
	square := 90 - math.Acos(math.Max(-1, math.Min(1, m[0])))*180/math.Pi
	ratio := math.Sqrt((1 + m[1]) / (1 - m[1]))
	return fmt.Sprintf("the table's axes come out %.2f deg off square and %.1f%% apart in length, %.1f times what %g px of noise and the principal point %g%% off the centre do",
		square, 100*math.Abs(ratio-1), tr.ratio(), viewNoisePx, 100*viewCentreShare)
}

// viewTrials refits the homography viewTrials times with the reference
// points (or, with none, a grid of image points) moved by viewNoisePx of
// Gaussian noise, and the principal point moved by viewCentreShare. With
// estimate it estimates the focal length again in each trial, and
// measures the change of the estimated angle from the pose ps (spread);
// without, it takes k's focal lengths. Either way it measures the misfit
// of each trial's homography at its focal length (sigma).
func (c *Calibration) viewTrials(ps pose, k pose, estimate bool) trials {
	w, h := float64(c.Camera.Width), float64(c.Camera.Height)
	var px []Point
	if c.Reference != nil && len(c.Reference.Points) >= 4 {
		step := max(1, len(c.Reference.Points)/64)
		for i := 0; i < len(c.Reference.Points); i += step {
			p := c.Reference.Points[i].Px
			px = append(px, c.Lens.undistort(Point{p[0], p[1]}))
		}
	} else {
		for _, a := range viewGrid {
			for _, b := range viewGrid {
				px = append(px, Point{a * w, b * h})
			}
		}
	}
	pairs := make([]Pair, len(px))
	mm := make([]Point, len(px))
	for i, p := range px {
		mm[i] = apply(c.Homography, p)
	}
	var tr trials
	if hi, ok := invert3(c.Homography); ok {
		tr.m0 = misfit(hi, ps)
	}
	var sum [len(viewGrid) * len(viewGrid)]float64
	var msum float64
	rng := rand.New(rand.NewPCG(1, 2))
	failed := 0
	for t := 0; t < viewTrials; t++ {
		for i, p := range px {
			pairs[i] = Pair{Px: Point{p.X + viewNoisePx*rng.NormFloat64(), p.Y + viewNoisePx*rng.NormFloat64()}, MM: mm[i]}
		}
		f, err := FitHomography(pairs)
		if err != nil {
			failed++
			continue
		}
		hi, ok := invert3(f.H)
		if !ok {
			failed++
			continue
		}
		kt := k
		kt.cx += viewCentreShare * c.long() * rng.NormFloat64()
		kt.cy += viewCentreShare * c.long() * rng.NormFloat64()
		q := kt
		if estimate {
			if q, ok = estimatePose(hi, kt, c.long()); !ok {
				failed++
				continue
			}
			g := 0
			for _, a := range viewGrid {
				for _, b := range viewGrid {
					d := q.tiltDeg(Point{a * w, b * h}) - ps.tiltDeg(Point{a * w, b * h})
					sum[g] += d * d
					g++
				}
			}
		}
		m := misfit(hi, q)
		msum += (m[0]-tr.m0[0])*(m[0]-tr.m0[0]) + (m[1]-tr.m0[1])*(m[1]-tr.m0[1])
	}
	if failed*4 >= viewTrials {
		tr.spread, tr.sigma = math.Inf(1), math.Inf(1)
		return tr
	}
	tr.ok = true
	n := float64(viewTrials - failed)
	tr.sigma = math.Sqrt(msum / n)
	for _, s := range sum {
		tr.spread = math.Max(tr.spread, math.Sqrt(s/n))
	}
	return tr
}

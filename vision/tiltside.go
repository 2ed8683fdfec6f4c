package vision

import "math"

// Side faces under a tilted camera.
//
// topFace trims an oblong footprint to its top face at the end away from
// the optical centre: seen from straight above, a die shows the sides
// that face the centre. A camera tilted off vertical shows instead the
// sides that face it, at every place alike: the near sides, below the
// top face in the picture. The footprint's end towards the optical centre
// is then the side face for every die on the centre's far side (in the
// lower half of a picture whose top is the table's far end), and the face
// read there takes in the side's pips (a 4 read 6 with the side's row) or
// one pip of a 2 (a 2 read 1).
//
// Where the reader knows the view at each place (ViewTiltDeg, the angle
// between the line of sight and the vertical, from a calibration's
// pose), the sides are taken to face the way that angle falls: towards
// the nadir, the point on the table under the camera, where it is 0.
// That is a real camera's picture: each die shows the sides that face
// the nadir, on either side of it. The angle is read at the die and half
// an edge either side; a view that changes by less than minViewSlope
// degrees over one die edge (one tilt for the whole picture, as an
// installer's camera.view_tilt_deg gives, or none), or is not known
// there (NaN, out of 0..90), gives no direction.
//
// Without that, a calibration that gives the die edge at each place
// (ExpectedEdgePx) says where the camera is: the edge grows towards it.
// Where the edge changes by minSideSlope or more of itself over one die
// edge, the top face is taken at the footprint's end away from the way
// the edge grows. That is right for one camera rotation at every place
// (the generated stills) and for a real camera beyond its nadir, but
// not between the nadir and the picture's near edge, where the edge
// still grows and the sides face back up the picture. A straight-down
// camera's edge is the same everywhere, and a read given one die size
// (DiePx) has no such map: both keep the optical centre.
//
// Session 19, calibrated stills with the edge at each place (clean wrong
// of clean values given): 0..1999 8 of 4,241 -> 3 of 4,301; held-out
// 2000..3999 13 of 4,101 -> 12 of 4,159 and 30000..30599 3 of 1,296 ->
// 3 of 1,319 (wrong values over every group 39 -> 31, 46 -> 46, 15 ->
// 15). The generated stills draw every die through one camera rotation
// and give at most one tilt for the picture, so the view's rule never
// acts on them. The at-rest reader does not use topFace.

// minSideSlope is the change of the expected edge over one die edge,
// relative to it, from which the camera counts as tilted (generated
// stills: about 0.006 at 8 degrees off vertical, 0.03 at 35).
const minSideSlope = 0.003

// minViewSlope is the change of ReaderOptions.ViewTiltDeg over one die
// edge, in degrees, from which the view counts as varying (a pinhole
// camera 0.6 to 2 m above the table: about 0.5 to 1.2; one tilt for the
// whole picture: 0).
const minViewSlope = 0.2

// tiltSideOff (tests) keeps the optical centre for every footprint.
var tiltSideOff bool

// sidesFrom returns the point, in region pixels, that topFace takes as
// the one the die's visible sides face: a far point towards the nadir
// where the view varies (ViewTiltDeg), else a far point on the camera's
// side of c where the edge map grows, else the optical centre (ocx,
// ocy). (offX, offY) is the region's place in the frame, for the maps.
func (r *Reader) sidesFrom(c candidate, offX, offY, ocx, ocy float64) (float64, float64) {
	if tiltSideOff {
		return ocx, ocy
	}
	x, y := c.cx+offX, c.cy+offY
	e := c.edge
	if r.opts.ExpectedEdgePx != nil {
		e = r.opts.ExpectedEdgePx(x, y)
	}
	if !(e > 0) {
		return ocx, ocy
	}
	// Far enough that the footprint's axis decides, not its place.
	const far = 1e6
	if gx, gy, ok := slopeAt(r.opts.ViewTiltDeg, x, y, e, viewOK); ok && math.Hypot(gx, gy) >= minViewSlope {
		g := math.Hypot(gx, gy)
		return c.cx - gx/g*far, c.cy - gy/g*far
	}
	at := r.opts.ExpectedEdgePx
	if at == nil {
		return ocx, ocy
	}
	gx, gy, _ := slopeAt(at, x, y, e, func(float64) bool { return true })
	gx, gy = gx/e, gy/e
	g := math.Hypot(gx, gy)
	if g < minSideSlope || math.IsNaN(g) || math.IsInf(g, 0) {
		return ocx, ocy
	}
	return c.cx + gx/g*far, c.cy + gy/g*far
}

// viewOK reports whether a view angle is known: 0..90 degrees.
func viewOK(t float64) bool { return t >= 0 && t <= 90 }

// slopeAt gives f's change over one die edge e about (x, y), in x and
// in y, from samples half an edge either side; false if f is nil or a
// sample fails ok.
func slopeAt(f func(x, y float64) float64, x, y, e float64, ok func(float64) bool) (float64, float64, bool) {
	if f == nil {
		return 0, 0, false
	}
	l, rt, u, d := f(x-e/2, y), f(x+e/2, y), f(x, y-e/2), f(x, y+e/2)
	if !ok(l) || !ok(rt) || !ok(u) || !ok(d) {
		return 0, 0, false
	}
	return rt - l, d - u, true
}

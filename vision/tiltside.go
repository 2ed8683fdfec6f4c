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
// A calibration that gives the die edge at each place (ExpectedEdgePx)
// says where the camera is: the edge grows towards it. Where the edge
// changes by minSideSlope or more of itself over one die edge, the top
// face is taken at the footprint's end away from the way the edge grows.
// A straight-down camera's edge is the same everywhere, and a read given
// one die size (DiePx) has no such map: both keep the optical centre.
//
// Session 19, calibrated stills with the edge at each place (clean wrong
// of clean values given): 0..1999 8 of 4,241 -> 3 of 4,301; held-out
// 2000..3999 13 of 4,101 -> 12 of 4,159 and 30000..30599 3 of 1,296 ->
// 3 of 1,319 (wrong values over every group 39 -> 31, 46 -> 46, 15 ->
// 15). The generated stills draw every die through one camera rotation,
// so their sides face the same way everywhere; a real camera's face its
// nadir, which this takes as far off along the edge's growth. The
// at-rest reader does not use topFace.

// minSideSlope is the change of the expected edge over one die edge,
// relative to it, from which the camera counts as tilted (generated
// stills: about 0.006 at 8 degrees off vertical, 0.03 at 35).
const minSideSlope = 0.003

// tiltSideOff (tests) keeps the optical centre for every footprint.
var tiltSideOff bool

// sidesFrom returns the point, in region pixels, that topFace takes as
// the one the die's visible sides face: the optical centre (ocx, ocy), or
// under a tilted camera a far point on the camera's side of c ((offX,
// offY) is the region's place in the frame, for ExpectedEdgePx). The far
// point is right for the generated stills' one camera rotation; under a
// real camera it is wrong for dice between the point under it and the
// picture's near edge (see docs/reading-dice-method.md).
func (r *Reader) sidesFrom(c candidate, offX, offY, ocx, ocy float64) (float64, float64) {
	at := r.opts.ExpectedEdgePx
	if at == nil || tiltSideOff {
		return ocx, ocy
	}
	x, y := c.cx+offX, c.cy+offY
	e := at(x, y)
	if e <= 0 {
		return ocx, ocy
	}
	gx := (at(x+e/2, y) - at(x-e/2, y)) / e
	gy := (at(x, y+e/2) - at(x, y-e/2)) / e
	g := math.Hypot(gx, gy)
	if g < minSideSlope || math.IsNaN(g) || math.IsInf(g, 0) {
		return ocx, ocy
	}
	// Far enough that the footprint's axis decides, not its place.
	const far = 1e6
	return c.cx + gx/g*far, c.cy + gy/g*far
}

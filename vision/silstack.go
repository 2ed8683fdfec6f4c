package vision

// A die on a die by its outline.
//
// The stacked evidence of a read die is its top face's size (sizeEvidence,
// pipSizes), and the generators draw stacked dice 1.08 to 1.2 times
// larger, so a die drawn under the rules' 1.12 cut, or measured just
// under it, is left a valid roll whatever else shows. The face reader
// also measures the die's outline when the outline is a die's alone
// (faceValue.silEdge: one region, square enough, not a neighbour's):
// over the expected edge that is about 1.05 for a flat die on the table
// (generated stills 0..1999, calibrated, the edge at each place: middle
// half 1.03..1.11, 99% under 1.37 over the 2386 clean read dice with an
// outline), more under a tilted camera (its side faces) or with its
// shadow, while a die on another is outlined with the die under it peeking out round it
// and the two dice's sides (stacked dice read there: median 1.26 among
// those the size missed, 1.28 among those it caught).
//
// outlineStacked gives a read die whose outline is outlineStackedCut
// expected edges (across the line of sight: acrossAt) or more that outline's ratio as its size evidence, when
// it is larger than the face's. Only dice given a value (an unread die is
// a no roll either way) and only with a known die size. The cut was
// chosen on the tuning stills (TestStackCauseDiag's sil column, first on
// 0..~1340): over 0..1999 no clean read die reaches 1.45 (1.40: 5 of
// 4301), and 5 stacked read dice the size left under the cut do (1 of
// them drawn past it). It does not move the recall past the cut much,
// and at a real camera's height (DICEWATCH_STILL_CAMERA_H=600-1500) it
// caught nothing on stills 0..299: see the history, session 22 (stack23).
func (r *Reader) outlineStacked(dets []Detection) {
	if outlineStackedOff || !r.knownSize() {
		return
	}
	for i := range dets {
		d := &dets[i]
		if d.Value == 0 || d.silEdge <= 0 {
			continue
		}
		e := r.acrossAt(d.CX, d.CY)
		if e <= 0 {
			continue
		}
		if s := d.silEdge / e; s >= outlineStackedCut && s > d.SizeRatio {
			d.SizeRatio = s
		}
	}
}

// acrossAt is the die's width across the line of sight at (x, y)
// (ReaderOptions.AcrossEdgePx), or the expected edge where it is not
// given. A flat die's outline off vertical takes in its side faces: over
// the mean edge (calibration.DiePx) clean dice on the pinhole stills
// reached the cut (0..299, calibrated: 9 of 589 clean read dice, at
// 16 to 32 degrees off vertical, each a right value left a no roll),
// over the edge across none did, and the 3 stacked dice the outline
// caught there it still catches (review23, final23). The tuning stills'
// edge (stillEdgeAt) is already the width across.
func (r *Reader) acrossAt(x, y float64) float64 {
	if r.opts.AcrossEdgePx != nil {
		if a := r.opts.AcrossEdgePx(x, y); a > 0 {
			return a
		}
	}
	return r.expectedAt(x, y)
}

// outlineStackedCut: see outlineStacked.
const outlineStackedCut = 1.45

// outlineStackedOff turns outlineStacked off (tests' before-and-after
// figures).
var outlineStackedOff bool

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
// half 1.03..1.11, 99% under 1.37 over 1688 clean read dice), more
// under a tilted camera (its side faces) or with its shadow, while a
// die on another is outlined with the die under it peeking out round it
// and the two dice's sides (stacked dice read there: median 1.22 among
// those the size missed, 1.28 among those it caught).
//
// outlineStacked gives a read die whose outline is outlineStackedCut
// expected edges or more that outline's ratio as its size evidence, when
// it is larger than the face's. Only dice given a value (an unread die is
// a no roll either way) and only with a known die size. Chosen on the
// tuning stills 0..~1340 from TestStackCauseDiag's sil column: at 1.45
// no clean read die of 1688 with an outline reaches it (1.40: 4), and 4
// stacked read dice the size left under the cut do (1 of them drawn
// past it).
func (r *Reader) outlineStacked(dets []Detection) {
	if outlineStackedOff || !r.knownSize() {
		return
	}
	for i := range dets {
		d := &dets[i]
		if d.Value == 0 || d.silEdge <= 0 {
			continue
		}
		e := r.expectedAt(d.CX, d.CY)
		if e <= 0 {
			continue
		}
		if s := d.silEdge / e; s >= outlineStackedCut && s > d.SizeRatio {
			d.SizeRatio = s
		}
	}
}

// outlineStackedCut: see outlineStacked.
const outlineStackedCut = 1.45

// outlineStackedOff turns outlineStacked off (tests' before-and-after
// figures).
var outlineStackedOff bool

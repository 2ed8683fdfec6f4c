package vision

// Stacking evidence.
//
// A die resting on another is nearer the camera, so its top face looks
// larger than a die's on the table: Detection.SizeRatio is the measured
// top-face edge over the expected edge there, and rules compares it with
// its stacked cut (rules.DefaultStackedSizeRatio, 1.12).

// sizeEvidence sets each detection's SizeRatio from its measured top-face
// edge (EdgePx, the pip reader's rectangle fitted to the face at full
// resolution) when the expected edge is known. Segmentation's footprint,
// at about 18 pixels per die and taking in the die's blurred outline and
// the darkest part of its shadow, measures a flat die some 25% larger
// than it is (generated stills, calibrated: median 1.24), which put every
// die past the stacked cut. Without an expected size the ratio stays
// relative to the frame's typical footprint (both sides carry the same
// bias there).
//
// The face's outline is a poor ruler: on the generated stills (seeds
// 0..599, calibrated) its ratio put 16% of the clean flat dice past the
// cut. The pips are a better one: where a value of two pips or more was
// read and the dice's pip spread is given (ReaderOptions.PipSpread), the
// ratio is the pip layout's reach over the spread's share of the
// expected edge. Over each stacked die's true size ratio (with the true
// edge at its place), the middle half of the pips' ratios lie in
// 0.98..1.00 and the outline's in 0.98..1.13; on clean dice the pips'
// 90% range is 0.99..1.02 for 4, 5 and 6 (the affine fit's longest
// reach, which a face seen aslant under a tilted camera keeps). With it
// 7% of the clean dice there are past the cut (those the pips do not
// size: 1s and unread dice).
func (r *Reader) sizeEvidence(dets []Detection) {
	if r.opts.ExpectedEdgePx == nil && r.opts.DiePx <= 0 {
		return
	}
	for i := range dets {
		d := &dets[i]
		e := r.expectedAt(d.CX, d.CY)
		switch {
		case e <= 0:
		case r.opts.PipSpread > 0 && d.latReach > 0:
			d.SizeRatio = d.latReach / (r.opts.PipSpread * e)
		case d.EdgePx > 0:
			d.SizeRatio = d.EdgePx / e
		}
	}
}

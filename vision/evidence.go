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
func (r *Reader) sizeEvidence(dets []Detection) {
	if r.opts.ExpectedEdgePx == nil && r.opts.DiePx <= 0 {
		return
	}
	for i := range dets {
		d := &dets[i]
		if e := r.expectedAt(d.CX, d.CY); e > 0 && d.EdgePx > 0 {
			d.SizeRatio = d.EdgePx / e
		}
	}
}

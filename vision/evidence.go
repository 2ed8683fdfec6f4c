package vision

import "math"

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
//
// The cocked net (cockLook) and the doubt cap take this ratio as it was
// when they were fitted; the size reported is then the pips' measure
// with each layout's bias taken out (see pipSizes).
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

// pipReachBias is each layout's measured reach over its true reach
// (2 to 6 pips): the median, over the clean flat dice of the generated
// stills 0..1999 read calibrated (the nominal edge; the reach over the
// pip spread times the flat edge at the die's place, whose true ratio
// is 1), of 613, 702, 695, 747 and 762 dice. The diagonal layouts, 2
// and 3, measure short (their middle half 0.97..1.00 and 0.98..1.00), a
// 6 long; the stacked dice show the same bias (medians 0.992, 0.996,
// 0.999, 1.002, 1.009 of their true size ratio). Rounded to 3 places.
var pipReachBias = [7]float64{2: 0.991, 3: 0.994, 4: 0.999, 5: 1.002, 6: 1.007}

// pipRatio is the size ratio a die's pips measure against the expected
// edge e, its layout's bias (pipReachBias) taken out: the stacked
// evidence of a die read by its pips (pipSizes), and the measure a large
// region's die must show (largeRead). Zero when the pips give none.
func (r *Reader) pipRatio(d Detection, e float64) float64 {
	if r.opts.PipSpread <= 0 || e <= 0 || d.latReach <= 0 || d.reachValue < 2 || d.reachValue > 6 {
		return 0
	}
	return d.latReach / (r.opts.PipSpread * e * pipReachBias[d.reachValue])
}

// pipSizes sets the size ratio of each die that sizeEvidence sized by its
// pips to their measure with the layout's bias taken out (pipRatio). It
// runs after the looks that take the ratio as an input (the cocked net,
// the doubt cap), which were fitted to the plain measure: only the size
// reported, the rules' stacked evidence, moves (and which large regions'
// dice are kept, see largeRead). Generated stills, stacked dice truly
// past the stacked cut caught (TestStackSizeDiag): tuning 0..1999 with
// the nominal edge 422 of 543 -> 430 of 546, with the edge at each place
// 469 of 529 -> 477 of 531; held out 2000..3999 431 of 562 -> 433 of 562
// and 484 of 538 -> 485 of 538. Clean dice put past the cut the same in
// all four (334, 307, 321, 349), and every detection but the large
// regions' unread dice the same bar its size ratio.
func (r *Reader) pipSizes(dets []Detection) {
	if r.opts.PipSpread <= 0 || r.opts.ExpectedEdgePx == nil && r.opts.DiePx <= 0 {
		return
	}
	for i := range dets {
		d := &dets[i]
		if s := r.pipRatio(*d, r.expectedAt(d.CX, d.CY)); s > 0 {
			d.SizeRatio = s
		}
	}
}

// relativeSize sets, without an expected size, the SizeRatio of each die
// against the frame's other dice read by their pips. The footprint's
// ratio to the frame's typical footprint (detect) takes in shadows and
// outlines as they fall, and a die's pips measure its face better: each
// die read with two pips or more is given its layout's reach over the
// median reach of the frame's other such dice, and a 1 (no reach) its
// face rectangle's edge over the median of theirs. A frame with no other
// die read by its pips, and an unread die (whose face rectangle is no
// measure: on the generated stills its edge ran from 0.7 to 1.7 of the
// face's), keep the footprint's ratio.
//
// With three rulers or more, most of them (relativeSizeShare) must
// agree within relativeSizeBand of their median: otherwise the frame's
// dice do not share a size (a photo of several dice sets, as byler_d6's
// are, or a camera seen aslant), and the footprints' ratios stay. Those
// two settings keep the real photos' dice past the cut about as many as
// before (measured on the size rule's own branch: byler_d6 164 -> 169 of
// 1446 detections, matteo_webcam 84 -> 87 of 1475; with the pips'
// enclosure rule as well, 169 of 1445 and 86 of 1474; every one a flat
// die on the table); a looser agreement
// measured more stills' stacked dice and put more real dice past the cut
// (half within 0.08: 209 and 108).
//
// Generated stills 0..1999, uncalibrated: of the detected stacked dice
// truly past the stacked cut 30.6% reached it by the footprint, 36.6% so;
// clean dice put past it 7.45% -> 4.99%.
const (
	relativeSizeBand  = 0.08
	relativeSizeShare = 0.8
)

// relativeSize: see above.
func relativeSize(dets []Detection) {
	var rulers []int
	for i := range dets {
		if hasReach(&dets[i]) && !dets[i].fromGroup {
			rulers = append(rulers, i)
		}
	}
	if len(rulers) == 0 {
		return
	}
	xs := make([]float64, 0, len(rulers))
	if len(rulers) >= 3 {
		// The dice may not share a size (a photo of several sets,
		// or a camera seen aslant): unless relativeSizeShare of the
		// rulers' reaches lie within relativeSizeBand of their
		// median, no die is measured against the others.
		for _, j := range rulers {
			xs = append(xs, dets[j].latReach)
		}
		m := sortedMedian(xs)
		near := 0
		for _, x := range xs {
			if math.Abs(x/m-1) <= relativeSizeBand {
				near++
			}
		}
		if float64(near) < relativeSizeShare*float64(len(xs)) {
			return
		}
	}
	// median is the median over the frame's rulers other than die i of
	// what m measures, 0 when there is none (a die is not its own
	// ruler).
	median := func(i int, m func(d *Detection) float64) float64 {
		xs = xs[:0]
		for _, j := range rulers {
			if j != i {
				xs = append(xs, m(&dets[j]))
			}
		}
		if len(xs) == 0 {
			return 0
		}
		return sortedMedian(xs)
	}
	for i := range dets {
		d := &dets[i]
		switch {
		case hasReach(d):
			if m := median(i, func(o *Detection) float64 { return o.latReach }); m > 0 {
				d.SizeRatio = d.latReach / m
			}
		case d.Value == 1 && d.EdgePx > 0:
			if m := median(i, func(o *Detection) float64 { return o.EdgePx }); m > 0 {
				d.SizeRatio = d.EdgePx / m
			}
		}
	}
}

// hasReach reports whether a detection's pips measure its face: a value
// of two pips or more whose layout reach was measured.
func hasReach(d *Detection) bool {
	return d.Value >= 2 && d.latReach > 0
}

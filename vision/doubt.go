package vision

import "math"

// Doubt: what a value's confidence does not see.
//
// The pip reader's confidence scores how well the pips on the face
// rectangle fit one value (the layout score and the template score, both
// 1 on most faces). It assumes that rectangle holds one die's whole top
// face, seen square on. Evidence the reader has of the die says when that
// may not hold, and a face in part is read as a lower value as surely as
// a whole face (the corner pips of a 3, 4 or 5 are a 2 to both cues):
//
//   - the face is not clearly square (Flatness under doubtFlatness):
//     the die may be cocked, or the rectangle off the face;
//   - the face read is much smaller than the region it was found in
//     (readCandidate's shrunk): the region held more than this face;
//   - another detection's box overlaps the die's, or a detection's
//     centre is nearer than doubtNearEdges of the die's edge (dice pressed
//     together or on one another: a face may be partly hidden, or the
//     rectangle take in the neighbour's pips);
//   - the size ratio is off 1 by more than doubtSizeOff (a die on
//     another, or a face read too small or too large for the die);
//   - the value is a 1 or a 2: what is left of a larger face when part
//     of it is missed reads as one of these;
//   - either cue short of its full score;
//   - the candidate is weak (kept only when it reads: a long region's
//     end, a cluster's cell or rest, a group of pips): its square was
//     placed by a guess, not found as one die's region.
//
// One of these is common on dice read right (most values carry one).
// Two or more together cap the value's confidence at doubtMaxConf, a
// second look's: the value stands, but not as a sure one. On 2,000
// generated stills (values given to every detected die, before this rule;
// counted without the weak candidate) the share wrong rose with the number
// of these: calibrated 0 of 903
// values with none, 0.3% with one, 1.3% with two, 2.4% with three, 5.9%
// with four; uncalibrated 0.5, 1.5, 3.4, 5.5 and 9.4%. On byler_d6 0.6%,
// 0.7%, 0.7%, 0% and 4.2%.
//
// A cue short of its full score caps the confidence on its own: the
// confidence is the lower cue score, so such a value sat between 0.9 and
// 1 only because the cues' scale tops out there, and with no other doubt
// these values were wrong as often as any with two (uncalibrated stills:
// 4 of 66, 2 of the 19 at 0.9 or more; byler_d6 1 of 43). Few values are
// so: of the values at 0.9 or more, 372 of 7,185 on the stills (9 wrong)
// and 61 of 1,359 on the photos, most of them capped already by a second
// doubt (this alone caps 25 more on the stills, 23 on the photos).
//
// The weak candidate was added last, for a 2 read as a 1 at full
// confidence, uncalibrated, on a die-sized square around one of its pips
// (the frame's die size estimated at half): it capped 34 more values at
// 0.95 or more on 600 stills uncalibrated (3 calibrated), 21 on byler_d6
// and 2 on matteo_webcam.
//
// A 3 or a 4 with a larger face's layout around it (the veto's look on
// the rectangle grown by vetoGrow: a 5's or a 6's, layout score 0.5 or
// more) caps it too: the rectangle may hold part of that face (on the
// stills, a 5 read as a 4 on a rectangle slid over the die's side face).
// The veto withholds a 1 or a 2 for this; a 3 or a 4 is only doubted: it
// capped 3 values at 0.9 or more on 600 stills (uncalibrated; none
// calibrated) and none on the photos.
//
// A value whose pips' colours spread more than doubtColSpread (the
// check's measure: the most off pip's colour distance from the others,
// over their contrast with the body) caps it too. The check withholds a
// value past maxColSpread (0.6); one just under it may still hold a mark
// that is not a pip. Found on the never-seen stills 4000..5999 in session
// 9: a marbled blue 2 read as a 3 at confidence 1, calibrated, a light
// streak in the marble taken for the centre pip (spread 0.55). On byler_d6
// and matteo_webcam it capped no value at 0.95 or more. Like every doubt
// it changes no value, only the confidence. Lowered from 0.5 to 0.4 in
// session 10 for a like 2 on the never-read seeds 8000..9999 (spread
// 0.46; see sureDoubt below): it caps 2 more values on byler_d6, none on
// matteo_webcam or stills 0..599.
//
// Tried and left out, both withholding values rather than capping them:
//
//   - a 1 or a 2 pressed by another detection and read with under 0.75
//     confidence (on 2,000 stills before this rule such values were
//     wrong about one time in four, alike on even and odd seeds): on
//     stills 0..599 it withheld 2 right clean values for 2 wrong
//     calibrated, but 7 right for none wrong uncalibrated, and 2 right
//     values on byler_d6 (both in the odd half);
//   - the values with three or four doubts or more and a confidence
//     under 0.8 or 0.85 (the stills' wrong share there is 5..25%): 14 to
//     81 values read right withheld on byler_d6 (1 to 6 points of
//     unreadable) and not one wrong value there.

// doubtFlatness is the flatness under which a face is not clearly square;
// doubtNearEdges the distance between centres, in die edges, under which
// two detections press on each other; doubtSizeOff how far off 1 the size
// ratio may be before it doubts the face.
const (
	doubtColSpread = 0.4
	doubtFlatness  = 0.9
	doubtNearEdges = 1.1
	doubtSizeOff   = 0.1
)

// doubtMaxConf is the most confidence a value with two or more doubts
// keeps; doubtsToCap is that number.
const (
	doubtMaxConf = secondLookMaxConf
	doubtsToCap  = 2
)

// sureTrace (tests), when set, is called with every value doubtCap looks
// at before it caps: the pitch measure, colour spread, doubts without the
// pitch doubt and whether the face is folded.
var sureTrace func(d *Detection, pitch, colSpread float64, n int, folded bool)

// doubtOff (tests) turns the cap off, for before-and-after figures.
var doubtOff bool

// doubts counts the evidence against dets[i]'s value (see above); rec is
// what the read kept of it.
func doubts(dets []Detection, i int, rec checkRec) int {
	d := dets[i]
	n := 0
	if d.Flatness < doubtFlatness {
		n++
	}
	if rec.shrunk {
		n++
	}
	if pressed(dets, i) {
		n++
	}
	if d.SizeRatio > 0 && math.Abs(d.SizeRatio-1) > doubtSizeOff {
		n++
	}
	if d.Value <= 2 {
		n++
	}
	if rec.weakCue {
		n += doubtsToCap // alone enough (see above)
	}
	if rec.weak {
		n++
	}
	if rec.larger {
		n += doubtsToCap
	}
	if rec.colSpread > doubtColSpread {
		n += doubtsToCap // alone enough (see above)
	}
	if rec.noRefit && !refitOff {
		n += doubtsToCap // alone enough (see "Doubts on a layout" below)
	}
	return n
}

// pressed reports whether another detection's box overlaps dets[i]'s, or
// its centre is nearer than doubtNearEdges of dets[i]'s edge.
func pressed(dets []Detection, i int) bool {
	d := dets[i]
	for j, o := range dets {
		if j == i {
			continue
		}
		if !o.Box.Intersect(d.Box).Empty() {
			return true
		}
		if d.EdgePx > 0 && math.Hypot(o.CX-d.CX, o.CY-d.CY) < doubtNearEdges*d.EdgePx {
			return true
		}
	}
	return false
}

// doubtCap caps the confidence of the values of dets with doubtsToCap or
// more doubts at doubtMaxConf. It runs on the frame's final detections
// (their boxes, flatness and size ratios settled). A fold on the face
// rectangle read (see fold.go) is alone enough; it is measured, on fr,
// only where no other doubt caps the value.
func (r *Reader) doubtCap(fr bgrImage, dets []Detection) {
	if doubtOff {
		return
	}
	reach := make([]float64, len(dets))
	for i, d := range dets {
		if rec := r.checked[[2]float64{d.CX, d.CY}]; d.Value >= 2 && rec.off > 0 && d.EdgePx > 0 {
			reach[i] = rec.off / d.EdgePx
		}
	}
	var others []float64
	for i := range dets {
		d := &dets[i]
		if d.Value == 0 || d.Confidence <= doubtMaxConf {
			continue
		}
		rec := r.checked[[2]float64{d.CX, d.CY}]
		pitch := 0.0
		if reach[i] > 0 {
			others = others[:0]
			for j, v := range reach {
				if j != i && v > 0 {
					others = append(others, v)
				}
			}
			if len(others) > 0 {
				pitch = reach[i] / sortedMedian(others)
			}
		}
		if sureTrace != nil {
			sureTrace(d, pitch, rec.colSpread, doubts(dets, i, rec), r.folded(fr, rec.face))
		}
		if doubts(dets, i, rec) >= doubtsToCap || r.sureDoubt(d, pitch) || r.folded(fr, rec.face) {
			d.Confidence = doubtMaxConf
		}
	}
}

// folded reports whether the face rectangle c (zero sides: none) lies
// across an edge of the die, by foldSplit's measures (see fold.go).
func (r *Reader) folded(fr bgrImage, c candidate) bool {
	if foldOff || !(c.w > 0 && c.h > 0) || len(fr.pix) == 0 {
		return false
	}
	step, sep := r.face.foldSplit(fr, c)
	return step >= foldStep && sep >= foldSep
}

// Doubts on a die that looked flat by a small margin, or whose pips sit
// closer together than its face rectangle says.
//
// Found on the never-read stills 8000..9999 (session 10): six values wrong
// at confidence 1 with at most one doubt. Two cocked dice and a die on
// another (a 1 read as the lit side face's 5, in both modes; a 6 read as
// a 3 on a rectangle across the top and side faces) were called flat with
// a flatness of 0.805..0.812, just past the flat cut (0.8): a flatness
// under the cut plus doubtFlatMargin caps the value alone. Two others (a
// cocked 6 read as the 2 of its side face; a flat 5 read as a 4 on a
// rectangle larger than the face) had a layout reach (centre to corner
// pip) over their own face rectangle's edge short of the frame's other
// read faces' median, at 0.81 and 0.84 of it, the rectangle taking in
// more than the pips' face: such a pitch under doubtPitch caps a value
// that is also not clearly square or a 1 or a 2. (A marbled 2 read as a
// 3, a streak of the marble taken for the centre pip at a colour spread
// of 0.46, is the sixth: doubtColSpread went from 0.5 to 0.4.)
//
// What they cost, as values at 0.9 or more capped at doubtMaxConf (none
// of them wrong), before this rule: byler_d6 15 of 371 (flatness 8,
// pitch 6, colour 2), matteo_webcam 12 of 458 (flatness 10, pitch 3);
// stills 0..599 calibrated 34 of 794, uncalibrated 10 of 494; stills
// 0..1999 calibrated 119 of 2559, uncalibrated 32 of 1605. A pitch
// doubt counted once with any other doubt caught the same dice at
// byler_d6 24 and uncalibrated stills 20; counted alone (under 0.93) it
// capped 40 of byler_d6's 371.
const (
	doubtFlatMargin = 0.02
	doubtPitch      = 0.85
)

// sureDoubt reports whether d's value, pitch its layout reach over its
// face edge relative to the frame's other read faces (0 when not
// measured), falls under either doubt above.
func (r *Reader) sureDoubt(d *Detection, pitch float64) bool {
	if sureOff {
		return false
	}
	if d.Flatness < r.opts.MinFlatness+doubtFlatMargin {
		return true
	}
	if pitch > doubtPitchHigh && !pitchHighOff {
		return true
	}
	return pitch > 0 && pitch < doubtPitch && (d.Flatness < doubtFlatness || d.Value <= 2)
}

// sureOff (tests) turns sureDoubt off, for before-and-after figures.
var sureOff bool

// Doubts on a layout the face does not hold as one die's.
//
// The never-read stills 10000..13999 (sessions 10 and 11) left three
// values wrong at confidence 1 that no doubt above caught (one doubt at
// most):
//
//   - a marbled blue 2 read as a 3, a streak of the marble taken for the
//     centre pip (still 12713, calibrated, as 5340 and 9191 before it);
//     its colour spread was not measured: the check's pip finders (blobs,
//     then peaks) did not find a 3's layout again on the face's
//     colour-distance map, the value having been read on another map;
//   - a yellow 2 cocked 34 degrees read as a 6 (12998, uncalibrated) and a
//     marbled 6 read as a 3 on a weak candidate (10173, uncalibrated):
//     their layout reaches (centre to corner pip, over the face
//     rectangle's edge) were 1.37 and 1.24 of the frame's other read
//     faces', the pips spread wider than one face of the rectangle's size
//     holds (a side face's pips taken in, or a rectangle too small for
//     the pips it read).
//
// So a value of two pips or more whose layout the check does not find
// again (checkRec.noRefit) is doubted alone, as is a layout reach over
// doubtPitchHigh of the frame's other read faces' (the mirror of
// doubtPitch). Both only cap the confidence at doubtMaxConf: they change
// no value. Before this rule they capped, of the values at 0.9 or more:
// byler_d6 (read with the shipped net) 15 and 13 of 355 (355 -> 325 sure
// with byler's fold nets), matteo_webcam 1 and 1 of 445, stills 0..1999
// uncalibrated 1573 -> 1492 over every detected die, none of them wrong.
// On the never-read stills 16000..17999 (read once after them) the first
// caught a blurred 5 read as a 3 at confidence 1 (calibrated, 16536).
const doubtPitchHigh = 1.2

// refitOff and pitchHighOff (tests) turn the two doubts above off, for
// before-and-after figures.
var refitOff, pitchHighOff bool

// A 1, 2 or 3 likely read on part of a face, without a die size.
//
// Two kinds of value with two doubts or more (capped at doubtMaxConf
// already) were wrong far more often than the others there, read without
// a known die size (generated stills 0..1999 read uncalibrated, session
// 17, TestUncalLooksDiag), nearly all of them on cocked dice:
//
//   - a 1, 2 or 3 read on a weak candidate (a long region's end, a
//     cluster's cell or rest, a group of pips: its square placed by a
//     guess) with partDoubts or more doubts, the weak candidate counted
//     among them: what is left of a larger face when the square takes in
//     part of it, or of a neighbour's;
//   - a 1, 2 or 3 on a die the reader calls not flat whose face read is
//     much smaller than its region (readCandidate's shrunk): the region
//     holds the die's side faces, and the face read there may be part of
//     its top face or a side.
//
// doubtMaxConf (0.85) passes the rules' default min_confidence (0.8), so
// partCap caps these at partMaxConf, under it: the value stands (the
// reader's own threshold is 0.5, and every figure counted there is as
// before), but the rules count the die unreadable rather than take a
// value this likely wrong. Such values carry two doubts or more, or are
// not flat, so they stood at doubtMaxConf (notFlatMaxConf) or under
// already: no sure value is touched. On stills 0..1999 of the
// 4,081 values at 0.8 or more it took 56 of the 95 wrong ones (cocked
// dice 34 of 51, clean 12 of 22) under 0.8, and 250 of the right ones;
// on held-out stills, read after it was chosen, 2450..3999 39 of 74
// wrong and 180 right, 58450..59999 36 of 67 wrong and 178 right. On
// byler_d6 it took 35 of the 1,127 values at 0.8 or more (18 in the even
// half, 17 in the odd) and one of the 6 wrong ones, on matteo_webcam 19
// of 748. Only without a known size: the daemon's reads are as before.
const (
	partDoubts  = 3
	partMaxConf = 0.75
	partMaxPips = 3
)

// partCapOff (tests) turns partCap off, for before-and-after figures.
var partCapOff bool

// partCap caps the confidence of the values of dets of at most
// partMaxPips pips read on a weak candidate with partDoubts or more
// doubts, or on a die not flat whose face read was shrunk, at
// partMaxConf (see above). It runs last, on the frame's final
// detections.
func (r *Reader) partCap(dets []Detection) {
	if partCapOff {
		return
	}
	for i := range dets {
		d := &dets[i]
		if d.Value == 0 || d.Value > partMaxPips || d.Confidence <= partMaxConf {
			continue
		}
		rec := r.checked[[2]float64{d.CX, d.CY}]
		if rec.weak && doubts(dets, i, rec) >= partDoubts || !d.Flat && rec.shrunk {
			d.Confidence = partMaxConf
		}
	}
}

package vision

import "math"

// Later looks' 1s and 2s.
//
// The looks readLooks takes after the first (other rectangles, other pip
// maps, the face turned to its pips) may not give a 1 or a 2: a face
// rectangle that holds only part of a larger face (a 4 or a 6 with a row
// or two corners left out, a 3 less an end) reads as one, and on the
// generated stills every way tried of letting them through added wrong
// values. Yet on byler_d6 most 1s and 2s the first look leaves unread
// (low contrast, a rectangle turned off the face) are read right by a
// later look. Such a value is kept aside (faceScratch.small) and given
// only where the whole top face was seen, by every test below:
//
//   - the look itself: one blob per pip, fitting the value's layout at
//     its canonical places and the template agreeing, both scoring
//     smallMinScore or more, on a square rectangle with no large
//     non-pip blob on it;
//   - the die's own outline found (the read turned to it): without one
//     the candidate may be no die at all (a spot of a sand-textured floor
//     read as a 1, uncalibrated);
//   - no later look read another value, and the first look read none
//     or the same (below the usual confidence);
//   - the veto and the check, as any value;
//   - at the frame's level (giveHeld, giveSmall), a die called flat and
//     under the stacked size ratio, whose face's short side is
//     smallFaceMin..smallFaceMax of the median edge of the frame's read
//     faces (minFrameDice or more);
//   - nothing pip-like around its pips: on a square of vetoGrow times
//     that median edge (a whole die's face and a sixth of an edge
//     beyond, wherever the rectangle sat on it), every pip map (colour
//     distance, hue, redness) finds no more blobs and peaks than the
//     value has pips. A larger face's other pips lie within it;
//   - a 2's pips as far apart as the frame's faces' (at least
//     smallRowRel of the median layout offset of its values), or lined
//     up with the diagonal of the die's own outline: two neighbouring
//     pips of a larger face, taken turned, fit a 2 at 1/sqrt2 of the
//     offset, an eighth of a turn off the outline.
//
// On byler_d6 (session 10) it gives 2 dice (a 1 and a 2, both on odd
// images; 125 -> 123 unread), none wrong. Of the 55 byler 1s and 2s
// unread or wrong at its start, 26 had a later look reading their value;
// TestOnesDiag lists what holds the rest back. With scores down to 0.75
// and no outline needed it gave a third byler die, but on uncalibrated
// stills a 2 read as 1 (still 609, scores 0.78) and 1s on sand-texture
// spots that are no die (stills 1305, 1581, 1780).

// smallMinScore is the least layout and template score a later look's 1
// or 2 must have.
const smallMinScore = 0.9

// smallFaceMin and smallFaceMax bound a later look's 1 or 2's short face
// side over the median edge of the frame's read faces.
const (
	smallFaceMin = 0.7
	smallFaceMax = 1.15
)

// smallMaxSizeRatio is the most size ratio a die given a later look's 1
// or 2 may have (the stacked cut: a larger die is stacked or cocked).
const smallMaxSizeRatio = 1.12

// smallOff (tests) turns the later looks' 1s and 2s off.
var smallOff bool

// noteSmall keeps a later look's value f of readLooks: the first 1 or 2
// read with retryBelow or more in s.small, and every value so read in
// s.smallN (a bit per value).
func (s *faceScratch) noteSmall(f faceValue) {
	if f.value <= 0 || f.conf < retryBelow {
		return
	}
	s.smallN |= 1 << f.value
	if f.value <= 2 && s.small.value == 0 {
		s.small = f
	}
}

// smallCandidate returns the later look's 1 or 2 of the last read whose
// first look (first) gave no value or the same, when it passes the
// read's own tests (see above): the look's cues and no other value read.
// The marks around it are looked at by giveHeld, at the frame's die
// size.
func (s *faceScratch) smallCandidate(first faceValue) (faceValue, bool) {
	f := s.small
	why := ""
	switch {
	case smallOff || f.value == 0:
		return f, false
	case s.smallN != 1<<f.value:
		why = "other values"
	case first.value != 0 && first.value != f.value:
		why = "first look"
	case f.blobs != f.value || f.lv != f.value || f.tmpl != f.value:
		why = "cues"
	case f.lscore < smallMinScore || f.nccScore < smallMinScore:
		why = "scores"
	case !s.smallSil:
		// No outline of the die's own: the candidate may be no die (a
		// spot of a textured floor or a chip's pattern read as a 1).
		why = "no outline"
	case !f.sq || f.junk:
		why = "shape"
	}
	if smallTrace != nil {
		smallTrace(f, why)
	}
	return f, why == ""
}

// smallTrace, when set (tests), is called with every later look's 1 or 2
// smallCandidate looked at and why it was not kept ("" when kept).
var smallTrace func(f faceValue, why string)

// smallMarks, when set (tests), is called with the blobs and peaks
// nothingBeside counts on each map.
var smallMarks func(blobs, peaks int)

// nothingBeside reports whether every pip map of a square of vetoGrow
// times edge (at least f's own rectangle's), centred and turned as f's
// rectangle, finds no more blobs and peaks than f has pips (a map on which the pips
// do not stand out may find fewer).
func (s *faceScratch) nothingBeside(fr bgrImage, f faceValue, edge float64) bool {
	lt, nc := s.localThr, s.noChroma
	s.localThr = false
	defer func() { s.localThr, s.noChroma = lt, nc }()
	cg := f.c
	e := vetoGrow * max(edge, f.c.w, f.c.h)
	cg.w, cg.h, cg.edge = e, e, e
	s.sample(fr, cg)
	ok := func() bool {
		b, _ := s.blobs()
		np := len(s.peaks())
		if smallMarks != nil {
			smallMarks(len(b), np)
		}
		return len(b) <= f.value && np <= f.value
	}
	s.pipMap()
	if !ok() {
		return false
	}
	s.pipChromaMap()
	if !ok() {
		return false
	}
	s.pipMap()
	return !s.pipRedMap() || ok()
}

// smallGiveTrace, when set (tests), is called by giveHeld with every
// detection holding a later look's 1 or 2 it looked at, and why it was not
// given ("" when given).
var smallGiveTrace func(d *Detection, why string)

// giveSmall reports whether giveHeld may give the held later look's 1 or
// 2 h on the unread detection d, given the median edge of the frame's read
// faces (med) and the median layout offset of its values of 2 or more
// (offMed, both NaN when too few): a face of about the frame's faces'
// size, a die not past the stacked cut, a 2's pips as far apart as the
// frame's faces' (two neighbouring pips of a larger face's square, taken
// turned, sit at 1/sqrt2 of its offset), and nothing pip-like on any map
// of a square of vetoGrow times the larger of the frame's face edge and
// the face's own rectangle, around it (see nothingBeside).
func (r *Reader) giveSmall(fr bgrImage, d *Detection, h heldValue, med, offMed float64) bool {
	why := ""
	off := h.rec.off
	if off == 0 {
		// The check did not find the layout again on the colour
		// distance (the look read another map): the look's own fit.
		off = h.small.lat.scale
	}
	switch {
	case !(h.side >= smallFaceMin*med && h.side <= smallFaceMax*med):
		why = "face size"
	case !(d.SizeRatio < smallMaxSizeRatio):
		// Written so that a NaN size holds the value back.
		why = "size ratio"
	case h.value == 2 && !(off >= smallRowRel*offMed) && !(h.silTurn <= smallSilTurn):
		why = "pip spacing"
	case !r.face.nothingBeside(fr, *h.small, med):
		why = "marks beside"
	}
	if smallGiveTrace != nil {
		smallGiveTrace(d, why)
	}
	if why != "" {
		return false
	}
	d.Confidence = min(h.small.conf, secondLookMaxConf)
	return true
}

// smallRowRel is the least layout offset a later look's 2 may have, over
// the median of the frame's values (between a square's side, 1/sqrt2,
// and its diagonal).
const smallRowRel = 0.85

// smallSilTurn is the most a later look's 2's pips may turn (radians,
// within a quarter turn) from the die outline's diagonal to be given
// without the frame's spacing: two neighbouring pips of a larger face
// read as a 2 lie along the outline's side, an eighth of a turn off.
const smallSilTurn = 0.15

// frameOffMedian is the median layout offset (pixels) the check measured
// for the frame's values of 2 or more, NaN with fewer than minFrameDice.
func (r *Reader) frameOffMedian(dets []Detection) float64 {
	var ms []float64
	for _, d := range dets {
		if rec := r.checked[[2]float64{d.CX, d.CY}]; d.Value >= 2 && rec.off > 0 {
			ms = append(ms, rec.off)
		}
	}
	if len(ms) < minFrameDice {
		return math.NaN()
	}
	return sortedMedian(ms)
}

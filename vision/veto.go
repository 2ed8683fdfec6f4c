package vision

import "math"

// The value veto.
//
// The pip reader gives a value when its two cues agree. On generated
// stills the cues sometimes agree on the wrong face: the face rectangle
// holds only part of the top face (a dark die on a dark cloth, a face
// half hidden by a die on top, a cocked die), and both cues see the same
// subset of its pips. veto looks at an accepted value once more, with
// evidence the cues do not weigh, and withholds it (unreadable) when that
// evidence contradicts it. Every check costs some correct reads; each has
// a physical reason.
//
//   - Pip size against pip spacing. A die's pip radius over its pip
//     offset (face centre to corner pip) is fixed by the die's design,
//     about 0.3..0.4 on common dice. Any two pips of a larger face that
//     lie on a diagonal through the centre (a corner and the centre pip
//     of a 3, 5) pass for a 2 on a smaller rectangle, but their offset is
//     half a corner pip's, so their radius over offset is about twice as
//     large. Not applied yet (see vetoMaxPipRatio): the ratio differs
//     between the generator's dice and real ones.
//   - A lone pip with company. A 1 has one pip; pip-like marks around it,
//     on the face rectangle grown by vetoGrow, mean the rectangle cut the
//     face short (the other pips of a 4, 5 or 6 outside it). A 1 with
//     vetoMaxPeaksOne or more pip-map peaks there is withheld.

// vetoMaxPipRatio is the largest pip radius over pip offset a 2 may show
// on the generated stills' dice. It is NOT applied: real dice have larger
// pips closer together (byler_d6 and matteo_webcam 2s: pip offset 0.14 to
// 0.27 of the face side, radius over offset 0.33 to 0.62, against 0.27
// and 0.37 on the stills), so one fixed ratio withheld most real 2s.
const vetoMaxPipRatio = 0.42

// vetoGrow is how much larger the rectangle is on which pips are looked
// for around a 1.
const vetoGrow = 1.35

// vetoMaxPeaksOne is the number of pip-map peaks on the grown rectangle
// from which a 1 is withheld.
const vetoMaxPeaksOne = 3

// vetoInfo is what the veto measured on one accepted value.
type vetoInfo struct {
	value int
	conf  float64
	// Pip geometry on the face rectangle: pips counted, the fitted
	// layout's scale (pip offset over the face side, 0 when no layout
	// fits) and the mean pip radius over the face side.
	nIn         int
	scale, pipR float64
	// Pip-map peaks on the rectangle grown by vetoGrow (a 1 only).
	pOut   int
	reason string // why the value was withheld ("" when kept)
}

// vetoTrace, when set (tests), is called with every accepted value the
// veto looked at. vetoOff (tests) turns the veto off, for before-and-after
// figures.
var (
	vetoTrace func(d *Detection, vi vetoInfo)
	vetoOff   bool
)

// veto reports whether the value fv gives for the detection d must be
// withheld. It reuses the reader's face scratch (the read is done).
func (r *Reader) veto(fr bgrImage, fv faceValue, d *Detection) bool {
	c := fv.c
	vi := vetoInfo{value: fv.value, conf: fv.conf}
	s := &r.face
	switch fv.value {
	case 2:
		s.sample(fr, c)
		s.pipMap()
		cin, _ := s.blobs()
		vi.nIn = len(cin)
		if len(s.kept) > 0 {
			var a float64
			for _, b := range s.kept {
				a += float64(b.area)
			}
			vi.pipR = math.Sqrt(a/float64(len(s.kept))/math.Pi) / faceN
		}
		if _, _, fit := matchLayout(cin); fit.a != 0 || fit.b != 0 {
			vi.scale = math.Hypot(fit.a, fit.b)
		}
		// Measured only: vetoMaxPipRatio fits the generator's dice, not
		// real ones (see the note at vetoMaxPipRatio).
	case 1:
		cg := c
		cg.w *= vetoGrow
		cg.h *= vetoGrow
		cg.edge *= vetoGrow
		s.sample(fr, cg)
		s.pipMap()
		s.blobs() // sets the difference of blurs peaks reads
		vi.pOut = len(s.peaks())
		if vi.pOut >= vetoMaxPeaksOne {
			vi.reason = "pips around a 1"
		}
	}
	if vetoTrace != nil {
		vetoTrace(d, vi)
	}
	return vi.reason != "" && !vetoOff
}

package vision

import "image"

// Detection is one die found in a frame.
type Detection struct {
	// Box is the die's top face bounding box in pixels.
	Box image.Rectangle `json:"box"`
	// PipBox bounds the pips the reader counted on the top face, in
	// pixels (empty when it found none). It is not the die: some label
	// sets box the pips rather than the face, and a harness may match
	// either box against them.
	PipBox image.Rectangle `json:"pip_box"`
	// CX and CY are the top face centre in pixels.
	CX float64 `json:"cx"`
	CY float64 `json:"cy"`
	// Value is 1..6, or 0 when the reader is not sure (unreadable).
	Value int `json:"value"`
	// Confidence of the value, 0..1.
	Confidence float64 `json:"confidence"`
	// Flat is true when the die looks to lie flat (Read: the cocked
	// net's call, cocknet.go); Flatness is the footprint's score, one of
	// that call's inputs (1 is a perfect square).
	Flat     bool    `json:"flat"`
	Flatness float64 `json:"flatness"`
	// SizeRatio is the apparent edge over the expected edge at that place.
	// Without an expected size it is relative to the frame's other dice
	// (their pips, or their footprints; see relativeSize).
	SizeRatio float64 `json:"size_ratio"`
	// EdgePx is the measured top-face edge in pixels.
	EdgePx float64 `json:"edge_px"`

	// latReach is how far the read value's pip layout reaches from the
	// face's centre along a side, in pixels (the longest reach of the
	// layout's fit: a face turned from the camera is shortened only
	// across the turn). Zero when no value was read or the value has a
	// single pip.
	latReach float64
	// reachValue is the value whose layout latReach measures (a later
	// look may give the die another value, or none, and keep the reach).
	reachValue int
	// lat is the read value's pip lattice (readCandidate; the lattice
	// of the layout reachValue names), and latAngle the turn of the face
	// rectangle it was measured in, radians: see viewCocked.
	lat      lattice
	latAngle float64
	// keepNotFlat: the reader found the die not flat by a rule of its
	// own (a region far too large for it, or a face placed in a region
	// where nothing read), which the cocked net does not overrule.
	keepNotFlat bool
	// fromGroup: the die was made from a pip group (notFlatGroup); its
	// face is placed by its pips alone, so it is no ruler of the
	// frame's dice' sizes (relativeSize).
	fromGroup bool
	// beyond is the count of pip-like spots one side past the corners of
	// the layout read for the value beyondOf (beyondPips; readCandidate):
	// see beyondLook.
	beyond, beyondOf int
	// silEdge is the edge of the die's outline the face reader measured
	// when the outline was a die's alone (faceValue.silEdge), 0 when it
	// was not: see outlineStacked.
	silEdge float64
	// foot is the centre of the footprint (the region) the face was
	// read in and the face's centre then, frame pixels (readCandidate;
	// zero for a die no candidate read gave): see footAside.
	foot [4]float64
	// earlyFlat: the footprint called the unread die not flat and the
	// cocked nets flat (earlyCockLook): netLook and sepLook may read it.
	earlyFlat bool
	// cockP is the cocked nets' probability that the die is cocked, the
	// lower of the two nets' (forwardAll; cockLook; 0 when they did not
	// run).
	cockP float64
	// pipOff is how far the counted pips' centre lies from the face's
	// centre, in die edges (the at-rest reader; 0 when no value was read).
	pipOff float64
	// outlined is printedOutline's share for the value check last kept
	// (0 when none): see printedLook.
	outlined float64
	// open is pipsOpen's share of the pips open to the outside, for the
	// value check last kept (0 when none, or fewer than minOpenCounted
	// pips counted): see openLook.
	open float64
	// soft is pipSoftness's width in pixels for the value check last
	// kept, when it is maxSoftRel of the face's edge or more (0 when
	// none, or less): see softLook.
	soft float64
	// unfound: the value check last kept is a small 2 or 3 the check did
	// not find again (smallUnfound), withheld by unfoundLook.
	unfound bool
	// pipsRow: the check withheld a value read on this die as a layout
	// small for the die and for its own pips (see check); the frame's
	// later looks leave the die unread.
	pipsRow bool
	// pairOne: a 1 read on one pip of a group of like pips (see
	// pipClusterCands); its value is withheld and the frame's later
	// looks leave it unread.
	pairOne bool
	// sideOut is, for a face the at-rest reader could not read, how much
	// of what stands out lies past a square of the expected die size
	// placed on it, in die areas (see restDie.sideOut).
	sideOut float64
	// sideMarks is, for a face the at-rest reader read on its first pass,
	// how many marks stand out just beyond its outline, joined to it
	// through shade (see markSides).
	sideMarks int
	// placed: the at-rest reader placed this face on its pips (see
	// restDie).
	placed bool
	// regrown: the at-rest reader read this face on its second look, as
	// a square of the die's size placed on its pips (see restDie).
	regrown bool
	// pipScale is how far the read value's pips lie from their centre,
	// over the expected die edge, as the offset along a side of a
	// canonical layout's corner pips (the at-rest reader; 0 when fewer
	// than two pips were read).
	pipScale float64
	// span is, for a face the at-rest reader's first pass found, the
	// longer side of its outline in die edges (see restDie.span).
	span float64
	// filled is, for a one the at-rest reader's first pass read, its
	// print-filled size in die edges (see restDie.filled).
	filled float64
}

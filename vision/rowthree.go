package vision

import "math"

// A 3 turned about 45 degrees shows its pips in a row across the face.
// When the face rectangle the reader settles on is smaller than the die
// and square to the frame, the two end pips fall on its edge and only the
// middle one is counted: the 3 is read as a 1 (calibrated stills 2545,
// 22049, 84179). A 1's pip is the middle of its face, and with a known die
// edge e nothing of the pip's colour lies within about half an edge of it
// but its own disc; a neighbour's pips are at least 0.7 edge off, and a
// cocked die's side face shows on one side only. betweenTwoPips looks for
// the row: a direction along which a spot of the pip's colour and size
// lies on both sides of the pip, at the same distance, between
// rowPairNear and rowPairFar edges.

const (
	// rowPairNear, rowPairFar: the span (over the edge) where the row's
	// end pips are looked for; a 3's lie 0.38 edge from its middle pip,
	// nearer on a face seen aslant.
	rowPairNear = 0.26
	rowPairFar  = 0.48
	// rowPairTol is how far (over the edge) the two end pips' distances
	// from the middle one may differ.
	rowPairTol = 0.08
	// rowPairCol: a point counts as the pip's colour when it is within
	// this share of the pip's contrast with the body of the pip's colour.
	rowPairCol = 0.4
	// rowPairDirs is how many directions (over half a turn) are tried.
	rowPairDirs = 36
)

// rowThreeOff (tests) turns the rule off, for before-and-after figures.
var rowThreeOff bool

// betweenTwoPips reports whether fv, a 1 read on a die of known edge e,
// has a spot of its pip's colour and size on both sides of its pip, at
// the same distance (see above). It is false for any other value.
func betweenTwoPips(fr bgrImage, fv faceValue, e float64) bool {
	if fv.value != 1 || fv.pipRing < 1 || e <= 0 {
		return false
	}
	px, py, pr := fv.pips[0][0], fv.pips[0][1], fv.pips[0][2]
	if pr <= 0 {
		return false
	}
	pc := fr.mean3(px, py)
	contrast := colDist(pc, fv.body)
	if contrast < 1 {
		return false
	}
	tol := rowPairCol * contrast
	for i := range rowPairDirs {
		a := math.Pi * float64(i) / rowPairDirs
		ux, uy := math.Cos(a), math.Sin(a)
		r1, ok1 := rowPipAlong(fr, px, py, ux, uy, pr, e, pc, tol)
		if !ok1 {
			continue
		}
		r2, ok2 := rowPipAlong(fr, px, py, -ux, -uy, pr, e, pc, tol)
		if ok2 && math.Abs(r1-r2) <= rowPairTol*e {
			return true
		}
	}
	return false
}

// rowPipAlong follows the ray from the pip (px, py) of radius pr along
// (ux, uy) and returns the distance to the middle of the first run of
// the pip's colour pc (within tol) past the pip's own disc, when that run
// is a pip's width (0.8 to 3 radii), begins after a gap off the pip's
// colour, and has its middle between rowPairNear and rowPairFar edges.
func rowPipAlong(fr bgrImage, px, py, ux, uy, pr, e float64, pc [3]float64, tol float64) (float64, bool) {
	const step = 0.5
	// Past twice the picture's sides a ray samples only the picture's
	// border (pixels are clamped into it): the cap changes no answer on
	// a real die, but an edge far past the picture (or an infinite one)
	// kept the walk going for seconds, or for ever.
	far := min((rowPairFar+0.1)*e, 2*float64(fr.w+fr.h))
	start, gap := -1.0, false
	for r := pr; r <= far; r += step {
		on := colDist(fr.mean3(px+r*ux, py+r*uy), pc) <= tol
		switch {
		case !on && start < 0:
			gap = true
		case on && start < 0:
			if !gap {
				continue // still on the pip's own disc (or a streak from it)
			}
			start = r
		case !on && start >= 0:
			w := r - start
			mid := start + w/2
			ok := w >= 0.8*pr && w <= 3*pr && mid >= rowPairNear*e && mid <= rowPairFar*e
			return mid, ok
		}
	}
	return 0, false
}

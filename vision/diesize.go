package vision

import "image"

// typicalEdge is the image's typical die edge estimated from its
// candidates (medianSquareEdge). Candidates the frame cuts (their region
// and their own rectangle reach the frame's edge) show only part of their
// object: what shows of a laptop, a keyboard or a vignetted corner at the
// edge is often a large square, or a row of small ones, that outweighs or
// outnumbers the dice in the middle. When leaving them out moves the
// estimate so far that the size check (0.6 to 1.6 of it) would drop the
// dice the estimate then rests on, they are left out.
func typicalEdge(cands []candidate) float64 {
	inner := make([]candidate, 0, len(cands))
	for _, c := range cands {
		if !c.cut {
			inner = append(inner, c)
		}
	}
	all := medianSquareEdge(cands)
	if e := medianSquareEdge(inner); e > 0 && (e < 0.6*all || e > 1.6*all) {
		return e
	}
	return all
}

// atFrameEdge reports whether bb reaches the edge of a w x h frame.
func atFrameEdge(bb image.Rectangle, w, h int) bool {
	return bb.Min.X <= 0 || bb.Min.Y <= 0 || bb.Max.X >= w || bb.Max.Y >= h
}

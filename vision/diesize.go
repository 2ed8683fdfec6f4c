package vision

import "image"

// typicalEdge is the image's typical die edge estimated from its
// candidates (medianSquareEdge), leaving out those whose region reaches
// the frame's edge when others remain. The frame cuts such a region: its
// size is not its object's, and what shows of a laptop, a keyboard or a
// vignetted corner at the edge is often a large square or a row of small
// ones that outweighs or outnumbers the dice in the middle.
func typicalEdge(cands []candidate) float64 {
	inner := make([]candidate, 0, len(cands))
	for _, c := range cands {
		if !c.cut {
			inner = append(inner, c)
		}
	}
	if e := medianSquareEdge(inner); e > 0 {
		return e
	}
	return medianSquareEdge(cands)
}

// atFrameEdge reports whether bb reaches the edge of a w x h frame.
func atFrameEdge(bb image.Rectangle, w, h int) bool {
	return bb.Min.X <= 0 || bb.Min.Y <= 0 || bb.Max.X >= w || bb.Max.Y >= h
}

package vision

import "math"

// faceHalfSplit measures how far the two halves of the face rectangle c
// differ in brightness: the body's median brightness (the sum of the
// three channels, to the unit; the pips are too few to move a median) of
// each half of the sampled patch, taken across each of the patch's two
// axes, and the larger difference of the two splits over the brighter
// half's. A face read whole is lit as one plane; a rectangle that takes
// in the top face and the side face beside it (a tilted camera shows the
// near side face) has a half in the side face's shade. It samples the
// face into the reader's face scratch (the read is done).
func (s *faceScratch) faceHalfSplit(fr bgrImage, c candidate) float64 {
	s.sample(fr, c)
	const levels = 3*255 + 1
	// Brightness counts of the upper, lower, left and right halves.
	var hist [4][levels]uint16
	for j := faceMargin; j < faceN-faceMargin; j++ {
		for i := faceMargin; i < faceN-faceMargin; i++ {
			o := (j*faceN + i) * 3
			v := min(max(int(s.patch[o]+s.patch[o+1]+s.patch[o+2]+0.5), 0), levels-1)
			if j < faceN/2 {
				hist[0][v]++
			} else {
				hist[1][v]++
			}
			if i < faceN/2 {
				hist[2][v]++
			} else {
				hist[3][v]++
			}
		}
	}
	// Each half holds half of the inner patch's pixels.
	const n = (faceN - 2*faceMargin) * (faceN - 2*faceMargin) / 2
	median := func(h *[levels]uint16) float64 {
		k := 0
		for v := range h {
			if k += int(h[v]); k > n/2 {
				return float64(v)
			}
		}
		return levels - 1
	}
	split := func(a, b *[levels]uint16) float64 {
		ma, mb := median(a), median(b)
		if m := max(ma, mb); m > 0 {
			return math.Abs(ma-mb) / m
		}
		return 0
	}
	return max(split(&hist[0], &hist[1]), split(&hist[2], &hist[3]))
}

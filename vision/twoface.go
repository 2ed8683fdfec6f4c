package vision

import (
	"math"
	"slices"
)

// faceHalfSplit measures how far the two halves of the face rectangle c
// differ in brightness: the body's median brightness (the sum of the
// three channels; the pips are too few to move a median) of each half of
// the sampled patch, taken across each of the patch's two axes, and the
// larger difference of the two splits over the brighter half's. A face
// read whole is lit as one plane; a rectangle that takes in the top face
// and the side face beside it (a tilted camera shows the near side face)
// has a half in the side face's shade. It samples the face into the
// reader's face scratch (the read is done).
func (s *faceScratch) faceHalfSplit(fr bgrImage, c candidate) float64 {
	s.sample(fr, c)
	const in = faceN - 2*faceMargin
	var lo, hi, left, right [in * in / 2]float64
	nl, nh, nL, nR := 0, 0, 0, 0
	for j := faceMargin; j < faceN-faceMargin; j++ {
		for i := faceMargin; i < faceN-faceMargin; i++ {
			o := (j*faceN + i) * 3
			v := s.patch[o] + s.patch[o+1] + s.patch[o+2]
			if j < faceN/2 {
				lo[nl] = v
				nl++
			} else {
				hi[nh] = v
				nh++
			}
			if i < faceN/2 {
				left[nL] = v
				nL++
			} else {
				right[nR] = v
				nR++
			}
		}
	}
	split := func(a, b []float64) float64 {
		slices.Sort(a)
		slices.Sort(b)
		ma, mb := a[len(a)/2], b[len(b)/2]
		if m := max(ma, mb); m > 0 {
			return math.Abs(ma-mb) / m
		}
		return 0
	}
	return max(split(lo[:nl], hi[:nh]), split(left[:nL], right[:nR]))
}

package vision

import "testing"

// TestFaceHalfSplit paints a white face with one black pip at its centre,
// once lit evenly and once with its lower part in a grey side face's
// shade, and checks that faceHalfSplit measures about nothing on the
// first and over maxOneSplit on the second, whichever way the rectangle is
// turned (the split is taken across both of its axes).
func TestFaceHalfSplit(t *testing.T) {
	const n = 80
	paint := func(shade bool) bgrImage {
		fr := bgrImage{pix: make([]uint8, 3*n*n), w: n, h: n}
		for y := 0; y < n; y++ {
			for x := 0; x < n; x++ {
				v := uint8(235)
				if shade && y >= 40 {
					v = 120
				}
				if (x-40)*(x-40)+(y-40)*(y-40) <= 16 {
					v = 20
				}
				for ch := 0; ch < 3; ch++ {
					fr.pix[3*(y*n+x)+ch] = v
				}
			}
		}
		return fr
	}
	var s faceScratch
	for _, turn := range []float64{0, 1.5707963} {
		c := candidate{cx: 40, cy: 40, w: 40, h: 40, edge: 40, angle: turn}
		if got := s.faceHalfSplit(paint(false), c); got > 0.05 {
			t.Errorf("even face, turned %.2f: split %.3f, want about 0", turn, got)
		}
		if got := s.faceHalfSplit(paint(true), c); got <= maxOneSplit {
			t.Errorf("half in shade, turned %.2f: split %.3f, want over %.2f", turn, got, maxOneSplit)
		}
	}
}

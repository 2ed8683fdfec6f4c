package vision

import (
	"math/rand/v2"
	"testing"
)

// diffMask's table of the brightness term must give exactly what pixDiff
// (with its division) gives: every pair of grey levels, then random
// colours.
func TestDiffMaskMatchesPixDiff(t *testing.T) {
	const grey = 256 * 256
	n := grey + 200000
	fpix, bpix := make([]uint8, 3*n), make([]uint8, 3*n)
	for i := 0; i < grey; i++ {
		for c := 0; c < 3; c++ {
			fpix[3*i+c], bpix[3*i+c] = uint8(i>>8), uint8(i)
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for i := 3 * grey; i < 3*n; i++ {
		fpix[i], bpix[i] = uint8(rng.IntN(256)), uint8(rng.IntN(256))
	}
	mpix, gray := make([]uint8, n), make([]uint8, n)
	diffMask(fpix, bpix, mpix, gray)
	for i := 0; i < n; i++ {
		m, pm := pixDiff(fpix[3*i:3*i+3], bpix[3*i:3*i+3])
		if mpix[i] != m || int32(gray[i]) != pm {
			t.Fatalf("pixel %d (%v on %v): diffMask %d grey %d, pixDiff %d grey %d",
				i, fpix[3*i:3*i+3], bpix[3*i:3*i+3], mpix[i], gray[i], m, pm)
		}
	}
}

package vision

import (
	"math/rand/v2"
	"testing"
)

// refineAccDirect is refineBackground's first pass as first written: each
// kept sample (even x and y, difference at most thr) added to its cell.
func refineAccDirect(fpix, mpix []uint8, thr uint8, w, h, sw, sh int) []int32 {
	acc := make([]int32, 4*sw*sh)
	for y := 0; y < h; y += 2 {
		for x := 0; x < w; x += 2 {
			i := y*w + x
			if mpix[i] > thr {
				continue
			}
			c := 4 * (y*sh/h*sw + x*sw/w)
			acc[c] += int32(fpix[3*i])
			acc[c+1] += int32(fpix[3*i+1])
			acc[c+2] += int32(fpix[3*i+2])
			acc[c+3]++
		}
	}
	return acc
}

// TestRefineBackgroundSums: the cells refineBackground fills must be what
// the direct per-sample sums give, for frames of odd and even sizes.
func TestRefineBackgroundSums(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for iter := 0; iter < 200; iter++ {
		w, h := 8+rng.IntN(120), 8+rng.IntN(90)
		sw, sh := 1+rng.IntN(min(w, 12)), 1+rng.IntN(min(h, 12))
		fpix, mpix := make([]uint8, 3*w*h), make([]uint8, w*h)
		for i := range fpix {
			fpix[i] = uint8(rng.IntN(256))
		}
		for i := range mpix {
			mpix[i] = uint8(rng.IntN(60))
		}
		thr := uint8(rng.IntN(70))
		spix := make([]uint8, 3*sw*sh)
		var buf, colBuf []int32
		ok := refineBackground(fpix, mpix, thr, w, h, spix, sw, sh, &buf, &colBuf)
		acc := refineAccDirect(fpix, mpix, thr, w, h, sw, sh)
		need := int32(max(1, w*h/(sw*sh)/16))
		filled := 0
		for c := 0; c < sw*sh; c++ {
			k := acc[4*c+3]
			if k < need {
				continue
			}
			filled++
			want := [3]uint8{uint8(acc[4*c] / k), uint8(acc[4*c+1] / k), uint8(acc[4*c+2] / k)}
			if got := [3]uint8(spix[3*c : 3*c+3]); got != want {
				t.Fatalf("%dx%d in %dx%d cells, thr %d: cell %d = %v, direct sums give %v", w, h, sw, sh, thr, c, got, want)
			}
		}
		if ok != (filled > 0) {
			t.Fatalf("%dx%d: refineBackground reports %v with %d cells filled", w, h, ok, filled)
		}
	}
}

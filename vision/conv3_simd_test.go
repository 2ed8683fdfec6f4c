package vision

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestConv3Exact checks that conv3 gives the same bits with its taps on
// AVX2 (conv3Planes) as with its Go loops, on the nets' plane sizes and
// on sizes whose outputs do not fill the last group of eight, with
// inputs of mixed sign and size, zeros and denormals among them.
func TestConv3Exact(t *testing.T) {
	if !hasAVX2 {
		t.Skip("no AVX2: conv3 runs its Go loops only")
	}
	defer func(v bool) { useSIMD = v }(useSIMD)
	rng := rand.New(rand.NewPCG(3, 4))
	val := func() float32 {
		switch rng.IntN(10) {
		case 0:
			return 0
		case 1:
			return float32(rng.NormFloat64()) * 1e-39 // denormal
		case 2:
			return float32(rng.NormFloat64() * 1e4)
		}
		return float32(rng.NormFloat64())
	}
	for iter := 0; iter < 300; iter++ {
		s := []int{24, 12, 6, 3, 2, 1, 16, 8, 4, 5, 7}[iter%11]
		cin := 1 + rng.IntN(8)
		cout := 1 + rng.IntN(6)
		in := make([]float32, cin*s*s)
		for i := range in {
			in[i] = val()
		}
		w := make([]float32, cout*cin*9)
		for i := range w {
			w[i] = val()
		}
		b := make([]float32, cout)
		for i := range b {
			b[i] = val()
		}
		p := s + 2
		var outs [2][]float32
		for k, simd := range []bool{false, true} {
			useSIMD = simd
			out := make([]float32, cout*s*s)
			pad := make([]float32, cin*p*p)
			acc := make([]float32, p*p)
			conv3(in, cin, s, w, b, cout, out, pad, acc)
			outs[k] = out
		}
		for i := range outs[0] {
			if math.Float32bits(outs[0][i]) != math.Float32bits(outs[1][i]) {
				t.Fatalf("side %d, %d -> %d planes: output %d is %v on AVX2, %v in the Go loops", s, cin, cout, i, outs[1][i], outs[0][i])
			}
		}
	}
}

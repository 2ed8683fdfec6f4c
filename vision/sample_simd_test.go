package vision

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSampleExact: the face patch resampled on AVX2 (sampleRow) must be
// bit for bit the Go loop's, for rectangles of every size and turn, in
// the frame and across its edges (where the Go loop clamps).
func TestSampleExact(t *testing.T) {
	if !hasAVX2 {
		t.Skip("no AVX2: only the Go loop runs")
	}
	defer func(v bool) { useSIMD = v }(useSIMD)
	rng := rand.New(rand.NewPCG(11, 12))
	const w, h = 97, 71
	pix := make([]uint8, 3*w*h)
	for i := range pix {
		pix[i] = uint8(rng.IntN(256))
	}
	fr := bgrImage{pix: pix, w: w, h: h}
	var a, b faceScratch
	inside := 0
	for iter := 0; iter < 3000; iter++ {
		c := candidate{
			cx: rng.Float64() * w, cy: rng.Float64() * h,
			w: 3 + rng.Float64()*60, h: 3 + rng.Float64()*60,
			angle: (rng.Float64() - 0.5) * 4,
		}
		if iter%7 == 0 {
			c.cx, c.cy = math.Round(c.cx), math.Round(c.cy)+0.5
		}
		if co, si := math.Cos(c.angle), math.Sin(c.angle); sampleInside(fr, c, co, si, 0.94) {
			inside++
			// Every point's four neighbours in the frame, and the last
			// byte of the four-byte read at the lower right one too.
			for j := 0; j < faceN; j++ {
				v := ((float64(j)+0.5)/faceN - 0.5) * c.h * 0.94
				for i := 0; i < faceN; i++ {
					u := ((float64(i)+0.5)/faceN - 0.5) * c.w * 0.94
					x0, y0 := floorInt(c.cx+u*co-v*si-0.5), floorInt(c.cy+u*si+v*co-0.5)
					if x0 < 0 || y0 < 0 || x0+1 >= w || y0+1 >= h || ((y0+1)*w+x0+1)*3+3 >= len(pix) {
						t.Fatalf("%+v: point (%d, %d) reads outside the frame", c, x0, y0)
					}
				}
			}
		}
		useSIMD = false
		a.sample(fr, c)
		useSIMD = true
		b.sample(fr, c)
		for i := range a.patch {
			if math.Float64bits(a.patch[i]) != math.Float64bits(b.patch[i]) {
				t.Fatalf("%+v: patch value %d = %v, Go loop %v", c, i, b.patch[i], a.patch[i])
			}
		}
	}
	if inside < 300 {
		t.Fatalf("only %d of the rectangles took the AVX2 path", inside)
	}
	t.Logf("%d of 3000 rectangles on the AVX2 path", inside)
}

// withKernels runs check with the Go loops and again, where the CPU has
// AVX2, with the AVX2 kernels (useSIMD), putting useSIMD back after.
func withKernels(t *testing.T, check func()) {
	t.Helper()
	defer func(v bool) { useSIMD = v }(useSIMD)
	for _, simd := range []bool{false, true} {
		if simd && !hasAVX2 {
			t.Log("no AVX2: only the Go loops checked")
			continue
		}
		useSIMD = simd
		check()
	}
}

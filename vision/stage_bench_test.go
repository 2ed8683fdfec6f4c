package vision

import (
	"math/rand/v2"
	"path/filepath"
	"testing"

	"gocv.io/x/gocv"
)

// benchFrame is the bench photo's BGR bytes and its width and height.
func benchFrame(b *testing.B) ([]uint8, int, int) {
	m := gocv.IMRead(filepath.Join(photoRoot, "byler_d6", "images", "IMG_20191208_111228.jpg"), gocv.IMReadColor)
	defer m.Close()
	p, err := m.DataPtrUint8()
	if err != nil {
		b.Fatal(err)
	}
	return append([]uint8(nil), p...), m.Cols(), m.Rows()
}

// BenchmarkStageKernels times detection's per-pixel Go kernels on the
// bench photo (the frame against a flat grey background).
func BenchmarkStageKernels(b *testing.B) {
	fpix, w, h := benchFrame(b)
	bpix := make([]uint8, len(fpix))
	for i := range bpix {
		bpix[i] = 128
	}
	mpix, gray, gr := make([]uint8, w*h), make([]uint8, w*h), make([]uint8, w*h)
	b.Run("diffMask", func(b *testing.B) {
		c0 := cpuTime()
		for i := 0; i < b.N; i++ {
			diffMask(fpix, bpix, mpix, gray)
		}
		reportCPU(b, c0)
	})
	b.Run("diffSampled", func(b *testing.B) {
		c0 := cpuTime()
		for i := 0; i < b.N; i++ {
			diffSampled(fpix, bpix, w, h, mpix)
		}
		reportCPU(b, c0)
	})
	b.Run("refineBackground", func(b *testing.B) {
		// Against the frame itself, with some noise: mostly floor, as
		// in a photo.
		same := append([]uint8(nil), fpix...)
		for i := range same {
			if i%97 == 0 {
				same[i] ^= 0x40
			}
		}
		thr := diffSampled(fpix, same, w, h, mpix)
		const sw, sh = 21, 21
		spix := make([]uint8, 3*sw*sh)
		var buf, colBuf []int32
		c0 := cpuTime()
		for i := 0; i < b.N; i++ {
			refineBackground(fpix, mpix, thr, w, h, spix, sw, sh, &buf, &colBuf)
		}
		reportCPU(b, c0)
	})
	diffMask(fpix, bpix, mpix, gray)
	b.Run("gradMask", func(b *testing.B) {
		c0 := cpuTime()
		for i := 0; i < b.N; i++ {
			gradMask(gray, mpix, w, h, gr)
		}
		reportCPU(b, c0)
	})
}

// BenchmarkSample times the face patch's resampling on the bench photo.
func BenchmarkSample(b *testing.B) {
	fpix, w, h := benchFrame(b)
	fr := bgrImage{pix: fpix, w: w, h: h}
	var s faceScratch
	c := candidate{cx: 300.3, cy: 280.7, w: 61.2, h: 58.9, angle: 0.37, edge: 60}
	c0 := cpuTime()
	for i := 0; i < b.N; i++ {
		s.sample(fr, c)
	}
	reportCPU(b, c0)
}

// BenchmarkBlobs times cue 1's pip finder on a pip-like patch.
func BenchmarkBlobs(b *testing.B) {
	var s faceScratch
	randomPatch(rand.New(rand.NewPCG(3, 4)), &s.d, false)
	c0 := cpuTime()
	for i := 0; i < b.N; i++ {
		s.blobs()
	}
	reportCPU(b, c0)
}

package vision

import (
	"image"
	"testing"

	"gocv.io/x/gocv"
)

func benchAreaSrc(b *testing.B) gocv.Mat {
	src := gocv.NewMatWithSize(640, 640, gocv.MatTypeCV8UC3)
	pix, _ := src.DataPtrUint8()
	for i := range pix {
		pix[i] = uint8(i * 7)
	}
	return src
}

func BenchmarkAreaShrinkOpenCV(b *testing.B) {
	src, dst := benchAreaSrc(b), gocv.NewMat()
	defer src.Close()
	defer dst.Close()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		gocv.Resize(src, &dst, image.Pt(21, 21), 0, 0, gocv.InterpolationArea)
	}
	reportCPU(b, cpu0)
}

func BenchmarkAreaShrinkGo(b *testing.B) { benchAreaShrinkGo(b) }

// BenchmarkAreaShrinkGoLoops is BenchmarkAreaShrinkGo without AVX2 (the
// Go loops, as off amd64).
func BenchmarkAreaShrinkGoLoops(b *testing.B) {
	defer func(u bool) { useSIMD = u }(useSIMD)
	useSIMD = false
	benchAreaShrinkGo(b)
}

// benchAreaShrinkGo times areaShrink on benchAreaSrc, 640x640 to 21x21.
func benchAreaShrinkGo(b *testing.B) {
	src, dst := benchAreaSrc(b), gocv.NewMat()
	defer src.Close()
	defer dst.Close()
	var a areaShrink
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		if err := a.resizeArea(src, &dst, 21, 21); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, cpu0)
}

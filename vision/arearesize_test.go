package vision

import (
	"image"
	"math/rand"
	"testing"

	"gocv.io/x/gocv"
)

// TestAreaShrinkExact compares the Go area shrink with gocv.Resize's
// INTER_AREA on random images of many sizes (and a broken kernel must fail
// it: a weight off by one ulp changes some outputs). On AVX2 both the
// AVX2 row sums and the Go loops are checked.
func TestAreaShrinkExact(t *testing.T) {
	defer func(u bool) { useSIMD = u }(useSIMD)
	for _, simd := range []bool{false, true} {
		if simd && !hasAVX2 {
			continue
		}
		useSIMD = simd
		areaShrinkExact(t)
	}
}

func areaShrinkExact(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	var a areaShrink
	want, got := gocv.NewMat(), gocv.NewMat()
	defer want.Close()
	defer got.Close()
	sizes := [][4]int{{640, 640, 21, 21}, {640, 480, 21, 16}, {640, 640, 7, 7}, {641, 639, 20, 23},
		{100, 90, 33, 31}, {360, 240, 12, 8}, {50, 50, 49, 48}, {1280, 720, 42, 24}, {640, 640, 320, 213}}
	for i := 0; i < 40; i++ {
		sw, sh := 8+rng.Intn(700), 8+rng.Intn(700)
		sizes = append(sizes, [4]int{sw, sh, 1 + rng.Intn(sw), 1 + rng.Intn(sh)})
	}
	used := 0
	for _, sz := range sizes {
		src := gocv.NewMatWithSize(sz[1], sz[0], gocv.MatTypeCV8UC3)
		pix, err := src.DataPtrUint8()
		if err != nil {
			t.Fatal(err)
		}
		smooth := rng.Intn(2) == 0
		for i := range pix {
			if smooth && i >= 3 {
				pix[i] = uint8(int(pix[i-3]) + rng.Intn(5) - 2)
			} else {
				pix[i] = uint8(rng.Intn(256))
			}
		}
		if areaUsable(src, sz[2], sz[3]) {
			used++
		}
		gocv.Resize(src, &want, image.Pt(sz[2], sz[3]), 0, 0, gocv.InterpolationArea)
		if err := a.resizeArea(src, &got, sz[2], sz[3]); err != nil {
			t.Fatal(err)
		}
		src.Close()
		wp, _ := want.DataPtrUint8()
		gp, _ := got.DataPtrUint8()
		if len(wp) != len(gp) || got.Cols() != sz[2] || got.Rows() != sz[3] {
			t.Fatalf("%v: size %dx%d, want %dx%d", sz, got.Cols(), got.Rows(), want.Cols(), want.Rows())
		}
		for i := range wp {
			if wp[i] != gp[i] {
				t.Fatalf("%v: byte %d = %d, OpenCV %d", sz, i, gp[i], wp[i])
			}
		}
	}
	if used < len(sizes)/2 {
		t.Fatalf("only %d of %d sizes took the Go path", used, len(sizes))
	}
}

package vision

import (
	"math/rand"
	"testing"
	"unsafe"

	"gocv.io/x/gocv"
)

// TestLabelComponentsLikeOpenCV compares labelComponents with
// gocv.ConnectedComponentsWithStats (labels and stats of every
// component) on random masks of odd and even sizes and densities, blobs
// and noise, and fails on any difference; and the 255 counts against the
// mask. Every other mask has the size of the one before (or its
// transpose) and is labelled into the same buffer (only the old runs are
// cleared); new buffers start with garbage.
func TestLabelComponentsLikeOpenCV(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	var s cclScratch
	var st, full, got []int32
	w, h := 0, 0
	for it := 0; it < 300; it++ {
		if it%2 == 0 {
			w, h = 1+rng.Intn(90), 1+rng.Intn(90)
			if it%10 == 0 {
				w, h = 640, 480+rng.Intn(3)
			}
			got = make([]int32, w*h)
			for i := range got {
				got[i] = int32(rng.Intn(1000))
			}
		} else if it%6 == 1 {
			// The same buffer with rows of another length.
			w, h = h, w
		}
		m := make([]uint8, w*h)
		switch it % 3 {
		case 0: // noise
			p := rng.Float64()
			for i := range m {
				if rng.Float64() < p {
					m[i] = uint8(1 + rng.Intn(255))
					if rng.Intn(2) == 0 {
						m[i] = 255
					}
				}
			}
		default: // blobs
			for b := rng.Intn(60); b > 0; b-- {
				cx, cy, rr := rng.Intn(w), rng.Intn(h), 1+rng.Intn(12)
				for y := max(0, cy-rr); y < min(h, cy+rr); y++ {
					for x := max(0, cx-rr); x < min(w, cx+rr); x++ {
						if (x-cx)*(x-cx)+(y-cy)*(y-cy) < rr*rr && rng.Intn(20) > 0 {
							m[y*w+x] = 255
						}
					}
				}
			}
		}
		mat, err := gocv.NewMatFromBytes(h, w, gocv.MatTypeCV8U, m)
		if err != nil {
			t.Fatal(err)
		}
		lab, stats, cent := gocv.NewMat(), gocv.NewMat(), gocv.NewMat()
		n := gocv.ConnectedComponentsWithStats(mat, &lab, &stats, &cent)
		lb, _ := lab.DataPtrUint8()
		want := unsafe.Slice((*int32)(unsafe.Pointer(&lb[0])), w*h)
		sb, _ := stats.DataPtrUint8()
		wantSt := unsafe.Slice((*int32)(unsafe.Pointer(&sb[0])), 5*n)
		gn := labelComponents(m, w, h, got, &st, &full, &s)
		if gn != n {
			t.Fatalf("%d: %dx%d: %d labels, OpenCV %d", it, w, h, gn, n)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%d: %dx%d: label at (%d,%d) %d, OpenCV %d", it, w, h, i%w, i/w, got[i], want[i])
			}
		}
		wantFull := make([]int32, n)
		for i, v := range m {
			if v == 255 {
				wantFull[want[i]]++
			}
		}
		for i := range wantFull {
			if full[i] != wantFull[i] {
				t.Fatalf("%d: %dx%d: label %d has %d pixels at 255, want %d", it, w, h, i, full[i], wantFull[i])
			}
		}
		for i := 5; i < 5*n; i++ {
			if st[i] != wantSt[i] {
				t.Fatalf("%d: %dx%d: stat %d of label %d: %d, OpenCV %d", it, w, h, i%5, i/5, st[i], wantSt[i])
			}
		}
		mat.Close()
		lab.Close()
		stats.Close()
		cent.Close()
	}
}

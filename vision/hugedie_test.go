package vision

import (
	"math"
	"testing"

	"gocv.io/x/gocv"
)

// TestReadDieLargerThanFrame: an expected die so large that the frame
// scaled to it would be under a pixel (dicewatch read --die-px 35000 on a
// 640 px photo) finds no dice; OpenCV's resize to an empty size threw and
// aborted the process.
func TestReadDieLargerThanFrame(t *testing.T) {
	img := gocv.NewMatWithSize(480, 640, gocv.MatTypeCV8UC3)
	defer img.Close()
	for _, px := range []float64{35000, 1e5, math.Inf(1)} {
		r := NewReader(ReaderOptions{DiePx: px})
		dets, err := r.Read(img)
		r.Close()
		if err != nil || len(dets) != 0 {
			t.Errorf("die px %g: %d dice, err %v; want none", px, len(dets), err)
		}
	}
}

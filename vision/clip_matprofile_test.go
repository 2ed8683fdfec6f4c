//go:build matprofile

package vision

import (
	"testing"

	"gocv.io/x/gocv"
)

// TestClipTapNoMatLeaks hands 200 frames to the clip encoder (many of them
// dropped) and stops it: every Mat it made is closed.
//
//	go test -tags matprofile -run TestClipTapNoMatLeaks ./vision
func TestClipTapNoMatLeaks(t *testing.T) {
	start := gocv.MatProfile.Count()
	frame := gocv.NewMatWithSize(480, 640, gocv.MatTypeCV8UC3)
	n := 0
	enc := startClipEncoder(&ClipTap{Scale: 0.5, Quality: 75, Sink: func([]byte, int, int, int64) { n++ }})
	for i := int64(0); i < 200; i++ {
		enc.offer(frame, i)
	}
	enc.stop()
	frame.Close()
	if n == 0 {
		t.Fatal("no frame encoded")
	}
	if got := gocv.MatProfile.Count(); got != start {
		t.Errorf("MatProfile count %d after the clip encoder, started at %d: Mats leaked", got, start)
	}
}

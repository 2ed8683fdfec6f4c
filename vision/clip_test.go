package vision

import (
	"image"
	"sync"
	"testing"
	"time"

	"gocv.io/x/gocv"
)

// TestClipTapDropsInsteadOfWaiting holds the encoder's sink so every
// buffer fills: the frame loop's offers then return at once and count the
// frames they drop, and what was handed over arrives at half size, in
// order, once the sink is free.
func TestClipTapDropsInsteadOfWaiting(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	var got []int64
	var sizes []image.Point
	tap := &ClipTap{Scale: 0.5, Quality: 70, Buffers: 2, Sink: func(jpeg []byte, w, h int, atMS int64) {
		<-release
		mu.Lock()
		got = append(got, atMS)
		sizes = append(sizes, image.Pt(w, h))
		mu.Unlock()
		if len(jpeg) < 100 || jpeg[0] != 0xFF || jpeg[1] != 0xD8 {
			t.Errorf("frame %d is not a JPEG", atMS)
		}
	}}
	enc := startClipEncoder(tap)
	frame := gocv.NewMatWithSize(720, 1280, gocv.MatTypeCV8UC3)
	defer frame.Close()
	for i := int64(0); i < 10; i++ {
		enc.offer(frame, i) // must not block although the sink does
	}
	// One frame is in the sink, two wait in the buffers: the rest dropped
	// (the first may not have reached the sink yet: then two, plus none).
	if d := tap.Dropped(); d < 7 || d > 8 {
		t.Errorf("dropped %d of 10 with 2 buffers; want 7 or 8", d)
	}
	close(release)
	enc.stop()
	if len(got) != int(10-tap.Dropped()) {
		t.Errorf("sink got %v, dropped %d", got, tap.Dropped())
	}
	for i, p := range sizes {
		if p != image.Pt(640, 360) {
			t.Errorf("frame %d is %v, want 640x360", got[i], p)
		}
		if i > 0 && got[i] <= got[i-1] {
			t.Errorf("frames out of order: %v", got)
		}
	}
}

// BenchmarkClipOffer is what evidence clips cost the frame loop per 1280x720
// frame: the resize to half size into a pooled Mat (the encoder runs on
// its own goroutine and drops what it cannot take).
func BenchmarkClipOffer(b *testing.B) {
	tap := &ClipTap{Scale: 0.5, Quality: 75, Buffers: 4, Sink: func([]byte, int, int, int64) {}}
	enc := startClipEncoder(tap)
	defer enc.stop()
	frame := gocv.NewMatWithSize(720, 1280, gocv.MatTypeCV8UC3)
	defer frame.Close()
	gocv.RandU(&frame, gocv.NewScalar(0, 0, 0, 0), gocv.NewScalar(255, 255, 255, 0))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		enc.offer(frame, int64(i))
		b.StopTimer()
		for len(enc.free) < cap(enc.free) { // as at 30 fps: the encoder keeps up
			time.Sleep(100 * time.Microsecond)
		}
		b.StartTimer()
	}
	b.StopTimer()
	b.ReportMetric(float64(tap.Dropped())/float64(b.N), "dropped/frame")
}

// BenchmarkClipEncode is the encoder goroutine's work per frame (a
// 640x360 JPEG at quality 75): the CPU clips take off the frame loop.
func BenchmarkClipEncode(b *testing.B) {
	frame := gocv.NewMatWithSize(720, 1280, gocv.MatTypeCV8UC3)
	defer frame.Close()
	gocv.RandU(&frame, gocv.NewScalar(0, 0, 0, 0), gocv.NewScalar(255, 255, 255, 0))
	gocv.GaussianBlur(frame, &frame, image.Pt(15, 15), 0, 0, gocv.BorderDefault)
	small := gocv.NewMat()
	defer small.Close()
	gocv.Resize(frame, &small, image.Pt(640, 360), 0, 0, gocv.InterpolationArea)
	params := []int{gocv.IMWriteJpegQuality, 75}
	n := 0
	for i := 0; i < b.N; i++ {
		buf, err := gocv.IMEncodeWithParams(gocv.JPEGFileExt, small, params)
		if err != nil {
			b.Fatal(err)
		}
		n = buf.Len()
		buf.Close()
	}
	b.ReportMetric(float64(n), "bytes/frame")
}

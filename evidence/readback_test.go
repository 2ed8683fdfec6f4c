package evidence

import (
	"math"
	"path/filepath"
	"testing"

	"gocv.io/x/gocv"
)

// TestClipReadsBackWithTrueTimes writes a clip with six frames missing in
// the middle and reads it back with OpenCV: the rate is the stream's, the
// frame count the window's, and frame i shows the picture the camera had
// at from + i/fps (over the gap, the last picture before it).
func TestClipReadsBackWithTrueTimes(t *testing.T) {
	r, written, faults := newTestRecorder(t, Config{PreMS: 1000, PostMS: 1000})
	r.prepare()
	clips := map[string]*clip{}
	var pre []Frame
	var fed []int
	feed := func(k int) {
		pre = r.frame(frame(t, k), clips, pre)
		fed = append(fed, k)
	}
	for k := 0; k < 60; k++ {
		feed(k)
	}
	c := r.Open(frameAt(60))
	r.command(<-r.cmds, clips, pre)
	for k := 60; k < 100; k++ {
		if k >= 70 && k < 76 {
			continue
		}
		feed(k)
	}
	c = r.Close(c, frameAt(99))
	r.command(<-r.cmds, clips, pre)
	for k := 100; k < 150; k++ {
		feed(k)
	}
	if len(*written) != 1 || len(*faults) != 0 {
		t.Fatalf("written %+v, faults %v", *written, *faults)
	}

	vc, err := gocv.VideoCaptureFile(filepath.Join(r.cfg.Dir, c.File))
	if err != nil {
		t.Fatal(err)
	}
	defer vc.Close()
	if fps := vc.Get(gocv.VideoCaptureFPS); math.Abs(fps-30) > 0.01 {
		t.Errorf("clip rate %g fps, want 30", fps)
	}
	img := gocv.NewMat()
	defer img.Close()
	gray := gocv.NewMat()
	defer gray.Close()
	n := 0
	for vc.Read(&img) && !img.Empty() {
		gocv.CvtColor(img, &gray, gocv.ColorBGRToGray)
		level := gray.Mean().Val1
		// The source frame the camera showed at this slot's time.
		at := float64(c.FromMS) + float64(n)*1000/30
		want := -1
		for _, k := range fed {
			if float64(frameAt(k)) <= at+1000/60.0 {
				want = k
			}
		}
		if wantLevel := float64(8 + (want*3)%240); math.Abs(level-wantLevel) > 1.5 {
			t.Errorf("frame %d (%.0f ms) has grey %.1f; want %.0f (source frame %d)", n, at, level, wantLevel, want)
		}
		n++
	}
	// One second, 39 intervals of the throw, one second: 30+39+30 intervals.
	if want := 100; n != want {
		t.Errorf("read %d frames back, want %d (%.2f s at 30 fps)", n, want, float64(want-1)/30)
	}
}

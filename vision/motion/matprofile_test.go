//go:build matprofile

package motion

import (
	"errors"
	"path/filepath"
	"testing"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/calibration"
	"github.com/dicewatch/dicewatch/vision/scene"
	"github.com/dicewatch/dicewatch/vision/source"
)

// TestNoMatLeaks plays a generated recording of at least 500 frames from an
// MJPG file through the file source and the tracker, and checks that every
// Mat made on the way was closed:
//
//	go test -tags matprofile -run TestNoMatLeaks -v ./vision/motion
func TestNoMatLeaks(t *testing.T) {
	start := gocv.MatProfile.Count()
	dir := t.TempDir()
	m, err := scene.Generate(dir, scene.Config{Seed: 11, Throws: 5, Camera: scene.Camera{Width: 640, Height: 480, FPS: 30}})
	if err != nil {
		t.Fatal(err)
	}
	cal, err := calibration.Load(filepath.Join(dir, scene.FileCalibration))
	if err != nil {
		t.Fatal(err)
	}
	src, err := source.Open("file:"+filepath.Join(dir, scene.FileVideo)+"?pace=fast", source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tr := New(Config{DiePx: cal.DiePx(calibration.Point{X: 320, Y: 240}), ZoneOf: ExitZoneOf(cal)})
	frame := gocv.NewMat()
	n, rests := 0, 0
	for {
		f, err := src.Read(&frame)
		if errors.Is(err, source.ErrEndOfStream) {
			break
		}
		if err != nil {
			t.Fatalf("frame %d: %v", n, err)
		}
		if r := tr.Update(frame, f.AtMS); r.AtRest != nil {
			rests++
		}
		n++
	}
	frame.Close()
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d frames (manifest %d), %d at-rest events for %d throws; Mat count %d at start, %d at end",
		n, m.Frames, rests, m.Throws, start, gocv.MatProfile.Count())
	if rests != m.Throws {
		t.Errorf("%d at-rest events from the MJPG recording, want one per throw (%d)", rests, m.Throws)
	}
	if n < 500 {
		t.Errorf("only %d frames played, want >= 500", n)
	}
	if got := gocv.MatProfile.Count(); got != start {
		var b []byte
		gocv.MatProfile.WriteTo(&sliceWriter{&b}, 1)
		t.Errorf("Mat count %d at end, %d at start: leaked\n%s", got, start, b)
	}
}

type sliceWriter struct{ b *[]byte }

func (w *sliceWriter) Write(p []byte) (int, error) { *w.b = append(*w.b, p...); return len(p), nil }

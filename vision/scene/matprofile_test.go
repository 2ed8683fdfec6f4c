//go:build matprofile

package scene

import (
	"testing"

	"gocv.io/x/gocv"
)

// TestNoMatLeaks generates a whole session (render, encode, write) and a
// batch of still scenes, and checks that every Mat was closed. Run with
// go test -tags matprofile -run NoMatLeaks ./vision/scene/
func TestNoMatLeaks(t *testing.T) {
	start := gocv.MatProfile.Count()
	m, err := Generate(t.TempDir(), Config{Seed: 11, Throws: 3, Kinds: []Kind{KindCocked, KindOffTable, KindStacked}, Camera: Camera{Width: 640, Height: 360}})
	if err != nil {
		t.Fatal(err)
	}
	if m.Frames < 300 {
		t.Errorf("only %d frames generated", m.Frames)
	}
	s, err := NewSession(Config{Seed: 12, Throws: 1, Camera: Camera{Width: 480, Height: 270}})
	if err != nil {
		t.Fatal(err)
	}
	img := gocv.NewMat()
	for k := 0; k < s.Frames(); k++ {
		if _, err := s.Render(k, &img); err != nil {
			t.Fatal(err)
		}
	}
	img.Close()
	s.Close()
	for seed := int64(0); seed < 20; seed++ {
		m, _, err := Still(seed, StillOptions{})
		if err != nil {
			t.Fatal(err)
		}
		m.Close()
	}
	if err := WriteStills(t.TempDir(), 100, 3, StillOptions{Width: 320, Height: 320}); err != nil {
		t.Fatal(err)
	}
	if got := gocv.MatProfile.Count(); got != start {
		t.Errorf("Mat count %d after generating, started at %d", got, start)
	}
}

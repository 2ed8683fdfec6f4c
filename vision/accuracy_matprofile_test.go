//go:build matprofile

package vision

import (
	"bytes"
	"image"
	"path/filepath"
	"testing"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/vision/motion"
)

// TestMatProfileAllPhotos reads every test photo, through both Read and
// ReadRegion, then a rendered table calibrated and with the at-rest
// reader, and checks that no gocv.Mat outlives the Reader. Run with
// `go test -tags matprofile -run MatProfile ./vision/`.
func TestMatProfileAllPhotos(t *testing.T) {
	start := gocv.MatProfile.Count()
	r := NewReader(ReaderOptions{})
	for _, set := range []string{"byler_d6", "matteo_webcam"} {
		ps := loadPhotoSet(t, set)
		for _, name := range ps.images {
			path := filepath.Join(photoRoot, set, "images", name)
			if _, err := r.ReadFile(path); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			img := gocv.IMRead(path, gocv.IMReadColor)
			roi := image.Rect(0, 0, img.Cols(), img.Rows())
			roi.Min = roi.Min.Add(roi.Size().Div(4))
			if _, err := r.ReadRegion(img, roi); err != nil {
				t.Fatalf("%s: region: %v", path, err)
			}
			img.Close()
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	// A calibrated read and the daemon's at-rest read (against the empty
	// table, around the tracked places) of a rendered table with two dice.
	dice := []synthDie{{cx: 600, cy: 380, edge: 30, angle: 0.3, value: 5}, {cx: 680, cy: 350, edge: 30, angle: 1.1, value: 2}}
	frame, bg := drawTable(1280, 720, dice, 1), drawTable(1280, 720, nil, 2)
	rc := NewReader(ReaderOptions{ExpectedEdgePx: func(x, y float64) float64 { return 30 }})
	if _, err := rc.Read(frame); err != nil {
		t.Fatal(err)
	}
	ar := &motion.AtRest{}
	for _, d := range dice {
		box := image.Rect(int(d.cx-d.edge), int(d.cy-d.edge), int(d.cx+d.edge), int(d.cy+d.edge))
		ar.Dice = append(ar.Dice, motion.Candidate{Box: box, CX: d.cx, CY: d.cy})
	}
	got, err := readAtRest(rc, frame, bg, ar, func(x, y float64) float64 { return 30 })
	if err != nil || len(got) != 2 {
		t.Fatalf("at-rest read: %d dice, %v", len(got), err)
	}
	if err := rc.Close(); err != nil {
		t.Fatal(err)
	}
	frame.Close()
	bg.Close()
	if end := gocv.MatProfile.Count(); end != start {
		var b bytes.Buffer
		gocv.MatProfile.WriteTo(&b, 1)
		t.Fatalf("Mat count %d at start, %d after reading every photo:\n%s", start, end, b.String())
	}
}

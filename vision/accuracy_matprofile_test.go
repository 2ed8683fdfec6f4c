//go:build matprofile

package vision

import (
	"bytes"
	"image"
	"path/filepath"
	"testing"

	"gocv.io/x/gocv"
)

// TestMatProfileAllPhotos reads every test photo, through both Read and
// ReadRegion, and checks that no gocv.Mat outlives the Reader. Run with
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
	if end := gocv.MatProfile.Count(); end != start {
		var b bytes.Buffer
		gocv.MatProfile.WriteTo(&b, 1)
		t.Fatalf("Mat count %d at start, %d after reading every photo:\n%s", start, end, b.String())
	}
}

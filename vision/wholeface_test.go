package vision

import (
	"path/filepath"
	"testing"

	"gocv.io/x/gocv"
)

// TestWholeFaceLooks checks wholeFace on byler_d6 dice a second look
// reads as 1 or 2. Three 1s and 2s that only a second look reads must be
// given (they stay unread without wholeFace); four larger faces whose
// second look sees one or two of their pips (a 3 as 1 twice, a 2 as 1
// twice) must not be (without moreMarks each is given that value).
func TestWholeFaceLooks(t *testing.T) {
	ps := loadPhotoSet(t, "byler_d6")
	r := NewReader(ReaderOptions{})
	defer r.Close()
	cases := []struct {
		image string
		label int  // index among the image's labelled dice
		read  bool // the label's value must be read (else: value or unread)
	}{
		{"IMG_20191209_095800.jpg", 4, true},
		{"IMG_20191209_095929.jpg", 0, true},
		{"IMG_20191209_100358.jpg", 2, true},
		{"IMG_20191208_111548.jpg", 13, false},
		{"IMG_20191209_095910.jpg", 5, false},
		{"IMG_20191208_113012.jpg", 7, false},
		{"IMG_20191209_095405.jpg", 5, false},
	}
	for _, tc := range cases {
		img := gocv.IMRead(filepath.Join(photoRoot, ps.name, "images", tc.image), gocv.IMReadColor)
		if img.Empty() {
			t.Fatalf("%s: cannot read", tc.image)
		}
		dets, err := r.Read(img)
		img.Close()
		if err != nil {
			t.Fatal(err)
		}
		truth := ps.dice[tc.image]
		g := truth[tc.label]
		got, found := 0, false
		for _, p := range match(truth, dets) {
			if p[0] == tc.label {
				got, found = dets[p[1]].Value, true
			}
		}
		switch {
		case !found:
			t.Errorf("%s label %d (a %d): not detected", tc.image, tc.label, g.value)
		case tc.read && got != g.value:
			t.Errorf("%s label %d: read %d, want %d", tc.image, tc.label, got, g.value)
		case got != 0 && got != g.value:
			t.Errorf("%s label %d: read %d, want %d or unreadable", tc.image, tc.label, got, g.value)
		}
	}
}

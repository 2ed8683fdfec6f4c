package vision

import (
	"image"
	"path/filepath"
	"testing"

	"gocv.io/x/gocv"
)

// TestRestGivePipBox: when the rest pass reads a value for a die left
// unread (readFrame: a die-sized part of the rest that holds the unread
// die's centre), the die's pip box is the box of the pips that look
// counted, not the unread read's (on matteo_webcam's two_44 it bounded
// one pip of the 2 read, so the label, drawn round both, was not matched).
func TestRestGivePipBox(t *testing.T) {
	var gave []givenPipBox
	restGiveTrace = func(d *Detection, pb image.Rectangle) { gave = append(gave, givenPipBox{d.CX, d.CY, pb}) }
	defer func() { restGiveTrace = nil }()
	r := NewReader(ReaderOptions{})
	defer r.Close()
	n := checkGivenPipBoxes(t, r, [][2]string{
		{"matteo_webcam", "two_13.jpg"},
		{"matteo_webcam", "two_44.jpg"},
		{"byler_d6", "IMG_20191208_111446.jpg"},
		{"byler_d6", "IMG_20191209_100200.jpg"},
	}, &gave)
	if n == 0 {
		t.Fatal("the rest pass gave no unread die a value on these photos")
	}
}

// givenPipBox is a value a look after the first gave: the die's centre
// and the pip box of the pips that look counted.
type givenPipBox struct {
	cx, cy float64
	pb     image.Rectangle
}

// checkGivenPipBoxes reads each photo (set, file name) with r, gave
// collecting (through the caller's trace) the values a look gives while
// it is read: each such die's pip box must be the look's, within the
// picture. It returns how many dice it checked.
func checkGivenPipBoxes(t *testing.T, r *Reader, photos [][2]string, gave *[]givenPipBox) int {
	t.Helper()
	n := 0
	for _, im := range photos {
		img := gocv.IMRead(filepath.Join(photoRoot, im[0], "images", im[1]), gocv.IMReadColor)
		if img.Empty() {
			t.Fatalf("%s: cannot read", im[1])
		}
		*gave = (*gave)[:0]
		dets, err := r.Read(img)
		bounds := image.Rect(0, 0, img.Cols(), img.Rows())
		img.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range *gave {
			for _, d := range dets {
				if d.CX != g.cx || d.CY != g.cy {
					continue
				}
				n++
				if want := g.pb.Intersect(bounds); g.pb.Empty() || d.PipBox != want {
					t.Errorf("%s: %d at %.0f,%.0f: pip box %v, the look's %v", im[1], d.Value, d.CX, d.CY, d.PipBox, want)
				}
			}
		}
	}
	return n
}

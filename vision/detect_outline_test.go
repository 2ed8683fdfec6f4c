package vision

import (
	"image"
	"image/color"
	"math"
	"testing"

	"gocv.io/x/gocv"
)

// TestFillOpenOutlines: a square outline open on one side, alone on the
// floor, is filled to its hull; an open ring (a round hole's edge), an
// open square around another region, an outline too large and a
// filled square are left as they are.
func TestFillOpenOutlines(t *testing.T) {
	const w, h = 200, 120
	white := color.RGBA{255, 255, 255, 0}
	// openSquare draws three sides of a square and part of the fourth.
	openSquare := func(m *gocv.Mat, r image.Rectangle) {
		gocv.Line(m, r.Min, image.Pt(r.Max.X, r.Min.Y), white, 1)
		gocv.Line(m, r.Min, image.Pt(r.Min.X, r.Max.Y), white, 1)
		gocv.Line(m, image.Pt(r.Max.X, r.Min.Y), r.Max, white, 1)
		gocv.Line(m, image.Pt(r.Min.X, r.Max.Y), image.Pt(r.Min.X+r.Dx()/3, r.Max.Y), white, 1)
	}
	cases := []struct {
		name string
		draw func(m *gocv.Mat)
		at   image.Point // a pixel inside the outline
		want bool        // filled
	}{
		{"open square alone", func(m *gocv.Mat) { openSquare(m, image.Rect(40, 40, 70, 70)) }, image.Pt(55, 60), true},
		{"open circle", func(m *gocv.Mat) {
			for a := 0.0; a < 1.6*math.Pi; a += 0.02 {
				m.SetUCharAt(60+int(math.Round(15*math.Sin(a))), 55+int(math.Round(15*math.Cos(a))), 255)
			}
		}, image.Pt(55, 60), false},
		{"open outline round a region", func(m *gocv.Mat) {
			// A region already in the mask, inside the outline but not
			// touching it: the outline is not alone on the floor.
			openSquare(m, image.Rect(40, 40, 70, 70))
			gocv.Rectangle(m, image.Rect(44, 44, 66, 66), white, -1)
		}, image.Pt(67, 68), false},
		{"open square too large", func(m *gocv.Mat) { openSquare(m, image.Rect(20, 20, 110, 110)) }, image.Pt(60, 80), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := gocv.NewMatWithSize(h, w, gocv.MatTypeCV8U)
			defer m.Close()
			tc.draw(&m)
			fillOpenOutlines(&m, 60, 40)
			if got := m.GetUCharAt(tc.at.Y, tc.at.X) == 255; got != tc.want {
				t.Fatalf("inside pixel filled %v, want %v", got, tc.want)
			}
		})
	}
	// A filled square is not an open outline: nothing outside it is
	// added. (Closed outlines are filled before, by fillMatHoles.)
	m := gocv.NewMatWithSize(h, w, gocv.MatTypeCV8U)
	defer m.Close()
	gocv.Rectangle(&m, image.Rect(40, 40, 70, 70), white, -1)
	before := gocv.CountNonZero(m)
	fillOpenOutlines(&m, 60, 40)
	if after := gocv.CountNonZero(m); after != before {
		t.Fatalf("a filled square changed: %d pixels, was %d", after, before)
	}
}

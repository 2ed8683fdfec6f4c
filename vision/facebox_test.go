package vision

import (
	"image"
	"testing"
)

// angledDieFrame draws an ivory die's top face (40..80 x 30..70) with one
// pip at its centre on a lightly textured floor; with side, the side face
// turned to an angled camera below it (two pips) and a shadow on its
// right; without, lighter streaks of floor just above and below it. It
// returns the frame and the pips' box.
func angledDieFrame(side bool) (bgrImage, image.Rectangle) {
	const w, h = 120, 120
	fr := bgrImage{pix: make([]uint8, 3*w*h), w: w, h: h}
	set := func(x, y int, b, g, r uint8) {
		o := (y*w + x) * 3
		fr.pix[o], fr.pix[o+1], fr.pix[o+2] = b, g, r
	}
	disc := func(cx, cy, rad int) {
		for y := cy - rad; y <= cy+rad; y++ {
			for x := cx - rad; x <= cx+rad; x++ {
				if (x-cx)*(x-cx)+(y-cy)*(y-cy) <= rad*rad {
					set(x, y, 40, 40, 45)
				}
			}
		}
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			// Wood-like streaks: a few levels up and down.
			v := uint8(((x + 2*y) / 3 % 4) * 3)
			set(x, y, 140+v, 160+v, 175+v)
		}
	}
	if !side {
		// Lighter streaks of floor a few pixels above and below the
		// die, as wood grain makes.
		for _, y0 := range []int{24, 72} {
			for y := y0; y < y0+4; y++ {
				for x := 20; x < 100; x++ {
					set(x, y, 165, 185, 200)
				}
			}
		}
	}
	if side {
		for y := 35; y < 96; y++ {
			for x := 80; x < 92; x++ {
				set(x, y, 105, 115, 125) // shadow
			}
		}
		for y := 70; y < 95; y++ {
			for x := 40; x < 80; x++ {
				set(x, y, 200, 205, 208) // side face, a little darker
			}
		}
		disc(50, 82, 3)
		disc(70, 82, 3)
	}
	for y := 30; y < 70; y++ {
		for x := 40; x < 80; x++ {
			set(x, y, 214, 220, 222)
		}
	}
	disc(60, 50, 4)
	return fr, image.Rect(56, 46, 65, 55)
}

func TestFaceAroundPips(t *testing.T) {
	want := image.Rect(40, 30, 80, 70)
	near := func(a, b image.Rectangle) bool {
		d := func(p, q int) bool { return p-q <= 1 && q-p <= 1 }
		return d(a.Min.X, b.Min.X) && d(a.Min.Y, b.Min.Y) && d(a.Max.X, b.Max.X) && d(a.Max.Y, b.Max.Y)
	}
	for _, tc := range []struct {
		name string
		side bool
		blob image.Rectangle
	}{
		{"straight down", false, image.Rect(36, 26, 84, 74)},
		{"angled, side face and shadow", true, image.Rect(36, 26, 94, 99)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fr, pips := angledDieFrame(tc.side)
			got, ok := faceAroundPips(fr, tc.blob, pips, 40)
			if !ok || !near(got, want) {
				t.Errorf("face box %v, %v; want %v (to a pixel)", got, ok, want)
			}
		})
	}
	// A pip on a face the floor's colour: no box (the footprint cannot
	// be told from the floor).
	fr, pips := angledDieFrame(false)
	for y := 30; y < 70; y++ {
		for x := 40; x < 80; x++ {
			if o := (y*fr.w + x) * 3; fr.pix[o] > 100 {
				fr.pix[o], fr.pix[o+1], fr.pix[o+2] = 140, 160, 175
			}
		}
	}
	if got, ok := faceAroundPips(fr, image.Rect(36, 26, 84, 74), pips, 40); ok {
		t.Errorf("face the floor's colour: face box %v, want none", got)
	}
}

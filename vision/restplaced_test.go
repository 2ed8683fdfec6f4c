package vision

import (
	"image"
	"math"
	"path/filepath"
	"testing"

	"gocv.io/x/gocv"
)

// TestRestReadPlacedOnPips rereads red dice lying wholly on the layout's
// red print (testdata/restplaced, cut from the 2,000-throw sessions of
// seeds 5 and 8): their body does not stand out from the empty table, only their pips
// and bits of rim, so the regrown region filled under 0.8 of the die's
// square and the reader called them unreadable and, their outline not
// square, not flat: a flat die handed to rules as no-roll evidence. Placed
// on their pips at the expected die size, they must read right and flat.
// One of them (throw 471, a six) stood out square enough but only 0.87 die
// edges across, so that its face missed a row of pips: a face that narrow
// is read again as partly seen. Another (throw 378, a one) is placed by
// its lone pip 0.20 die edges from where the region put it, past the
// 0.15 allowed a face that stood out more. And one (seed 8 throw 117, a
// five) stood out as 0.98 by 1.11 die edges, out of square by more than a
// tenth: unread, it too is read again.
func TestRestReadPlacedOnPips(t *testing.T) {
	got := readCrops(t, "testdata/restplaced")
	for name, r := range got {
		if r.got != r.truth || !r.flat {
			t.Errorf("%s: read %d (flat %v), truth %d, flat", name, r.got, r.flat, r.truth)
		}
	}
}

// TestRestPlacedNotNearWhitePrint: a face placed on its pips alone is not
// read where the empty table has white print near it, since a pip lying
// on that print would not stand out to be counted. The same crop as in
// TestRestReadPlacedOnPips, with a white mark painted on the table (in
// the empty-table frame and the frame alike, so nothing new stands out)
// 0.7 die edges from the die's centre along both axes, must turn
// unreadable.
func TestRestPlacedNotNearWhitePrint(t *testing.T) {
	base := filepath.Join("testdata/restplaced", "sseed-5-t0372-d0-v4-e16.15")
	const edge = 16.15
	load := func(f string) bgrPatch {
		m := gocv.IMRead(f, gocv.IMReadColor)
		defer m.Close()
		p, ok := patchOf(m, image.Rect(0, 0, m.Cols(), m.Rows()))
		if !ok {
			t.Fatalf("%s: not an image", f)
		}
		return p
	}
	fr, bg := load(base+"-fr.png"), load(base+"-bg.png")
	cx, cy := float64(fr.w)/2, float64(fr.h)/2
	read := func() (int, bool) {
		for _, d := range readRest(fr, bg, edge) {
			if math.Abs(d.cx-cx) < edge && math.Abs(d.cy-cy) < edge {
				return d.value, d.placed
			}
		}
		return 0, false
	}
	if v, placed := read(); v != 4 || !placed {
		t.Fatalf("untouched crop: read %d (placed %v), want a 4 placed on its pips", v, placed)
	}
	// Find the die's pips to paint the mark clear of the die: the corner
	// of the 0.75-edge box around the centre farthest from every pip.
	var d restDie
	for _, rd := range readRest(fr, bg, edge) {
		if math.Abs(rd.cx-cx) < edge && math.Abs(rd.cy-cy) < edge {
			d = rd
		}
	}
	mx, my, far := 0, 0, -1.0
	for _, s := range [][2]float64{{1, 1}, {1, -1}, {-1, 1}, {-1, -1}} {
		x, y := d.cx+0.7*edge*s[0], d.cy+0.7*edge*s[1]
		near := math.Inf(1)
		for _, p := range d.pips {
			near = math.Min(near, math.Hypot(p[0]-x, p[1]-y))
		}
		if near > far {
			far, mx, my = near, int(x), int(y)
		}
	}
	for y := my - 1; y <= my+1; y++ {
		for x := mx - 1; x <= mx+1; x++ {
			for _, p := range []*bgrPatch{&fr, &bg} {
				i := (y*p.w + x) * 3
				p.pix[i], p.pix[i+1], p.pix[i+2] = 235, 235, 235
			}
		}
	}
	if v, _ := read(); v != 0 {
		t.Errorf("with white print %.1f edges from the nearest pip: read %d, want unreadable", far/edge, v)
	}
}

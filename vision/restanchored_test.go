package vision

import (
	"path/filepath"
	"testing"

	"github.com/dicewatch/dicewatch/rules"
)

// TestRestReadAnchoredOnPips rereads red dice lying mostly on the
// layout's red print (testdata/restanchored, cut from the 2,000-throw
// sessions of seeds 10 and 12): only the part of the body over the felt
// and the pips stood out from the empty table, less than half a die's
// area, so regrow dropped the region and the first pass's partial face,
// unread and out of square, was called not flat: false no-roll evidence
// on a flat die (seed 12 throws 1066, 1171, 1915 and 1992, seed 10 throw
// 855). Placed by their pips and by the felt that shows where they are
// not (anchorSquare), they must read right and flat.
func TestRestReadAnchoredOnPips(t *testing.T) {
	got := readCrops(t, "testdata/restanchored")
	if len(got) < 5 {
		t.Fatalf("only %d crops in testdata/restanchored", len(got))
	}
	for name, r := range got {
		if r.got != r.truth || !r.flat {
			t.Errorf("%s: read %d (flat %v), truth %d, flat", name, r.got, r.flat, r.truth)
		}
	}
}

// TestRestAnchoredNotOnFelt: a square placed on its pips must not take
// in felt that shows no die. The two of seed 12 throw 1171 has one pip
// over the felt and one over the red print; with the pip on the print
// painted out (the frame there set to the empty table's colour, as if
// the print hid it), the pip left over the felt, with the body around it,
// must not be read as a one by a square centred on it that takes in felt
// beside the die.
func TestRestAnchoredNotOnFelt(t *testing.T) {
	fr, bg, _, edge := loadCropPair(t, "testdata/restanchored/sseed-12-t1171-d1-v2-e16.15-fr.png")
	fr.pix = append([]byte(nil), fr.pix...)
	w, h := fr.w, fr.h
	white := make([]bool, w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			b, g, r := fr.at(x, y)
			white[y*w+x] = min(b, g, r) >= restWhite
		}
	}
	painted := 0
	for _, c := range components(white, w, h) {
		b, g, r := bg.at(c[0]%w, c[0]/w)
		if !(r > 120 && g < 100 && b < 100) {
			continue // the pip over the felt stays
		}
		for _, p := range c {
			px, py := p%w, p/w
			for y := max(0, py-2); y <= min(h-1, py+2); y++ {
				for x := max(0, px-2); x <= min(w-1, px+2); x++ {
					copy(fr.pix[(y*w+x)*3:][:3], bg.pix[(y*w+x)*3:][:3])
				}
			}
		}
		painted++
	}
	if painted != 1 {
		t.Fatalf("%d white marks over the print, want 1", painted)
	}
	if d, ok := centreRead(fr, bg, edge); ok && d.value != 0 {
		t.Errorf("a two with one pip painted out read %d (placed %v, regrown %v)", d.value, d.placed, d.regrown)
	}
}

// TestRestReadRaisedOnPrint rereads red dice resting on another die and
// lying partly on the layout's red print (testdata/restraised: seed 12
// throw 45, a three over white and red print, and seed 10 throw 286, a
// six, each drawn about 1.18 times the calibrated die). The square of the
// calibrated die size that regrow placed on them left 0.15 to 0.43 die
// areas of clear difference outside it, so they stayed unread, their size
// from the part that stood out (0.84, 1.01): no stacked evidence. Read in
// a larger square (raisedRead), they must read right with a size ratio
// past the stacked cut.
func TestRestReadRaisedOnPrint(t *testing.T) {
	frs, _ := filepath.Glob(filepath.Join("testdata/restraised", "*-fr.png"))
	if len(frs) < 2 {
		t.Fatalf("only %d crops in testdata/restraised", len(frs))
	}
	for _, fn := range frs {
		fp, bp, v, edge := loadCropPair(t, fn)
		d, ok := centreRead(fp, bp, edge)
		det := d.toDetection(edge, DefaultMinFlatness)
		if !ok || d.value != v || det.SizeRatio < rules.DefaultStackedSizeRatio {
			t.Errorf("%s: read %d at size %.2f (found %v), want %d at size %.2f (the stacked cut) or more", filepath.Base(fn), d.value, det.SizeRatio, ok, v, rules.DefaultStackedSizeRatio)
		}
	}
}

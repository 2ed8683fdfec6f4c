package vision

import (
	"math"
	"testing"
)

// TestLatticeShape fits pip layouts placed by a known map and checks the
// reaches latticeShape measures: a 5 and a 6 shortened to 0.9 across a
// turned axis, and a 2 (its pips in a row: the similarity scale only).
func TestLatticeShape(t *testing.T) {
	permsOnce.Do(buildPerms)
	const reach, short, px = 0.27, 0.9, 100.0
	place := func(v int, turn, axis float64) [][2]float64 {
		// Shorten along axis, then turn; layout units to patch units.
		ca, sa := math.Cos(axis), math.Sin(axis)
		ct, st := math.Cos(turn), math.Sin(turn)
		var out [][2]float64
		for _, p := range pipOffsets[v] {
			u, w := p[0]*ca+p[1]*sa, -p[0]*sa+p[1]*ca
			u *= short
			x, y := u*ca-w*sa, u*sa+w*ca
			out = append(out, [2]float64{0.01 + reach*(x*ct-y*st), -0.02 + reach*(x*st+y*ct)})
		}
		return out
	}
	for _, v := range []int{5, 6} {
		c := place(v, 0.2, 0.7)
		lv, _, fit := matchLayout(c)
		if lv != v {
			t.Fatalf("value %d: layout fit %d", v, lv)
		}
		l := latticeShape(c, fit, px)
		if math.Abs(l.major-reach*px) > 0.5 || math.Abs(l.minor-short*reach*px) > 0.5 {
			t.Errorf("value %d: major %.2f minor %.2f, want %.2f and %.2f", v, l.major, l.minor, reach*px, short*reach*px)
		}
	}
	c := place(2, 0.1, 0)
	c[0], c[1] = [2]float64{-reach, -reach}, [2]float64{reach, reach}
	lv, _, fit := matchLayout(c)
	l := latticeShape(c, fit, px)
	if lv != 2 || l.major != 0 || math.Abs(l.scale-reach*px) > 0.5 {
		t.Errorf("value 2: layout %d, lattice %+v, want scale %.1f and no major", lv, l, reach*px)
	}
}

// TestSizeFromPips reads rendered dice, flat and at a stacked die's size
// (1.15 times the expected edge), calibrated with the dice's pip spread:
// the size ratio from the pips must land within 4% of the truth. The
// face's outline alone (no PipSpread) misses that on these dice.
func TestSizeFromPips(t *testing.T) {
	const edge, big = 28.0, 1.15
	var dice []synthDie
	for v := 2; v <= 6; v++ {
		dice = append(dice, synthDie{cx: float64(90 + 170*(v-2)), cy: 130, edge: edge, angle: 0.3 + 0.1*float64(v), value: v},
			synthDie{cx: float64(90 + 170*(v-2)), cy: 330, edge: edge * big, angle: 0.5 - 0.1*float64(v), value: v})
	}
	img := drawTable(900, 460, dice, 11)
	defer img.Close()
	// drawTable's pips sit at 0.25 of the edge from the centre.
	r := NewReader(ReaderOptions{DiePx: edge, PipSpread: 0.25})
	defer r.Close()
	got, err := r.Read(img)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dice {
		want := d.edge / edge
		found := false
		for _, g := range got {
			if math.Hypot(g.CX-d.cx, g.CY-d.cy) > d.edge/4 {
				continue
			}
			found = true
			if g.Value != d.value {
				t.Errorf("die %d at %.0f,%.0f: read %d", d.value, d.cx, d.cy, g.Value)
			}
			if math.Abs(g.SizeRatio-want) > 0.04 {
				t.Errorf("die %d at %.0f,%.0f: size ratio %.3f, want %.2f", d.value, d.cx, d.cy, g.SizeRatio, want)
			}
		}
		if !found {
			t.Errorf("die %d at %.0f,%.0f not found", d.value, d.cx, d.cy)
		}
	}
}

// TestLatticeShapeNaN: a centre that is not a number gives no lattice
// rather than a shift by -1 (which panics).
func TestLatticeShapeNaN(t *testing.T) {
	permsOnce.Do(buildPerms)
	var c [][2]float64
	for _, p := range pipOffsets[5] {
		c = append(c, [2]float64{0.27 * p[0], 0.27 * p[1]})
	}
	_, _, fit := matchLayout(c)
	c[0] = [2]float64{math.NaN(), math.NaN()}
	if l := latticeShape(c, fit, 100); l.major != 0 {
		t.Errorf("NaN centre: lattice %+v, want no reach", l)
	}
}

// TestSampleInsideRefusesNegativeSizes: the AVX2 resampling trusts
// sampleInside to keep its reads in the frame; a rectangle with a
// negative or NaN side must go to the clamping Go loop.
func TestSampleInsideRefusesNegativeSizes(t *testing.T) {
	fr := bgrImage{pix: make([]uint8, 64*64*3), w: 64, h: 64}
	for _, c := range []candidate{
		{cx: 32, cy: 32, w: 10, h: -200},
		{cx: 32, cy: 32, w: -200, h: 10},
		{cx: 32, cy: 32, w: math.NaN(), h: 10},
	} {
		if sampleInside(fr, c, 1, 0, sampleShrink) {
			t.Errorf("%+v: sampleInside true", c)
		}
	}
	if !sampleInside(fr, candidate{cx: 32, cy: 32, w: 10, h: 10}, 1, 0, sampleShrink) {
		t.Error("a 10x10 rectangle in the middle of a 64x64 frame: sampleInside false")
	}
}

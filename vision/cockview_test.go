package vision

import (
	"math"
	"testing"
)

// TestFootAside checks footAside's conditions: it needs a known view,
// under straightView, a footprint recorded for the face's present
// centre, and the footprint's centre footAsideMin edges or more off it.
func TestFootAside(t *testing.T) {
	straight := func(x, y float64) float64 { return 0 }
	leaning := func(x, y float64) float64 { return 20 }
	d := Detection{CX: 100, CY: 100}
	d.foot = [4]float64{100, 100 + footAsideMin*40, 100, 100}
	for _, c := range []struct {
		name string
		view func(x, y float64) float64
		d    Detection
		want bool
	}{
		{"no view", nil, d, false},
		{"not known here", func(x, y float64) float64 { return math.NaN() }, d, false},
		{"straight", straight, d, true},
		{"leaning", leaning, d, false},
		{"moved since", straight, func() Detection { e := d; e.CX = 101; return e }(), false},
		{"no footprint", straight, Detection{CX: 100, CY: 100}, false},
		{"near the face", straight, func() Detection { e := d; e.foot[1] = 100 + 0.9*footAsideMin*40; return e }(), false},
	} {
		r := &Reader{opts: ReaderOptions{ViewTiltDeg: c.view}}
		if got := r.footAside(c.d, 40); got != c.want {
			t.Errorf("%s: footAside %v, want %v", c.name, got, c.want)
		}
	}
}

// TestCockCutAt checks that the cocked call's cut does not fall as the
// view leans (a flat die shows more side face the more it leans), and
// that without a view the cut is cockNotFlat.
func TestCockCutAt(t *testing.T) {
	r := &Reader{}
	if c := r.cockCut(Detection{}); c != cockNotFlat {
		t.Errorf("no view: cut %v, want %v", c, cockNotFlat)
	}
	// A calibration that does not fix the view gives NaN (see
	// calibration.ViewTiltDeg): the same cut as no view.
	r.opts.ViewTiltDeg = func(x, y float64) float64 { return math.NaN() }
	if c := r.cockCut(Detection{}); c != cockNotFlat {
		t.Errorf("view not known here: cut %v, want %v", c, cockNotFlat)
	}
	prev := 0.0
	for tilt := 0.0; tilt <= 45; tilt += 0.5 {
		c := cockCutAt(tilt)
		if c < prev || c <= 0 || c >= 1 {
			t.Errorf("tilt %.1f: cut %v after %v", tilt, c, prev)
		}
		prev = c
	}
}

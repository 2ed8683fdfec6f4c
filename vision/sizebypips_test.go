package vision

import (
	"math"
	"testing"
)

// TestSizeByPips pins sizeByPips on made-up detections: who serves as the
// ruler (first-pass, flat, one die's size, two pips or more), that a
// first-pass face's size is only ever raised, that a face with no ruler
// beside it or a one keeps its size, and that no size or edge comes out
// NaN.
func TestSizeByPips(t *testing.T) {
	flat := func(ps, size float64) Detection {
		return Detection{Value: 4, Flat: true, pipScale: ps, SizeRatio: size, EdgePx: 16 * size}
	}
	regrown := func(ps, size float64) Detection {
		d := flat(ps, size)
		d.regrown = true
		return d
	}
	one := Detection{Value: 1, Flat: true, SizeRatio: 1.0, EdgePx: 16}
	cases := []struct {
		name string
		in   []Detection
		want []float64 // size ratios after
	}{
		{"no ruler: a one beside", []Detection{regrown(0.31, 0.9), one}, []float64{0.9, 1.0}},
		{"no ruler: a regrown face beside", []Detection{regrown(0.31, 0.9), regrown(0.27, 0.9)}, []float64{0.9, 0.9}},
		{"no ruler: the other not flat", []Detection{regrown(0.31, 0.9), {Value: 3, pipScale: 0.27, SizeRatio: 1}}, []float64{0.9, 1}},
		{"no ruler: the other past one die's size", []Detection{regrown(0.31, 0.9), flat(0.27, 1.15)}, []float64{0.9, 1.15}},
		{"a regrown face takes the ratio, up or down", []Detection{regrown(0.324, 0.9), regrown(0.243, 0.95), flat(0.27, 1.0)}, []float64{1.2, 0.9, 1.0}},
		{"a first-pass face is only raised", []Detection{flat(0.324, 1.05), flat(0.27, 1.08)}, []float64{1.2, 1.08}},
		{"the rulers are chosen before any size changes", []Detection{flat(0.27, 1.0), flat(0.27, 1.0), flat(0.32, 1.0)}, []float64{1.0, 1.0, 0.32 / 0.27}},
		// Each face is measured against the others: with an even count
		// left, the mean of the middle two.
		{"the median ruler", []Detection{regrown(0.3, 0.9), flat(0.2, 1), flat(0.25, 1), flat(0.3, 1), flat(0.5, 1)}, []float64{0.3 / 0.275, 1, 1, 1.2, 2}},
		{"no area measured", []Detection{regrown(0.3, 0), flat(0.25, 1)}, []float64{1.2, 1}},
	}
	for _, tc := range cases {
		ds := append([]Detection(nil), tc.in...)
		sizeByPips(ds)
		for i, d := range ds {
			if math.Abs(d.SizeRatio-tc.want[i]) > 1e-9 {
				t.Errorf("%s: die %d size ratio %.4f, want %.4f", tc.name, i, d.SizeRatio, tc.want[i])
			}
			if math.IsNaN(d.SizeRatio) || math.IsNaN(d.EdgePx) || math.IsInf(d.EdgePx, 0) {
				t.Errorf("%s: die %d size ratio %v, edge %v", tc.name, i, d.SizeRatio, d.EdgePx)
			}
		}
	}
}

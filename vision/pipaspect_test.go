package vision

import (
	"math"
	"testing"
)

// TestPipAspect checks pipAspect on canonical layouts of 4, 5 and 6 pips
// turned and squeezed along a direction of their own: it measures the
// squeeze, whatever the turn, and 1 for a layout seen square.
func TestPipAspect(t *testing.T) {
	for _, n := range []int{4, 5, 6} {
		for _, variant := range canonical[n] {
			for _, turn := range []float64{0, 10, 33, 45, 71} {
				for _, lean := range []float64{0, 20, 45, 80} {
					for _, squeeze := range []float64{1, 0.95, 0.85} {
						ct, st := math.Cos(turn*math.Pi/180), math.Sin(turn*math.Pi/180)
						cl, sl := math.Cos(lean*math.Pi/180), math.Sin(lean*math.Pi/180)
						fine := make([][2]float64, len(variant))
						var mx, my float64
						for k, c := range variant {
							x, y := 8*(c[0]*ct-c[1]*st)+40, 8*(c[0]*st+c[1]*ct)+30
							// squeeze along the lean direction about (40, 30)
							u, v := (x-40)*cl+(y-30)*sl, -(x-40)*sl+(y-30)*cl
							u *= squeeze
							fine[k] = [2]float64{40 + u*cl - v*sl, 30 + u*sl + v*cl}
							mx += fine[k][0]
							my += fine[k][1]
						}
						mx /= float64(len(fine))
						my /= float64(len(fine))
						if got := pipAspect(fine, mx, my); math.Abs(got-squeeze) > 1e-6 {
							t.Errorf("%d pips turned %.0f, squeezed %.2f along %.0f: aspect %.4f", n, turn, squeeze, lean, got)
						}
					}
				}
			}
		}
	}
	if got := pipAspect([][2]float64{{0, 0}, {4, 4}, {8, 8}}, 4, 4); got != 0 {
		t.Errorf("a 3: aspect %.3f, want 0 (no measure)", got)
	}
}

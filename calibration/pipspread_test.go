package calibration

import (
	"math"
	"testing"
)

// TestCheckPipSpread: zero (not given) and the plausible range pass; a
// spacing in mm, the pips' full span, a negative value and NaN do not.
func TestCheckPipSpread(t *testing.T) {
	for _, s := range []float64{0, MinPipSpread, 0.27, MaxPipSpread} {
		if err := CheckPipSpread(s); err != nil {
			t.Errorf("%g: %v, want accepted", s, err)
		}
	}
	for _, s := range []float64{-0.27, 0.1, 0.54, 4.5, math.NaN(), math.Inf(1)} {
		if CheckPipSpread(s) == nil {
			t.Errorf("%g accepted, want refused", s)
		}
	}
}

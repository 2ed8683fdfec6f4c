package vision

import (
	"testing"

	"github.com/dicewatch/dicewatch/rules"
)

// TestRestOneFlatThroughJPEG: the two flat ones of tuning seed 12
// (2,000 throws through the camera's JPEG at quality 80) that measured
// largest of its 506 flat single ones read on the first pass
// (testdata/restoneflat, throws 1594 and 1651): their areas alone say
// 1.095 and 1.097 die edges, past restOneDieSize, and printFilled adds
// nothing to them (a restPrintLike of 120 would: 1.123, past the cut). On
// the rendered frames no flat one of seeds 1 to 10 and 24 to 33 reached
// 1.09 (session 20, rest33); through JPEG a flat one's margin to the
// rules' stacked cut is about 0.02 edges. Each must stay a flat 1 under
// the cut.
func TestRestOneFlatThroughJPEG(t *testing.T) {
	cut := rules.DefaultStackedSizeRatio
	for _, c := range readOneCrops(t, "testdata/restoneflat") {
		if c.det.Value != c.value || !c.det.Flat || c.det.SizeRatio >= cut {
			t.Errorf("%s: read %d flat %v at size %.3f, want a flat %d under %.2f", c.name, c.det.Value, c.det.Flat, c.det.SizeRatio, c.value, cut)
		}
	}
}

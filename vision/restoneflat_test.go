package vision

import (
	"math"
	"path/filepath"
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
	frs, _ := filepath.Glob(filepath.Join("testdata/restoneflat", "*-fr.png"))
	if len(frs) == 0 {
		t.Fatal("no crops in testdata/restoneflat")
	}
	for _, fn := range frs {
		fp, bp, v, edge := loadCropPair(t, fn)
		d, ok := centreRead(fp, bp, edge)
		if !ok {
			t.Fatalf("%s: no die read at the centre", filepath.Base(fn))
		}
		det := d.toDetection(edge, DefaultMinFlatness)
		area := math.Sqrt(float64(d.area)) / edge
		t.Logf("%s: value %d flat %v area size %.3f filled %.3f size %.3f", filepath.Base(fn), det.Value, det.Flat, area, d.filled, det.SizeRatio)
		if det.Value != v || !det.Flat || det.SizeRatio >= cut {
			t.Errorf("%s: read %d flat %v at size %.3f, want a flat %d under %.2f", filepath.Base(fn), det.Value, det.Flat, det.SizeRatio, v, cut)
		}
	}
}

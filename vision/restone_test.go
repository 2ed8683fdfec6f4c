package vision

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/dicewatch/dicewatch/rules"
)

// TestRestOneSizedByPrintFill: seed 33 throw 1107 die 1 (testdata/reststackedone),
// a red 1 resting on another die (true size 1.20) over red print, stood out
// clearly over 1.24 die areas only (size 1.11, under the rules' stacked cut)
// and was left a flat 1. With the red print its outline's hull bridges
// taken in (printFilled) it must reach the cut. The flat ones of
// testdata/restcrops (four of them through JPEG, whose hull takes in felt)
// must keep the size their area gives them, under the cut.
func TestRestOneSizedByPrintFill(t *testing.T) {
	cut := rules.DefaultStackedSizeRatio
	frs, _ := filepath.Glob(filepath.Join("testdata/reststackedone", "*-fr.png"))
	if len(frs) == 0 {
		t.Fatal("no crops in testdata/reststackedone")
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
		if det.Value != v {
			t.Errorf("%s: read %d, want %d", filepath.Base(fn), det.Value, v)
		}
		if area >= cut {
			t.Errorf("%s: its area alone measures %.3f, at the cut: the crop no longer shows the case", filepath.Base(fn), area)
		}
		if det.SizeRatio < cut {
			t.Errorf("%s: a stacked one at size %.3f, want %.2f or more", filepath.Base(fn), det.SizeRatio, cut)
		}
	}
	frs, _ = filepath.Glob(filepath.Join("testdata/restcrops", "*-v1-*-fr.png"))
	ones := 0
	for _, fn := range frs {
		fp, bp, _, edge := loadCropPair(t, fn)
		d, ok := centreRead(fp, bp, edge)
		if !ok || d.value != 1 || d.filled == 0 {
			continue
		}
		ones++
		det := d.toDetection(edge, DefaultMinFlatness)
		if want := math.Sqrt(float64(d.area)) / edge; det.SizeRatio != want || det.SizeRatio >= cut {
			t.Errorf("%s: a flat one at size %.3f (filled %.3f), want its area's %.3f", filepath.Base(fn), det.SizeRatio, d.filled, want)
		}
	}
	if ones < 3 {
		t.Fatalf("only %d flat ones read on the first pass in testdata/restcrops", ones)
	}
}

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
	for _, c := range readOneCrops(t, "testdata/reststackedone") {
		if c.det.Value != c.value {
			t.Errorf("%s: read %d, want %d", c.name, c.det.Value, c.value)
		}
		if c.area >= cut {
			t.Errorf("%s: its area alone measures %.3f, at the cut: the crop no longer shows the case", c.name, c.area)
		}
		if c.det.SizeRatio < cut {
			t.Errorf("%s: a stacked one at size %.3f, want %.2f or more", c.name, c.det.SizeRatio, cut)
		}
	}
	frs, _ := filepath.Glob(filepath.Join("testdata/restcrops", "*-v1-*-fr.png"))
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

// oneCrop is a crop pair of a die read at its centre (readOneCrops).
type oneCrop struct {
	name  string    // the frame crop's file name
	value int       // the value its name gives
	det   Detection // the read
	area  float64   // the size its outline's area alone gives, in edges
}

// readOneCrops reads the die at the centre of every crop pair in dir
// (files *-fr.png with their -bg.png), failing the test when dir holds
// none or a crop has no die read at its centre.
func readOneCrops(t *testing.T, dir string) []oneCrop {
	t.Helper()
	frs, _ := filepath.Glob(filepath.Join(dir, "*-fr.png"))
	if len(frs) == 0 {
		t.Fatalf("no crops in %s", dir)
	}
	var out []oneCrop
	for _, fn := range frs {
		fp, bp, v, edge := loadCropPair(t, fn)
		d, ok := centreRead(fp, bp, edge)
		if !ok {
			t.Fatalf("%s: no die read at the centre", filepath.Base(fn))
		}
		det := d.toDetection(edge, DefaultMinFlatness)
		area := math.Sqrt(float64(d.area)) / edge
		t.Logf("%s: value %d flat %v area size %.3f filled %.3f size %.3f", filepath.Base(fn), det.Value, det.Flat, area, d.filled, det.SizeRatio)
		out = append(out, oneCrop{name: filepath.Base(fn), value: v, det: det, area: area})
	}
	return out
}

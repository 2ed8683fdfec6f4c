package vision

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/dicewatch/dicewatch/calibration"
	"github.com/dicewatch/dicewatch/rules"
)

// TestPipRulerLearns pins pipRuler on made-up detections: no ruler until
// pipRulerMin dice have been seen, the median of the last pipRulerKeep,
// what it learns from (first-pass flat dice of two pips or more that still
// measure one die's top once sized), that a lone die is sized against it
// (raised only, a regrown face up or down), that a frame's own rulers come
// first, and that reset forgets it.
func TestPipRulerLearns(t *testing.T) {
	flat := func(ps, size float64) Detection {
		return Detection{Value: 4, Flat: true, pipScale: ps, SizeRatio: size, EdgePx: 16 * size}
	}
	var pr pipRuler
	for i := 0; i < pipRulerMin-1; i++ {
		pr.size([]Detection{flat(0.27, 1.0)})
	}
	// Not learned yet: a lone die keeps its size.
	if s := pr.scale(); s != 0 {
		t.Fatalf("ruler %.3f after %d dice, want none", s, pipRulerMin-1)
	}
	ds := []Detection{flat(0.324, 1.0)}
	pr.size(ds)
	if ds[0].SizeRatio != 1.0 {
		t.Errorf("lone die before the ruler is learned: size %.3f, want 1.0", ds[0].SizeRatio)
	}
	// That die was learned (nothing to measure it against): the median
	// is still 0.27.
	if s := pr.scale(); math.Abs(s-0.27) > 1e-9 {
		t.Fatalf("ruler %.4f, want 0.27", s)
	}
	// Lone dice now measured against it.
	for _, tc := range []struct {
		d    Detection
		want float64
	}{
		{flat(0.324, 1.0), 1.2},  // raised
		{flat(0.27, 1.05), 1.05}, // never lowered
		{func() Detection { d := flat(0.243, 0.95); d.regrown = true; return d }(), 0.9},
		{Detection{Value: 1, Flat: true, SizeRatio: 1.0, EdgePx: 16}, 1.0}, // a one has no spread
	} {
		ds := []Detection{tc.d}
		pr.size(ds)
		if math.Abs(ds[0].SizeRatio-tc.want) > 1e-9 || math.IsNaN(ds[0].EdgePx) {
			t.Errorf("lone die of spread %.3f size %.2f: size %.4f edge %.2f, want %.4f", tc.d.pipScale, tc.d.SizeRatio, ds[0].SizeRatio, ds[0].EdgePx, tc.want)
		}
	}
	// The raised die (1.2) was not learned, nor the regrown face: the
	// ruler stays at 0.27.
	if s := pr.scale(); math.Abs(s-0.27) > 1e-9 {
		t.Fatalf("ruler %.4f after a raised and a regrown die, want 0.27", s)
	}
	// A frame's own rulers come first.
	ds = []Detection{flat(0.324, 1.0), flat(0.30, 1.0)}
	pr.size(ds)
	if math.Abs(ds[0].SizeRatio-0.324/0.30) > 1e-9 {
		t.Errorf("die beside a ruler in its frame: size %.4f, want %.4f", ds[0].SizeRatio, 0.324/0.30)
	}
	// The last pipRulerKeep only.
	for i := 0; i < pipRulerKeep; i++ {
		pr.size([]Detection{flat(0.25, 1.0)})
	}
	if s := pr.scale(); math.Abs(s-0.25) > 1e-9 {
		t.Errorf("ruler %.4f after %d dice of 0.25, want 0.25", s, pipRulerKeep)
	}
	// The calibration in force: the same one keeps the ruler, another
	// (a reload, even an equal one) starts a new ruler.
	calA, calB := &calibration.Calibration{}, &calibration.Calibration{}
	pr.forCalibration(calA)
	if s := pr.scale(); s != 0 {
		t.Errorf("ruler %.4f after the first calibration was named, want none (learned before it)", s)
	}
	for i := 0; i < pipRulerMin; i++ {
		pr.size([]Detection{flat(0.25, 1.0)})
	}
	pr.forCalibration(calA)
	if s := pr.scale(); math.Abs(s-0.25) > 1e-9 {
		t.Errorf("ruler %.4f under the same calibration, want 0.25", s)
	}
	pr.forCalibration(calB)
	if s := pr.scale(); s != 0 {
		t.Errorf("ruler %.4f after a new calibration, want none", s)
	}
	for i := 0; i < pipRulerMin; i++ {
		pr.size([]Detection{flat(0.25, 1.0)})
	}
	pr.reset()
	if s := pr.scale(); s != 0 {
		t.Errorf("ruler %.4f after reset, want none", s)
	}
	// A nil ruler is sizeByPips.
	var none *pipRuler
	ds = []Detection{flat(0.324, 1.0)}
	none.size(ds)
	if ds[0].SizeRatio != 1.0 {
		t.Errorf("nil ruler: lone die size %.3f, want 1.0", ds[0].SizeRatio)
	}
}

// TestRestPipRulerLoneStacked: a die resting on another, alone in its
// frame, read flat on the first pass with an outline of one die's size
// (testdata/reststacked: seed 13 throw 294, a 4 at size 0.97, and seed 14
// throw 1446, a 4 at 1.09, both truly about 1.17 times a die's edge) had
// no other die to measure its pips against and was published as a valid
// roll. Read as the daemon reads throws one after another, after the
// flat dice of testdata/restcrops each alone in its frame, the ruler
// learned from those sizes the stacked dice past the stacked cut, while
// none of the flat dice, measured against it, reaches the cut.
func TestRestPipRulerLoneStacked(t *testing.T) {
	cut := rules.DefaultStackedSizeRatio
	var pr pipRuler
	frs, _ := filepath.Glob(filepath.Join("testdata/restcrops", "*-fr.png"))
	flat, measured := 0, 0
	for _, fn := range frs {
		fp, bp, _, edge := loadCropPair(t, fn)
		d, ok := centreRead(fp, bp, edge)
		if !ok || d.value == 0 {
			continue
		}
		ds := []Detection{d.toDetection(edge, DefaultMinFlatness)}
		if pr.scale() > 0 && ds[0].pipScale > 0 {
			measured++
		}
		pr.size(ds)
		if ds[0].SizeRatio >= cut {
			t.Errorf("%s: flat die alone sized %.3f against the ruler %.4f, at the stacked cut", filepath.Base(fn), ds[0].SizeRatio, pr.scale())
		}
		flat++
	}
	if pr.scale() == 0 || measured < 5 {
		t.Fatalf("%d flat dice of testdata/restcrops: ruler %.4f, %d measured against it", flat, pr.scale(), measured)
	}
	t.Logf("%d flat dice alone, %d of them measured against the ruler, none at the cut", flat, measured)
	frs, _ = filepath.Glob(filepath.Join("testdata/reststacked", "*-fr.png"))
	if len(frs) == 0 {
		t.Fatal("no crops in testdata/reststacked")
	}
	for _, fn := range frs {
		fp, bp, v, edge := loadCropPair(t, fn)
		d, ok := centreRead(fp, bp, edge)
		if !ok || d.value != v {
			t.Errorf("%s: read %d, want %d", filepath.Base(fn), d.value, v)
			continue
		}
		alone := []Detection{d.toDetection(edge, DefaultMinFlatness)}
		sizeByPips(alone)
		ds := []Detection{d.toDetection(edge, DefaultMinFlatness)}
		pr.size(ds)
		t.Logf("%s: spread %.4f, ruler %.4f, size %.3f without the ruler, %.3f with it", filepath.Base(fn), ds[0].pipScale, pr.scale(), alone[0].SizeRatio, ds[0].SizeRatio)
		if ds[0].SizeRatio < cut {
			t.Errorf("%s: stacked die alone sized %.3f against the ruler, under the stacked cut %.2f", filepath.Base(fn), ds[0].SizeRatio, cut)
		}
	}
}

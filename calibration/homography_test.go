package calibration_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dicewatch/dicewatch/calibration"
	"github.com/dicewatch/dicewatch/calibration/caltest"
)

// gridErrors maps a grid over the table through the true mm->px
// homography and back through the fitted px->mm one, and returns the RMS
// error over the grid and the largest error at the table's corners.
func gridErrors(t *testing.T, cam caltest.Camera, fit [9]float64, L, W float64) (rms, corner float64) {
	t.Helper()
	var ss float64
	n := 0
	for x := 0.0; x <= L; x += L / 20 {
		for y := 0.0; y <= W; y += W / 10 {
			p := calibration.Point{X: x, Y: y}
			q := calibration.Apply(fit, calibration.Apply(cam.MMToPx, p))
			e := math.Hypot(q.X-x, q.Y-y)
			ss += e * e
			n++
		}
	}
	for _, p := range []calibration.Point{{X: 0, Y: 0}, {X: L, Y: 0}, {X: L, Y: W}, {X: 0, Y: W}} {
		q := calibration.Apply(fit, calibration.Apply(cam.MMToPx, p))
		corner = math.Max(corner, math.Hypot(q.X-p.X, q.Y-p.Y))
	}
	return math.Sqrt(ss / float64(n)), corner
}

func TestFitHomographyRecoversKnownCamera(t *testing.T) {
	for _, tc := range []struct {
		name     string
		template string
		noisePx  float64
		wantRMS  float64 // mm, across the table
		wantCorn float64 // mm, at the corners
	}{
		{"craps exact", calibration.TemplateCraps12, 0, 1e-6, 1e-6},
		{"craps 0.3px noise", calibration.TemplateCraps12, 0.3, 1, 2},
		{"backgammon 0.3px noise", calibration.TemplateBackgammon, 0.3, 1, 2},
		{"paigow 0.3px noise", calibration.TemplatePaiGow, 0.3, 1, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cam, err := caltest.Scene(tc.template)
			if err != nil {
				t.Fatal(err)
			}
			tpl, _ := calibration.LoadTemplate(tc.template)
			rng := rand.New(rand.NewPCG(1, 2))
			var pairs []calibration.Pair
			for _, m := range tpl.Aruco.Markers {
				for _, c := range tpl.Aruco.Corners(m) {
					px := calibration.Apply(cam.MMToPx, c)
					px.X += rng.NormFloat64() * tc.noisePx
					px.Y += rng.NormFloat64() * tc.noisePx
					pairs = append(pairs, calibration.Pair{Px: px, MM: c})
				}
			}
			f, err := calibration.FitHomography(pairs)
			if err != nil {
				t.Fatal(err)
			}
			L, W := tpl.Table[2][0], tpl.Table[2][1]
			rms, corner := gridErrors(t, cam, f.H, L, W)
			t.Logf("%d pairs, fit rms %.3f mm, table rms %.3f mm, worst corner %.3f mm", len(pairs), f.RMSMM, rms, corner)
			if rms > tc.wantRMS || corner > tc.wantCorn {
				t.Errorf("table rms %.4f mm (want <= %g), corner %.4f mm (want <= %g)", rms, tc.wantRMS, corner, tc.wantCorn)
			}
			if len(f.ErrorsMM) != len(pairs) || f.MaxMM < f.RMSMM {
				t.Errorf("errors: %d for %d pairs, max %g < rms %g", len(f.ErrorsMM), len(pairs), f.MaxMM, f.RMSMM)
			}
		})
	}
}

func TestFitHomographyDegenerate(t *testing.T) {
	p := func(x, y float64) calibration.Point { return calibration.Point{X: x, Y: y} }
	for _, tc := range []struct {
		name  string
		pairs []calibration.Pair
	}{
		{"three", []calibration.Pair{{p(0, 0), p(0, 0)}, {p(1, 0), p(1, 0)}, {p(0, 1), p(0, 1)}}},
		{"collinear", []calibration.Pair{{p(0, 0), p(0, 0)}, {p(1, 1), p(1, 0)}, {p(2, 2), p(0, 1)}, {p(3, 3), p(1, 1)}}},
		{"same point", []calibration.Pair{{p(5, 5), p(0, 0)}, {p(5, 5), p(1, 0)}, {p(5, 5), p(0, 1)}, {p(5, 5), p(1, 1)}}},
		{"nan", []calibration.Pair{{p(math.NaN(), 0), p(0, 0)}, {p(1, 0), p(1, 0)}, {p(0, 1), p(0, 1)}, {p(1, 1), p(1, 1)}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := calibration.FitHomography(tc.pairs); !errors.Is(err, calibration.ErrDegenerate) {
				t.Errorf("err = %v, want ErrDegenerate", err)
			}
		})
	}
}

func BenchmarkFitHomography(b *testing.B) {
	cam, _ := caltest.Scene(calibration.TemplateCraps12)
	tpl, _ := calibration.LoadTemplate(calibration.TemplateCraps12)
	var pairs []calibration.Pair
	for _, m := range tpl.Aruco.Markers {
		for _, c := range tpl.Aruco.Corners(m) {
			pairs = append(pairs, calibration.Pair{Px: calibration.Apply(cam.MMToPx, c), MM: c})
		}
	}
	for b.Loop() {
		if _, err := calibration.FitHomography(pairs); err != nil {
			b.Fatal(err)
		}
	}
}

func ExampleFitHomography() {
	// Four table corners clicked in a still, and a fifth mark as a check.
	pairs := []calibration.Pair{
		{Px: calibration.Point{X: 62, Y: 186}, MM: calibration.Point{X: 0, Y: 0}},
		{Px: calibration.Point{X: 1862, Y: 204}, MM: calibration.Point{X: 3660, Y: 0}},
		{Px: calibration.Point{X: 1826, Y: 884}, MM: calibration.Point{X: 3660, Y: 1420}},
		{Px: calibration.Point{X: 94, Y: 902}, MM: calibration.Point{X: 0, Y: 1420}},
	}
	f, err := calibration.FitHomography(pairs)
	if err != nil {
		panic(err)
	}
	centre := calibration.Apply(f.H, calibration.Point{X: 960, Y: 545})
	fmt.Printf("rms %.3f mm; image centre at (%.0f, %.0f) mm\n", f.RMSMM, centre.X, centre.Y)
	// Output: rms 0.000 mm; image centre at (1781, 698) mm
}

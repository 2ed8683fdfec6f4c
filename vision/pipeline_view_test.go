package vision

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/dicewatch/dicewatch/calibration"
)

// TestCalibratedOptionsView: the daemon's reader takes the camera's view
// from the calibration it reads with now: with a pose (camera.focal_px)
// the angle and the vertical at each place are the calibration's; after a
// reload to a measured tilt the angle is that tilt and the vertical not
// known (NaN, which the reader takes as no view).
func TestCalibratedOptionsView(t *testing.T) {
	dir := filepath.Join("..", "testdata", "calibration")
	focal, err := calibration.Load(filepath.Join(dir, "valid-focal-px.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	measured, err := calibration.Load(filepath.Join(dir, "valid-view-tilt.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	now := focal
	opts := calibratedOptions(func() *calibration.Calibration { return now }, func(x, y float64) float64 { return 40 }, func(x, y float64) float64 { return 43 })
	if opts.ExpectedEdgePx(10, 10) != 40 {
		t.Errorf("ExpectedEdgePx: not the die edge given")
	}
	if opts.AcrossEdgePx == nil || opts.AcrossEdgePx(10, 10) != 43 {
		t.Errorf("AcrossEdgePx: not the edge across given")
	}
	for _, p := range []calibration.Point{{X: 960, Y: 540}, {X: 200, Y: 900}, {X: 1700, Y: 300}} {
		up, want := opts.ViewUp(p.X, p.Y), focal.ViewUp(p)
		if up != [2]float64{want.X, want.Y} || math.IsNaN(up[0]) || math.Hypot(up[0], up[1]) < 0.05 {
			t.Errorf("focal_px at %v: ViewUp %v, want the calibration's %v (not NaN, not straight down)", p, up, want)
		}
		if got := opts.ViewTiltDeg(p.X, p.Y); got != focal.ViewTiltDeg(p) {
			t.Errorf("focal_px at %v: ViewTiltDeg %v, want %v", p, got, focal.ViewTiltDeg(p))
		}
	}
	now = measured // a reload
	if up := opts.ViewUp(960, 540); !math.IsNaN(up[0]) || !math.IsNaN(up[1]) {
		t.Errorf("measured tilt: ViewUp %v, want NaN", up)
	}
	if got := opts.ViewTiltDeg(960, 540); got != 12.5 {
		t.Errorf("measured tilt: ViewTiltDeg %v, want 12.5", got)
	}
}

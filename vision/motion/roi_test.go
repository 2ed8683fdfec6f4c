package motion

import (
	"image"
	"image/color"
	"math"
	"testing"

	"gocv.io/x/gocv"
)

// A die crossing a region of interest: candidates are reported in
// full-frame pixels, and it leaves through the region's edge, named by
// ZoneOf at the crossing point.
func TestRegionOfInterest(t *testing.T) {
	tests := []struct {
		name     string
		roi      image.Rectangle
		scale    int
		dy       int // die moves down by this per frame after crossing
		wantEdge Edge
	}{
		{"whole frame, out the right", image.Rectangle{}, 0, 0, EdgeRight},
		{"inner region, out its right", image.Rect(40, 30, 280, 200), 0, 0, EdgeRight},
		{"inner region scale 2, out its bottom", image.Rect(40, 30, 280, 200), 2, 20, EdgeBottom},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var zoneCalls [][2]float64
			tr := New(Config{ROI: tc.roi, DiePx: 10, Scale: tc.scale, ZoneOf: func(x, y float64) string {
				zoneCalls = append(zoneCalls, [2]float64{x, y})
				return "somewhere"
			}})
			defer tr.Close()
			defer tr.Close() // twice is fine
			frame := gocv.NewMatWithSize(240, 320, gocv.MatTypeCV8UC3)
			defer frame.Close()
			var exits []Exit
			var worst float64
			for k := 0; k < 30; k++ {
				frame.SetTo(gocv.NewScalar(60, 110, 50, 0))
				x, y := -30+14*k, 100+max(0, k-12)*tc.dy
				gocv.Rectangle(&frame, image.Rect(x, y, x+10, y+10), color.RGBA{220, 220, 220, 0}, -1)
				r := tr.Update(frame, int64(k)*33)
				exits = append(exits, r.Exits...)
				for _, c := range r.Dice {
					// whole die inside the region: centre within a working pixel
					roi := tc.roi
					if roi.Empty() {
						roi = image.Rect(0, 0, 320, 240)
					}
					if image.Rect(x, y, x+10, y+10).In(roi) {
						worst = math.Max(worst, math.Hypot(c.CX-(float64(x)+4.5), c.CY-(float64(y)+4.5)))
					}
				}
			}
			if worst > 1.5 {
				t.Errorf("candidate centre off by %.2f px in full-frame coordinates", worst)
			}
			if len(exits) != 1 {
				t.Fatalf("exits %+v, want one", exits)
			}
			e := exits[0]
			if e.Edge != tc.wantEdge || e.Zone != "somewhere" || len(zoneCalls) != 1 {
				t.Errorf("exit %+v (zone calls %v), want edge %s", e, zoneCalls, tc.wantEdge)
			}
			roi := tc.roi
			if roi.Empty() {
				roi = image.Rect(0, 0, 320, 240)
			}
			onBorder := math.Abs(e.X-float64(roi.Min.X)) < 2 || math.Abs(e.X-float64(roi.Max.X)) < 2 ||
				math.Abs(e.Y-float64(roi.Min.Y)) < 2 || math.Abs(e.Y-float64(roi.Max.Y)) < 2
			if !onBorder {
				t.Errorf("exit point (%.1f, %.1f) not on the region border %v", e.X, e.Y, roi)
			}
		})
	}
}

func TestUpdateIgnoresUnusableFrames(t *testing.T) {
	tr := New(Config{})
	defer tr.Close()
	empty := gocv.NewMat()
	defer empty.Close()
	grey := gocv.NewMatWithSize(10, 10, gocv.MatTypeCV8UC1)
	defer grey.Close()
	for i, m := range []gocv.Mat{empty, grey} {
		r := tr.Update(m, int64(i))
		if r.Phase != Idle || r.Motion || r.Frame != i {
			t.Errorf("frame %d: %+v", i, r)
		}
	}
}

// A camera that comes back at another size restarts the tracker instead of
// reading outside its buffers.
func TestFrameSizeChange(t *testing.T) {
	tr := New(Config{ROI: image.Rect(100, 100, 300, 200)})
	defer tr.Close()
	for i, sz := range [][2]int{{320, 240}, {320, 240}, {160, 120}, {160, 120}, {640, 480}} {
		m := gocv.NewMatWithSize(sz[1], sz[0], gocv.MatTypeCV8UC3)
		r := tr.Update(m, int64(i)*33)
		m.Close()
		if r.Motion || r.Phase != Idle {
			t.Errorf("frame %d (%dx%d): %+v", i, sz[0], sz[1], r)
		}
	}
}

package vision

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"testing"

	"github.com/dicewatch/dicewatch/calibration"
	"github.com/dicewatch/dicewatch/vision/scene"
)

// Stills drawn through a real pinhole camera (scene.PinholeOptions):
// DICEWATCH_STILL_CAMERA=pinhole draws them (stillOptions), the camera
// DICEWATCH_STILL_CAMERA_H mm over the table (a height or a range A-B;
// 600-1200 unless set), at each still's own tilt, with the focal length
// DICEWATCH_STILL_FOCAL times the picture's width (unset: the focal
// length that keeps the still's die edge at the picture's centre).
//
// The calibrated read of such a still is given what the daemon gets from
// a table calibration of that camera (vision/pipeline.go): the
// calibration is made from 30 reference points the camera sees, with its
// focal length as camera.focal_px, and gives the die edge at each place
// (Calibration.DiePx, as ExpectedEdgePx: stillEdgeAt), the angle of the
// line of sight off vertical (ViewTiltDeg) and the picture of a die's
// vertical edge (ViewUp). DICEWATCH_STILL_VIEW=none withholds the view
// (the edge at each place only), to see what the view adds.

// stillPinholeOptions is the pinhole option DICEWATCH_STILL_CAMERA asks
// for (ok false without it).
func stillPinholeOptions(t testing.TB) (o scene.PinholeOptions, ok bool) {
	switch v := os.Getenv("DICEWATCH_STILL_CAMERA"); v {
	case "":
		return o, false
	case "pinhole":
	default:
		t.Fatalf("DICEWATCH_STILL_CAMERA=%q: want pinhole", v)
	}
	o.HeightMM = scene.HeightRange{Min: 600, Max: 1200}
	if v := os.Getenv("DICEWATCH_STILL_CAMERA_H"); v != "" {
		o.HeightMM = parseHeightRange(t, v)
	}
	if v := os.Getenv("DICEWATCH_STILL_FOCAL"); v != "" {
		s, err := strconv.ParseFloat(v, 64)
		if err != nil || !(s > 0) {
			t.Fatalf("DICEWATCH_STILL_FOCAL=%q: want a share of the picture's width", v)
		}
		o.FocalShare = s
	}
	return o, true
}

// stillPinholeCamOf is the camera a pinhole still was drawn through.
func stillPinholeCamOf(tr scene.StillTruth) stillPinholeCam {
	dist := tr.CameraHeightMM / math.Cos(tr.CameraTiltDeg*math.Pi/180)
	return stillPinhole(tr.CameraTiltDeg, tr.FocalPx, dist, float64(tr.Width), float64(tr.Height))
}

// pinholeRefs are 30 reference points a pinhole camera sees over a w x h
// picture (a 6 x 5 grid inside its border) and the table under the
// picture's corners, as an installer marks them.
func pinholeRefs(ph stillPinholeCam, w, h float64) (refs []calibration.RefPoint, poly [][2]float64) {
	for i := 0; i <= 5; i++ {
		for j := 0; j <= 4; j++ {
			px := [2]float64{w * (0.05 + 0.9*float64(i)/5), h * (0.05 + 0.9*float64(j)/4)}
			mm := ph.unproject(px)
			refs = append(refs, calibration.RefPoint{Px: ph.project(mm), MM: mm})
		}
	}
	for _, px := range [][2]float64{{0, 0}, {w, 0}, {w, h}, {0, h}} {
		poly = append(poly, ph.unproject(px))
	}
	return refs, poly
}

// stillPinholeCal is the table calibration of a pinhole still's camera
// (tr.FocalPx > 0), with the camera's focal length.
func stillPinholeCal(tr scene.StillTruth) (*calibration.Calibration, error) {
	refs, poly := pinholeRefs(stillPinholeCamOf(tr), float64(tr.Width), float64(tr.Height))
	c := &calibration.Calibration{
		Version:      calibration.Version,
		Camera:       calibration.Camera{Width: tr.Width, Height: tr.Height, FocalPx: tr.FocalPx},
		Reference:    &calibration.Reference{Method: calibration.MethodPoints, Points: refs},
		TablePolygon: poly,
		Die:          calibration.Die{EdgeMM: 19},
	}
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("still %d: pinhole calibration: %w", tr.Seed, err)
	}
	return c, nil
}

// mustPinholeCal is stillPinholeCal, panicking on a refused calibration
// (a harness fault: the camera is exactly a pinhole).
func mustPinholeCal(tr scene.StillTruth) *calibration.Calibration {
	c, err := stillPinholeCal(tr)
	if err != nil {
		panic(err)
	}
	return c
}

// stillPinholeEdgeAt is the die edge at each place of a pinhole still, as
// its calibration gives it (Calibration.DiePx).
func stillPinholeEdgeAt(tr scene.StillTruth) func(x, y float64) float64 {
	c := mustPinholeCal(tr)
	return func(x, y float64) float64 { return c.DiePx(calibration.Point{X: x, Y: y}) }
}

// stillPinholeView sets the calibrated read's options for a pinhole
// still as the daemon sets them from the calibration (calibratedOptions):
// the die edge at the centre and at each place, and unless
// DICEWATCH_STILL_VIEW=none the view. It does nothing to other stills.
func stillPinholeView(tr scene.StillTruth, o *ReaderOptions) {
	if tr.FocalPx <= 0 {
		return
	}
	c := mustPinholeCal(tr)
	at := func(x, y float64) float64 { return c.DiePx(calibration.Point{X: x, Y: y}) }
	if os.Getenv("DICEWATCH_STILL_PIN_EDGE") == "across" {
		at = func(x, y float64) float64 { return c.DieAcrossPx(calibration.Point{X: x, Y: y}) }
	}
	o.DiePx = at(float64(tr.Width)/2, float64(tr.Height)/2)
	o.ExpectedEdgePx = at
	o.AcrossEdgePx = func(x, y float64) float64 { return c.DieAcrossPx(calibration.Point{X: x, Y: y}) }
	o.ViewTiltDeg, o.ViewUp = nil, nil
	if os.Getenv("DICEWATCH_STILL_VIEW") == "none" {
		return
	}
	o.ViewTiltDeg = func(x, y float64) float64 { return c.ViewTiltDeg(calibration.Point{X: x, Y: y}) }
	o.ViewUp = func(x, y float64) [2]float64 {
		u := c.ViewUp(calibration.Point{X: x, Y: y})
		return [2]float64{u.X, u.Y}
	}
}

// TestStillPinholeCal checks what the calibrated read of a pinhole still
// is given against the camera the still was drawn through, at every die:
// the die edge at each place is the camera's on the table there, the
// view's angle off vertical the angle of the line from the table there
// to the camera, and ViewUp points the way the camera draws a vertical
// edge standing there, with length the sine of that angle.
func TestStillPinholeCal(t *testing.T) {
	o := scene.StillOptions{Pinhole: scene.PinholeOptions{HeightMM: scene.HeightRange{Min: 600, Max: 1200}}}
	wide := o
	wide.Pinhole.FocalShare = 0.9
	n := 0
	for _, opt := range []scene.StillOptions{o, wide} {
		for seed := int64(0); seed < 12; seed++ {
			_, tr, err := scene.StillJPEG(seed, opt)
			if err != nil {
				t.Fatal(err)
			}
			cam := stillPinholeCamOf(tr)
			var ro ReaderOptions
			stillPinholeView(tr, &ro)
			for _, d := range tr.Dice {
				px := [2]float64{d.CX, d.CY}
				m := cam.unproject(px)
				a, b := cam.project([2]float64{m[0] - 9.5, m[1]}), cam.project([2]float64{m[0] + 9.5, m[1]})
				c, e := cam.project([2]float64{m[0], m[1] - 9.5}), cam.project([2]float64{m[0], m[1] + 9.5})
				edge := (math.Hypot(b[0]-a[0], b[1]-a[1]) + math.Hypot(e[0]-c[0], e[1]-c[1])) / 2
				if got := ro.ExpectedEdgePx(d.CX, d.CY); math.Abs(got/edge-1) > 0.005 {
					t.Errorf("still %d at (%.0f, %.0f): edge %.2f px, the camera's %.2f", seed, d.CX, d.CY, got, edge)
				}
				// the camera's line of sight there and its picture of a
				// vertical edge (z towards the camera in stillPinholeCam)
				ray := [3]float64{cam.c[0] - m[0], cam.c[1] - m[1], cam.c[2]}
				tilt := math.Acos(ray[2]/math.Sqrt(ray[0]*ray[0]+ray[1]*ray[1]+ray[2]*ray[2])) * 180 / math.Pi
				if got := ro.ViewTiltDeg(d.CX, d.CY); math.Abs(got-tilt) > 0.05 {
					t.Errorf("still %d at (%.0f, %.0f): view %.2f deg off vertical, the camera's %.2f", seed, d.CX, d.CY, got, tilt)
				}
				foot, top := cam.project3([3]float64{m[0], m[1], 0}), cam.project3([3]float64{m[0], m[1], 19})
				u := ro.ViewUp(d.CX, d.CY)
				want := math.Sin(tilt * math.Pi / 180)
				if math.Abs(math.Hypot(u[0], u[1])-want) > 0.005 {
					t.Errorf("still %d at (%.0f, %.0f): ViewUp %v, length want %.3f", seed, d.CX, d.CY, u, want)
				}
				if tilt > 2 {
					da := math.Remainder(math.Atan2(u[1], u[0])-math.Atan2(top[1]-foot[1], top[0]-foot[0]), 2*math.Pi)
					if math.Abs(da) > 0.5*math.Pi/180 {
						t.Errorf("still %d at (%.0f, %.0f): ViewUp %v, the camera draws a vertical along (%.2f, %.2f)", seed, d.CX, d.CY, u, top[0]-foot[0], top[1]-foot[1])
					}
				}
				n++
			}
		}
	}
	if n < 50 {
		t.Fatalf("only %d dice checked", n)
	}
}

// TestStillPinholeSides checks the side sidesFrom takes a die's visible
// sides to face, at every die of pinhole stills 0..59 (two lenses),
// against the camera's: from the die's top towards its foot, along the
// picture of its vertical edge. Given the calibration's view (what the
// daemon gives) it must be within 45 degrees wherever the view is 3
// degrees or more off vertical; given the edge at each place only, it
// logs (-v) how often the edge's rule takes the other side (a tilted
// camera's dice between the nadir and the picture's near edge).
func TestStillPinholeSides(t *testing.T) {
	if testing.Short() {
		t.Skip("draws generated stills")
	}
	o := scene.StillOptions{Pinhole: scene.PinholeOptions{HeightMM: scene.HeightRange{Min: 600, Max: 1200}}}
	wide := o
	wide.Pinhole.FocalShare = 0.9
	var n, offView, offEdge, centreEdge int
	for _, opt := range []scene.StillOptions{o, wide} {
		for seed := int64(0); seed < 60; seed++ {
			_, tr, err := scene.StillJPEG(seed, opt)
			if err != nil {
				t.Fatal(err)
			}
			cam := stillPinholeCamOf(tr)
			var withView, edgeOnly Reader
			stillPinholeView(tr, &withView.opts)
			edgeOnly.opts.ExpectedEdgePx = withView.opts.ExpectedEdgePx
			ocx, ocy := float64(tr.Width)/2, float64(tr.Height)/2
			for i, d := range tr.Dice {
				if withView.opts.ViewTiltDeg(d.CX, d.CY) < 3 {
					continue
				}
				m := cam.unproject([2]float64{d.CX, d.CY})
				foot, top := cam.project3([3]float64{m[0], m[1], 0}), cam.project3([3]float64{m[0], m[1], 19})
				want := math.Atan2(foot[1]-top[1], foot[0]-top[0])
				c := candidate{cx: d.CX, cy: d.CY, edge: withView.opts.ExpectedEdgePx(d.CX, d.CY)}
				off := func(x, y float64) float64 {
					return math.Abs(math.Remainder(math.Atan2(y-c.cy, x-c.cx)-want, 2*math.Pi)) * 180 / math.Pi
				}
				n++
				if a := off(withView.sidesFrom(c, 0, 0, ocx, ocy)); a > 45 {
					offView++
					t.Errorf("still %d die %d (tilt %.1f, %.0f px f): with the view, sides taken %.0f deg off the camera's", seed, i, tr.CameraTiltDeg, tr.FocalPx, a)
				}
				x, y := edgeOnly.sidesFrom(c, 0, 0, ocx, ocy)
				if x == ocx && y == ocy {
					centreEdge++
				}
				if off(x, y) > 90 {
					offEdge++
				}
			}
		}
	}
	t.Logf("%d dice seen 3 deg or more off vertical: sides over 45 deg off the camera's with the view %d; over 90 deg off with the edge at each place only %d (that rule kept the optical centre at %d)", n, offView, offEdge, centreEdge)
	if n < 100 {
		t.Fatalf("only %d dice checked", n)
	}
}

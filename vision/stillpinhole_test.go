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
	o.DiePx = at(float64(tr.Width)/2, float64(tr.Height)/2)
	o.ExpectedEdgePx = at
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

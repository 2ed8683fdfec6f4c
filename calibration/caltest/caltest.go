// Package caltest holds the known cameras used to generate calibration
// test scenes: for each template, an image size and the ground-truth
// homography from table mm to image pixels (a slightly tilted overhead
// camera). Tests and the docs overlay render and recover against these.
package caltest

import (
	"fmt"

	"github.com/dicewatch/dicewatch/calibration"
)

// Camera is a generated camera: image size and ground truth.
type Camera struct {
	W, H int
	// MMToPx maps table mm to image pixels; PxToMM is its inverse (what a
	// calibration should recover).
	MMToPx, PxToMM [9]float64
}

// corners are where each template's table corners (0,0), (L,0), (L,W),
// (0,W) appear in the image: a camera a little off-centre and tilted, so
// the table is a trapezoid rather than a rectangle.
var scenes = map[string]struct {
	w, h int
	px   [4]calibration.Point
}{
	calibration.TemplateCraps12:    {1920, 1080, [4]calibration.Point{{X: 62, Y: 186}, {X: 1862, Y: 204}, {X: 1826, Y: 884}, {X: 94, Y: 902}}},
	calibration.TemplateBackgammon: {1280, 960, [4]calibration.Point{{X: 74, Y: 52}, {X: 1206, Y: 40}, {X: 1186, Y: 912}, {X: 90, Y: 896}}},
	calibration.TemplatePaiGow:     {1280, 960, [4]calibration.Point{{X: 52, Y: 70}, {X: 1232, Y: 62}, {X: 1214, Y: 868}, {X: 72, Y: 884}}},
}

// Scene returns the generated camera for a template.
func Scene(template string) (Camera, error) {
	s, ok := scenes[template]
	if !ok {
		return Camera{}, fmt.Errorf("caltest: no scene for template %q", template)
	}
	t, err := calibration.LoadTemplate(template)
	if err != nil {
		return Camera{}, err
	}
	var xmax, ymax float64
	for _, p := range t.Table {
		xmax, ymax = max(xmax, p[0]), max(ymax, p[1])
	}
	mm := [4]calibration.Point{{X: 0, Y: 0}, {X: xmax, Y: 0}, {X: xmax, Y: ymax}, {X: 0, Y: ymax}}
	pairs := make([]calibration.Pair, 4)
	for i := range pairs {
		pairs[i] = calibration.Pair{Px: mm[i], MM: s.px[i]} // fit mm -> px
	}
	f, err := calibration.FitHomography(pairs)
	if err != nil {
		return Camera{}, err
	}
	inv, ok := calibration.Invert(f.H)
	if !ok {
		return Camera{}, fmt.Errorf("caltest: scene %q: singular", template)
	}
	for k := range inv {
		inv[k] /= inv[8]
	}
	return Camera{W: s.w, H: s.h, MMToPx: f.H, PxToMM: inv}, nil
}

// Calibration returns the template's calibration with the exact homography.
func Calibration(template string) (*calibration.Calibration, Camera, error) {
	cam, err := Scene(template)
	if err != nil {
		return nil, cam, err
	}
	t, err := calibration.LoadTemplate(template)
	if err != nil {
		return nil, cam, err
	}
	c := t.New(template+"-test", cam.W, cam.H, cam.PxToMM)
	if err := c.Validate(); err != nil {
		return nil, cam, err
	}
	return c, cam, nil
}

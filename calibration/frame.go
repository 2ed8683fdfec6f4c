package calibration

import (
	"fmt"
	"math"
	"strings"
)

// maxShapeChange is how far a frame's width over height may differ from
// the calibration's, as a share, for ForFrame to take it as the same
// picture scaled (1920x1080 to 854x480 is 0.08%, to 426x240 0.16%). A
// frame padded to whole 16-pixel blocks (1920x1088, 0.74%) is not the
// picture scaled: its rows are the same rows, and scaling them would move
// a point at the bottom by 8 px.
const maxShapeChange = 0.0025

// ForFrame returns a copy of the calibration for frames of w x h pixels
// from the same camera, and a note saying what it changed (empty when
// the size is the calibration's). A frame of the same shape is taken as
// the same picture scaled (a camera mode that bins or scales the whole
// sensor): everything in pixels scales with it (camera.focal_px, the lens
// model's fx, fy, cx and cy, the reference points' pixels and the
// homography); what is in mm or degrees is kept. A frame of another shape
// crops the sensor, so no pixel value carries over: ForFrame refuses a
// calibration that has one (an all-zero homography and no reference
// points can be, as `dicewatch calibrate -base` fits them again). A mode
// that crops the sensor without changing its shape cannot be told from
// the size; the note says so. The copy is not validated.
func (c *Calibration) ForFrame(w, h int) (*Calibration, string, error) {
	d := *c
	d.view, d.hash, d.inv = view{}, "", [9]float64{}
	if c.Reference != nil {
		r := *c.Reference
		r.Points = append([]RefPoint(nil), r.Points...)
		d.Reference = &r
	}
	if w <= 0 || h <= 0 {
		return nil, "", fmt.Errorf("calibration: a %dx%d frame: width and height must be positive", w, h)
	}
	if w == c.Camera.Width && h == c.Camera.Height {
		return &d, "", nil
	}
	if c.Camera.Width <= 0 || c.Camera.Height <= 0 {
		return nil, "", fmt.Errorf("calibration: camera: width and height must be positive")
	}
	from := fmt.Sprintf("%dx%d", c.Camera.Width, c.Camera.Height)
	to := fmt.Sprintf("%dx%d", w, h)
	sx, sy := float64(w)/float64(c.Camera.Width), float64(h)/float64(c.Camera.Height)
	d.Camera.Width, d.Camera.Height = w, h
	var inPx []string
	if c.Camera.FocalPx != 0 {
		inPx = append(inPx, "camera.focal_px")
	}
	if c.Lens.active() {
		inPx = append(inPx, "the lens model's fx, fy, cx, cy")
	}
	if c.Reference != nil && len(c.Reference.Points) > 0 {
		inPx = append(inPx, "reference.points")
	}
	if c.Homography != ([9]float64{}) {
		inPx = append(inPx, "the homography")
	}
	if len(inPx) == 0 {
		return &d, "", nil
	}
	if math.Abs(sx/sy-1) > maxShapeChange {
		it, is, them := "they", "are", "them"
		if len(inPx) == 1 {
			it, is, them = "it", "is", "it"
		}
		return nil, "", fmt.Errorf("calibration: %s %s in pixels of a %s frame, and a %s frame is another shape: the camera crops its sensor for it, so %s %s not known at %s; measure %s at %s, or leave %s out",
			strings.Join(inPx, ", "), is, from, to, it, is, to, them, to, them)
	}
	var done []string
	if f := c.Camera.FocalPx; f != 0 {
		d.Camera.FocalPx = round(f*(sx+sy)/2, 3)
		done = append(done, fmt.Sprintf("camera.focal_px %g -> %g", f, d.Camera.FocalPx))
	}
	if c.Lens.active() {
		l := &d.Lens
		l.FX, l.FY, l.CX, l.CY = round(l.FX*sx, 3), round(l.FY*sy, 3), round(l.CX*sx, 3), round(l.CY*sy, 3)
		done = append(done, fmt.Sprintf("lens fx, fy, cx, cy %g, %g, %g, %g -> %g, %g, %g, %g", c.Lens.FX, c.Lens.FY, c.Lens.CX, c.Lens.CY, l.FX, l.FY, l.CX, l.CY))
	}
	if r := d.Reference; r != nil && len(r.Points) > 0 {
		for i := range r.Points {
			p := &r.Points[i].Px
			p[0], p[1] = round(p[0]*sx, 3), round(p[1]*sy, 3)
		}
		done = append(done, fmt.Sprintf("%d reference points' pixels", len(r.Points)))
	}
	if c.Homography != ([9]float64{}) {
		// New pixels to old, then to mm.
		for i := 0; i < 3; i++ {
			d.Homography[3*i] /= sx
			d.Homography[3*i+1] /= sy
		}
		done = append(done, "the homography")
	}
	note := fmt.Sprintf("scaled from %s to %s frames (x%.4g): %s; a camera mode that crops its sensor rather than scaling it needs them measured at %s",
		from, to, (sx+sy)/2, strings.Join(done, ", "), to)
	return &d, note, nil
}

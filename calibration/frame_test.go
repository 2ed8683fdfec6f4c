package calibration

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestForFrame: a calibration moved to frames of the same shape keeps
// its map and its view, point for point (each scaled pixel maps to the
// same mm and sees the table at the same angle), with a note of what
// was scaled; a frame of another shape is refused while a value in
// pixels would have to follow it.
func TestForFrame(t *testing.T) {
	focal := func() *Calibration {
		c := validForView(t)
		c.Camera.FocalPx = 1600
		if err := c.Validate(); err != nil {
			t.Fatal(err)
		}
		return c
	}
	lens := func() *Calibration {
		// a pinhole with the lens model's distortion and principal point
		p := pinhole{w: 1920, h: 1080, f: 1600, tilt: 20, dst: 2500, k1: -0.05, off: Point{10, -10}}
		c := p.calibrate(t, 0, rand.New(rand.NewPCG(1, 1)))
		b := validForView(t)
		c.Version, c.TablePolygon, c.Die = b.Version, b.TablePolygon, b.Die
		c.Lens = Lens{Model: LensBrownConrady, FX: 1600, FY: 1600, CX: 970, CY: 530, K1: -0.05}
		c.Homography = [9]float64{} // fitted from the undistorted points
		if err := c.Validate(); err != nil {
			t.Fatal(err)
		}
		return c
	}
	for _, tc := range []struct {
		name     string
		base     func() *Calibration
		w, h     int
		source   ViewSource
		note     string
		focal    float64
		wantErr  string
		sameHash bool
	}{
		{name: "same size", base: focal, w: 1920, h: 1080, source: ViewFocal, focal: 1600, sameHash: true},
		{name: "focal, 720p", base: focal, w: 1280, h: 720, source: ViewFocal, focal: 1066.667, note: "scaled from 1920x1080 to 1280x720 frames (x0.6667): camera.focal_px 1600 -> 1066.667, 30 reference points' pixels, the homography; a camera mode that crops its sensor rather than scaling it needs them measured at 1280x720"},
		{name: "focal, 4K", base: focal, w: 3840, h: 2160, source: ViewFocal, focal: 3200, note: "camera.focal_px 1600 -> 3200"},
		{name: "focal, 854x480", base: focal, w: 854, h: 480, source: ViewFocal, focal: 711.389, note: "camera.focal_px 1600 -> 711.389"},
		{name: "estimated, 720p", base: func() *Calibration { return validForView(t) }, w: 1280, h: 720, source: ViewEstimated, note: "30 reference points' pixels, the homography"},
		{name: "lens, 720p", base: lens, w: 1280, h: 720, source: ViewFocal, note: "lens fx, fy, cx, cy 1600, 1600, 970, 530 -> 1066.667, 1066.667, 646.667, 353.333"},
		{name: "focal, 4:3", base: focal, w: 1440, h: 1080, wantErr: "calibration: camera.focal_px, reference.points, the homography are in pixels of a 1920x1080 frame, and a 1440x1080 frame is another shape: the camera crops its sensor for it, so they are not known at 1440x1080; measure them at 1440x1080, or leave them out"},
		{name: "focal, 1920x1088 (1080 padded to whole blocks)", base: focal, w: 1920, h: 1088, wantErr: "a 1920x1088 frame is another shape"},
		{name: "lens, 4:3", base: lens, w: 640, h: 480, wantErr: "the lens model's fx, fy, cx, cy, reference.points, the homography are in pixels of a 1920x1080 frame"},
		{name: "zero size", base: focal, w: 0, h: 720, wantErr: "calibration: a 0x720 frame: width and height must be positive"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.base()
			d, note, err := c.ForFrame(tc.w, tc.h)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %v, want an error with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(note, tc.note) {
				t.Errorf("note %q, want %q in it", note, tc.note)
			}
			if err := d.Validate(); err != nil {
				t.Fatal(err)
			}
			if d.Camera.Width != tc.w || d.Camera.Height != tc.h || d.Camera.FocalPx != tc.focal {
				t.Errorf("camera %+v", d.Camera)
			}
			if (d.Hash() == c.Hash()) != tc.sameHash {
				t.Errorf("hash %s from %s", d.Hash(), c.Hash())
			}
			if d.View().Source != tc.source || c.View().Source != tc.source {
				t.Fatalf("view %s from %s, want %q", d.View(), c.View(), tc.source)
			}
			sx, sy := float64(tc.w)/float64(c.Camera.Width), float64(tc.h)/float64(c.Camera.Height)
			worstMM, worstDeg := 0.0, 0.0
			for i := 0; i <= 8; i++ {
				for j := 0; j <= 6; j++ {
					p := Point{float64(c.Camera.Width) * float64(i) / 8, float64(c.Camera.Height) * float64(j) / 6}
					q := Point{p.X * sx, p.Y * sy}
					a, b := c.ToTable(p), d.ToTable(q)
					worstMM = math.Max(worstMM, math.Hypot(a.X-b.X, a.Y-b.Y))
					worstDeg = math.Max(worstDeg, math.Abs(c.ViewTiltDeg(p)-d.ViewTiltDeg(q)))
				}
			}
			// The estimate's view is fitted again from the scaled
			// points; a known focal length's follows (but for the
			// rounding to 0.001 px, and 854x480 being 0.08% wider
			// than 16:9).
			limDeg := 0.05
			if tc.source == ViewEstimated {
				limDeg = 0.1
			}
			if worstMM > 0.05 || worstDeg > limDeg {
				t.Errorf("scaled pixels map %.3f mm and %.3f deg away from the originals (view %s from %s)", worstMM, worstDeg, d.View(), c.View())
			}
			if d.Reference == c.Reference {
				t.Error("the reference block is shared with the original")
			}
		})
	}
	// A calibration with nothing in pixels (as calibrate -base leaves
	// it for a new still) takes any frame.
	c := focal()
	c.Camera.FocalPx, c.Reference, c.Homography = 0, nil, [9]float64{}
	d, note, err := c.ForFrame(640, 480)
	if err != nil || note != "" || d.Camera.Width != 640 || d.Camera.Height != 480 {
		t.Errorf("nothing in pixels, 640x480: %v %q %+v", err, note, d.Camera)
	}
}

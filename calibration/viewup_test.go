package calibration

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
)

// calibrateTold makes a calibration of the camera from a grid of
// reference markers (no noise) with its intrinsics told: a lens model
// with the camera's focal lengths, principal point and k1 (zero or not).
func (p pinhole) calibrateTold(t *testing.T) *Calibration {
	t.Helper()
	l := Lens{Model: LensBrownConrady, FX: p.f, FY: p.fy(), CX: p.centre().X, CY: p.centre().Y, K1: p.k1}
	fit, refs := p.gridFit(t, nil, l.undistort)
	c := &Calibration{Camera: Camera{Width: p.w, Height: p.h}, Lens: l, Homography: fit.H, Reference: &Reference{Method: MethodPoints, Points: refs}, Die: Die{EdgeMM: 19}}
	c.prepareView()
	return c
}

// upError compares the calibration's VerticalPx and ViewUp with the
// camera's over a grid of image positions: the worst difference of the
// vertical segment's picture (px, and over its length), of ViewUp's
// direction (degrees, where the segment's picture is over 0.01 px) and
// of ViewUp's length from the sine of the true angle off vertical. NaN
// when the calibration gives no view somewhere the lens model reaches.
func (p pinhole) upError(t *testing.T, c *Calibration, mm float64) (px, rel, dirDeg, length float64) {
	t.Helper()
	for i := 0; i <= 8; i++ {
		for j := 0; j <= 6; j++ {
			at := Point{float64(p.w) * float64(i) / 8, float64(p.h) * float64(j) / 6}
			foot := p.unproject(at)
			top, ok := p.project3(foot.X, foot.Y, mm)
			if !ok {
				t.Fatalf("%+v: the top at %v is behind the camera", p, at)
			}
			want := Point{top.X - at.X, top.Y - at.Y}
			got := c.VerticalPx(at, mm)
			up := c.ViewUp(at)
			if _, ok := c.Lens.undistortOK(at); !ok && c.View().Source != ViewUnknown {
				// The lens model does not reach the pixel (a strong
				// barrel's far corner): no view there.
				if !math.IsNaN(got.X) || !math.IsNaN(up.X) {
					t.Errorf("%+v at %v: the lens model does not reach it, yet VerticalPx %v, ViewUp %v", p, at, got, up)
				}
				continue
			}
			if math.IsNaN(got.X+got.Y) || math.IsNaN(up.X+up.Y) {
				return math.NaN(), math.NaN(), math.NaN(), math.NaN()
			}
			d := math.Hypot(got.X-want.X, got.Y-want.Y)
			wl := math.Hypot(want.X, want.Y)
			px = math.Max(px, d)
			if wl > 0.01 {
				rel = math.Max(rel, d/wl)
				a := math.Atan2(up.Y, up.X) - math.Atan2(want.Y, want.X)
				a = math.Abs(math.Remainder(a, 2*math.Pi)) * 180 / math.Pi
				dirDeg = math.Max(dirDeg, a)
			}
			s := math.Sin(p.trueTilt(at) * math.Pi / 180)
			length = math.Max(length, math.Abs(math.Hypot(up.X, up.Y)-s))
		}
	}
	return px, rel, dirDeg, length
}

// TestViewUpPinholes checks VerticalPx and ViewUp against projecting a
// vertical segment (a 19 mm die's edge) through synthetic pinhole cameras
// directly: tilts 0 to 45 degrees, turned about the vertical and about
// the line of sight (roll), principal points off the centre, with and
// without radial distortion (told as a lens model), and lenses 0.6 to 2
// image widths. With the intrinsics known (a lens model, or
// camera.focal_px for a centred pinhole) the picture of the segment must
// match to 0.1% of its length, ViewUp's direction to 0.05 degrees and
// its length to the sine of the true angle to 1e-4; the focal length
// estimated from the homography (a centred pinhole), likewise when the
// estimate is given.
func TestViewUpPinholes(t *testing.T) {
	var rows []string
	n := 0
	for _, tilt := range []float64{0, 10, 25, 45} {
		for _, fs := range []float64{0.6, 1.0, 2.0} {
			for _, yaw := range []float64{0, 30, 90} {
				for _, roll := range []float64{0, 12} {
					for _, off := range []Point{{0, 0}, {60, -40}} {
						for _, k1 := range []float64{0, -0.15, 0.08} {
							p := pinhole{w: 1920, h: 1080, f: fs * 1920, tilt: tilt, yaw: yaw, dst: 3000, roll: roll, off: off, k1: k1}
							name := fmt.Sprintf("tilt %g f %gw yaw %g roll %g off %v k1 %g", tilt, fs, yaw, roll, off, k1)
							told := p.calibrateTold(t)
							if s := told.View().Source; s != ViewFocal {
								t.Errorf("%s: told intrinsics: view %q (%s)", name, s, told.View())
								continue
							}
							dpx, rel, dir, length := p.upError(t, told, 19)
							rows = append(rows, fmt.Sprintf("%-52s told: %.4f px (%.5f), direction %.4f deg, length %.6f", name, dpx, rel, dir, length))
							if !(rel <= 1e-3 && dir <= 0.05 && length <= 1e-4) {
								t.Errorf("%s: told intrinsics: segment off by %.4f px (%.5f of it), ViewUp direction off %.4f deg, length %.6f", name, dpx, rel, dir, length)
							}
							n++
							if off != (Point{}) || k1 != 0 {
								continue
							}
							// A centred pinhole without distortion:
							// camera.focal_px, and the estimate.
							c := p.calibrate(t, 0, rand.New(rand.NewPCG(1, 1)))
							c.Die.EdgeMM = 19
							c.Camera.FocalPx = p.f
							c.prepareView()
							dpx, rel, dir, length = p.upError(t, c, 19)
							if !(rel <= 1e-3 && dir <= 0.05 && length <= 1e-4) {
								t.Errorf("%s: focal_px: segment off by %.4f px (%.5f of it), ViewUp direction off %.4f deg, length %.6f", name, dpx, rel, dir, length)
							}
							// The homography's scale and sign are free: -2 H
							// is the same map.
							h := c.Homography
							for k := range c.Homography {
								c.Homography[k] *= -2
							}
							c.prepareView()
							if d2, _, _, _ := p.upError(t, c, 19); !(d2 <= 1e-3*19+dpx) {
								t.Errorf("%s: focal_px, the homography times -2: segment off by %.4f px", name, d2)
							}
							c.Homography = h
							c.Camera.FocalPx = 0
							c.prepareView()
							if c.View().Source != ViewEstimated {
								continue // refused as unsure: TestViewPinholes
							}
							dpx, rel, dir, length = p.upError(t, c, 19)
							rows = append(rows, fmt.Sprintf("%-52s estimated: %.4f px (%.5f), direction %.4f deg, length %.6f", name, dpx, rel, dir, length))
							if !(rel <= 1e-3 && dir <= 0.05 && length <= 1e-4) {
								t.Errorf("%s: estimated: segment off by %.4f px (%.5f of it), ViewUp direction off %.4f deg, length %.6f", name, dpx, rel, dir, length)
							}
						}
					}
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no camera checked")
	}
	if testing.Verbose() {
		t.Log("\n" + strings.Join(rows, "\n"))
	}
}

// TestViewUpNoise: with 1 px of noise on the reference points the view's
// vertical stays close: ViewUp's direction within 3 degrees wherever the
// view leans 10 degrees or more, and its length within 0.03 of the sine
// of the true angle (the focal length known, centred pinholes).
func TestViewUpNoise(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for _, tilt := range []float64{10, 25, 35} {
		for _, fs := range []float64{0.6, 1.0, 2.0} {
			for _, yaw := range []float64{0, 30, 90} {
				p := pinhole{w: 1920, h: 1080, f: fs * 1920, tilt: tilt, yaw: yaw, dst: 3000}
				c := p.calibrate(t, 1, rng)
				c.Die.EdgeMM = 19
				c.Camera.FocalPx = p.f
				c.prepareView()
				if c.View().Source != ViewFocal {
					t.Errorf("tilt %g f %g yaw %g: %s", tilt, fs, yaw, c.View())
					continue
				}
				for i := 0; i <= 4; i++ {
					for j := 0; j <= 4; j++ {
						at := Point{float64(p.w) * float64(i) / 4, float64(p.h) * float64(j) / 4}
						foot := p.unproject(at)
						top, _ := p.project3(foot.X, foot.Y, 19)
						want := math.Atan2(top.Y-at.Y, top.X-at.X)
						up := c.ViewUp(at)
						s := math.Sin(p.trueTilt(at) * math.Pi / 180)
						if e := math.Abs(math.Hypot(up.X, up.Y) - s); !(e <= 0.03) {
							t.Errorf("tilt %g f %g yaw %g at %v: ViewUp's length %.4f, want %.4f", tilt, fs, yaw, at, math.Hypot(up.X, up.Y), s)
						}
						if p.trueTilt(at) < 10 {
							continue
						}
						a := math.Abs(math.Remainder(math.Atan2(up.Y, up.X)-want, 2*math.Pi)) * 180 / math.Pi
						if !(a <= 3) {
							t.Errorf("tilt %g f %g yaw %g at %v: ViewUp's direction off by %.2f deg", tilt, fs, yaw, at, a)
						}
					}
				}
			}
		}
	}
}

// TestViewUpNotKnown: without a pose there is no vertical: a measured
// tilt (an angle, no direction), a view not known, and a pixel the lens
// model does not reach all give NaN.
func TestViewUpNotKnown(t *testing.T) {
	tilt := 12.0
	c := validForView(t)
	c.Camera.ViewTiltDeg = &tilt
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, at := range []Point{{0, 0}, {960, 540}} {
		if v := c.ViewUp(at); !math.IsNaN(v.X) || !math.IsNaN(v.Y) {
			t.Errorf("measured tilt: ViewUp at %v is %v, want NaN", at, v)
		}
		if v := c.VerticalPx(at, 19); !math.IsNaN(v.X) || !math.IsNaN(v.Y) {
			t.Errorf("measured tilt: VerticalPx at %v is %v, want NaN", at, v)
		}
	}
	// Straight down, the homography affine: the view is not known.
	p := pinhole{w: 1920, h: 1080, f: 1920, dst: 3000}
	c = p.calibrate(t, 0, rand.New(rand.NewPCG(1, 1)))
	if c.View().Source != ViewUnknown {
		t.Fatalf("straight down, estimated: %s", c.View())
	}
	if v := c.ViewUp(Point{100, 100}); !math.IsNaN(v.X) {
		t.Errorf("view not known: ViewUp %v, want NaN", v)
	}
}

// TestViewUpFiles: the calibration files in testdata give a vertical
// where they give a pose, and agree with their own ViewTiltDeg: ViewUp's
// length is the sine of the angle there and points along VerticalPx; a
// measured tilt or no view gives NaN.
func TestViewUpFiles(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "calibration", "valid-*.yaml"))
	if len(files) < 2 {
		t.Fatalf("found %d valid files", len(files))
	}
	withPose := 0
	for _, f := range files {
		c, err := Load(f)
		if err != nil {
			t.Fatal(err)
		}
		w, h := float64(c.Camera.Width), float64(c.Camera.Height)
		src := c.View().Source
		for _, s := range []Point{{0.5, 0.5}, {0.1, 0.1}, {0.9, 0.2}, {0.3, 0.9}} {
			at := Point{s.X * w, s.Y * h}
			up, seg, tilt := c.ViewUp(at), c.VerticalPx(at, c.Die.EdgeMM), c.ViewTiltDeg(at)
			if src != ViewFocal && src != ViewEstimated {
				if !math.IsNaN(up.X) || !math.IsNaN(seg.X) {
					t.Errorf("%s (%s view) at %v: ViewUp %v, VerticalPx %v: want NaN", filepath.Base(f), src, at, up, seg)
				}
				continue
			}
			if math.IsNaN(tilt) {
				continue // the lens model does not reach it
			}
			if e := math.Abs(math.Hypot(up.X, up.Y) - math.Sin(tilt*math.Pi/180)); !(e < 1e-9) {
				t.Errorf("%s at %v: |ViewUp| %v, sin(ViewTiltDeg) %v", filepath.Base(f), at, math.Hypot(up.X, up.Y), math.Sin(tilt*math.Pi/180))
			}
			if cr := up.X*seg.Y - up.Y*seg.X; !(math.Abs(cr) <= 1e-9*math.Hypot(seg.X, seg.Y)) || up.X*seg.X+up.Y*seg.Y < 0 {
				t.Errorf("%s at %v: ViewUp %v is not along VerticalPx %v", filepath.Base(f), at, up, seg)
			}
			withPose++
		}
		t.Logf("%s: %s; ViewUp at the centre %v", filepath.Base(f), c.View(), c.ViewUp(Point{w / 2, h / 2}))
	}
	if withPose == 0 {
		t.Error("no file gives a pose")
	}
}

// BenchmarkViewUp: one ViewUp, as the reader asks it for a read die.
func BenchmarkViewUp(b *testing.B) {
	c, err := Load(filepath.Join("..", "testdata", "calibration", "valid-lens-warning.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	var s float64
	for i := 0; i < b.N; i++ {
		u := c.ViewUp(Point{X: float64(100 + i%500), Y: 300})
		s += u.X
	}
	_ = s
}

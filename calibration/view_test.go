package calibration

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// pinhole is a synthetic camera: square pixels, principal point at the
// image centre, focal length f px, looking at the table's origin from
// dist mm, its axis tilt degrees off vertical and turned yaw degrees
// about the vertical.
type pinhole struct {
	w, h              int
	f, tilt, yaw, dst float64
	// off moves the principal point off the image centre (px).
	off Point
}

// centre is the principal point.
func (p pinhole) centre() Point { return Point{float64(p.w)/2 + p.off.X, float64(p.h)/2 + p.off.Y} }

// axes are the camera's x, y and z axes in table coordinates (z up from
// the table) and its centre.
func (p pinhole) axes() (r [3][3]float64, c [3]float64) {
	// Straight down: x along the table's X, y along -Y, z down.
	base := [3][3]float64{{1, 0, 0}, {0, -1, 0}, {0, 0, -1}}
	t, y := p.tilt*math.Pi/180, p.yaw*math.Pi/180
	for i, a := range base {
		// lean about the table's X axis, then turn about the vertical
		b := [3]float64{a[0], a[1]*math.Cos(t) - a[2]*math.Sin(t), a[1]*math.Sin(t) + a[2]*math.Cos(t)}
		r[i] = [3]float64{b[0]*math.Cos(y) - b[1]*math.Sin(y), b[0]*math.Sin(y) + b[1]*math.Cos(y), b[2]}
	}
	for k := 0; k < 3; k++ {
		c[k] = -p.dst * r[2][k]
	}
	return r, c
}

// project maps table mm to image px.
func (p pinhole) project(x, y float64) (Point, bool) {
	r, c := p.axes()
	d := [3]float64{x - c[0], y - c[1], -c[2]}
	var q [3]float64
	for i := 0; i < 3; i++ {
		q[i] = r[i][0]*d[0] + r[i][1]*d[1] + r[i][2]*d[2]
	}
	if q[2] <= 0 {
		return Point{}, false
	}
	return Point{p.centre().X + p.f*q[0]/q[2], p.centre().Y + p.f*q[1]/q[2]}, true
}

// trueTilt is the angle off vertical of the line of sight through px.
func (p pinhole) trueTilt(px Point) float64 {
	r, _ := p.axes()
	d := [3]float64{(px.X - p.centre().X) / p.f, (px.Y - p.centre().Y) / p.f, 1}
	z := d[0]*r[0][2] + d[1]*r[1][2] + d[2]*r[2][2]
	return math.Acos(math.Abs(z)/math.Sqrt(d[0]*d[0]+d[1]*d[1]+d[2]*d[2])) * 180 / math.Pi
}

// calibrate makes a calibration of the camera from a grid of reference
// markers on the table, their pixels moved by noise px.
func (p pinhole) calibrate(t *testing.T, noise float64, rng *rand.Rand) *Calibration {
	t.Helper()
	var pairs []Pair
	var refs []RefPoint
	// the table points seen at a 6x5 grid of image positions
	for i := 0; i <= 5; i++ {
		for j := 0; j <= 4; j++ {
			u, v := float64(p.w)*(0.05+0.9*float64(i)/5), float64(p.h)*(0.05+0.9*float64(j)/4)
			mm := p.unproject(Point{u, v})
			px, ok := p.project(mm.X, mm.Y)
			if !ok {
				t.Fatalf("%+v: grid point behind the camera", p)
			}
			px = Point{px.X + noise*rng.NormFloat64(), px.Y + noise*rng.NormFloat64()}
			px.X = math.Min(math.Max(px.X, 0), float64(p.w))
			px.Y = math.Min(math.Max(px.Y, 0), float64(p.h))
			pairs = append(pairs, Pair{Px: px, MM: mm})
			refs = append(refs, RefPoint{Px: [2]float64{px.X, px.Y}, MM: [2]float64{mm.X, mm.Y}})
		}
	}
	fit, err := FitHomography(pairs)
	if err != nil {
		t.Fatal(err)
	}
	c := &Calibration{Camera: Camera{Width: p.w, Height: p.h}, Homography: fit.H, Reference: &Reference{Method: MethodPoints, Points: refs}}
	c.prepareView()
	return c
}

// unproject is where the line of sight through px meets the table.
func (p pinhole) unproject(px Point) Point {
	r, c := p.axes()
	d := [3]float64{(px.X - p.centre().X) / p.f, (px.Y - p.centre().Y) / p.f, 1}
	var w [3]float64
	for k := 0; k < 3; k++ {
		w[k] = d[0]*r[0][k] + d[1]*r[1][k] + d[2]*r[2][k]
	}
	s := -c[2] / w[2]
	return Point{c[0] + s*w[0], c[1] + s*w[1]}
}

// worstError is the largest difference between the calibration's angle
// and the camera's over a grid of image positions (NaN: not known).
func (p pinhole) worstError(c *Calibration) float64 {
	worst := 0.0
	for i := 0; i <= 8; i++ {
		for j := 0; j <= 6; j++ {
			px := Point{float64(p.w) * float64(i) / 8, float64(p.h) * float64(j) / 6}
			got := c.ViewTiltDeg(px)
			if math.IsNaN(got) {
				return math.NaN()
			}
			worst = math.Max(worst, math.Abs(got-p.trueTilt(px)))
		}
	}
	return worst
}

// TestViewPinholes checks the view against synthetic pinhole cameras at
// known poses: the angle at every image position, estimated from the
// homography alone and with the focal length known, with and without
// noise on the reference points' pixels. An estimate may be refused
// (unsure) for a camera near straight down or a wide lens under 20
// degrees off vertical; one given must be within 1.5 degrees (noise-free)
// or 3 degrees (1 px of noise) everywhere.
func TestViewPinholes(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	var rows []string
	for _, tilt := range []float64{0, 5, 10, 15, 25, 35} {
		for _, fs := range []float64{0.6, 1.0, 2.0} {
			for _, yaw := range []float64{0, 30, 90} {
				p := pinhole{w: 1920, h: 1080, f: fs * 1920, tilt: tilt, yaw: yaw, dst: 3000}
				for _, noise := range []float64{0, 0.5, 1} {
					c := p.calibrate(t, noise, rng)
					est := p.worstError(c)
					c.Camera.FocalPx = p.f
					c.prepareView()
					known := p.worstError(c)
					c.Camera.FocalPx = 0
					c.prepareView()
					rows = append(rows, fmt.Sprintf("tilt %2.0f f %.1fw yaw %2.0f noise %.1f px: estimated worst error %5.2f deg, focal known %5.2f deg (%s)", tilt, fs, yaw, noise, est, known, c.View()))
					if math.IsNaN(known) || known > 1+noise {
						t.Errorf("tilt %g f %g yaw %g noise %g: with the focal length known, worst error %.2f deg", tilt, fs, yaw, noise, known)
					}
					if math.IsNaN(est) {
						// Refused: near straight down, and a wide lens
						// under 20 degrees (where the principal point's
						// place moves the angle; see TestViewOffCentre).
						if tilt >= 20 || tilt >= 10 && fs >= 2 {
							t.Errorf("tilt %g f %g yaw %g noise %g: view refused (%s)", tilt, fs, yaw, noise, c.View().Reason)
						}
						continue
					}
					if lim := 1.5 + 1.5*noise; est > lim {
						t.Errorf("tilt %g f %g yaw %g noise %g: estimated view off by %.2f deg (limit %g): %s", tilt, fs, yaw, noise, est, lim, c.View())
					}
				}
			}
		}
	}
	if testing.Verbose() {
		t.Log("\n" + strings.Join(rows, "\n"))
	}
}

// TestViewInvalid: an installer's view values out of range are refused
// with a clear error; a measured tilt is taken for every position.
func TestViewInvalid(t *testing.T) {
	tilt := func(v float64) *float64 { return &v }
	for _, tc := range []struct {
		name  string
		cam   Camera
		lens  Lens
		want  string
		fixed float64
	}{
		{name: "negative focal", cam: Camera{FocalPx: -100}, want: "camera.focal_px: -100 is not a plausible focal length"},
		{name: "tiny focal", cam: Camera{FocalPx: 20}, want: "camera.focal_px: 20 is not a plausible focal length"},
		{name: "huge focal", cam: Camera{FocalPx: 1e6}, want: "camera.focal_px: 1e+06 is not a plausible focal length"},
		{name: "NaN focal", cam: Camera{FocalPx: math.NaN()}, want: "camera.focal_px: NaN is not a plausible focal length"},
		{name: "steep tilt", cam: Camera{ViewTiltDeg: tilt(75)}, want: "camera.view_tilt_deg: 75 is not a plausible view (0..60 degrees off vertical)"},
		{name: "negative tilt", cam: Camera{ViewTiltDeg: tilt(-2)}, want: "camera.view_tilt_deg: -2 is not a plausible view"},
		{name: "NaN tilt", cam: Camera{ViewTiltDeg: tilt(math.NaN())}, want: "camera.view_tilt_deg: NaN is not a plausible view"},
		{name: "infinite tilt", cam: Camera{ViewTiltDeg: tilt(math.Inf(1))}, want: "camera.view_tilt_deg: +Inf is not a plausible view"},
		{name: "infinite focal", cam: Camera{FocalPx: math.Inf(1)}, want: "camera.focal_px: +Inf is not a plausible focal length"},
		{name: "both", cam: Camera{FocalPx: 1500, ViewTiltDeg: tilt(10)}, want: "camera.view_tilt_deg and camera.focal_px: give one"},
		{name: "focal with lens", cam: Camera{FocalPx: 1500}, lens: Lens{Model: LensBrownConrady, FX: 1400, FY: 1400, CX: 960, CY: 540}, want: "camera.focal_px: the lens model's fx and fy are the focal length"},
		{name: "measured", cam: Camera{ViewTiltDeg: tilt(12.5)}, fixed: 12.5},
		{name: "measured straight down", cam: Camera{ViewTiltDeg: tilt(0)}, fixed: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := validForView(t)
			c.Camera.FocalPx, c.Camera.ViewTiltDeg, c.Lens = tc.cam.FocalPx, tc.cam.ViewTiltDeg, tc.lens
			err := c.Validate()
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("got %v, want an error with %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, px := range []Point{{0, 0}, {960, 540}, {1920, 1080}} {
				if got := c.ViewTiltDeg(px); got != tc.fixed {
					t.Errorf("at %v: %g, want %g", px, got, tc.fixed)
				}
			}
			if c.View().Source != ViewMeasured {
				t.Errorf("source %q, want measured", c.View().Source)
			}
		})
	}
}

// validForView is a valid calibration of a 1920x1080 pinhole 20 degrees
// off vertical.
func validForView(t *testing.T) *Calibration {
	t.Helper()
	p := pinhole{w: 1920, h: 1080, f: 1600, tilt: 20, dst: 2500}
	c := p.calibrate(t, 0, rand.New(rand.NewPCG(1, 1)))
	c.Version = Version
	var poly [][2]float64
	for _, q := range []Point{{0, 0}, {1920, 0}, {1920, 1080}, {0, 1080}} {
		m := apply(c.Homography, q)
		poly = append(poly, [2]float64{m.X * 1.2, m.Y * 1.2})
	}
	c.TablePolygon = poly
	c.Die = Die{EdgeMM: 19}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if c.View().Source != ViewEstimated {
		t.Fatalf("base view: %s", c.View())
	}
	return c
}

// TestViewRoundTrip: the view's fields survive Save and Load, and a file
// without them hashes as before (they are omitted when not given).
func TestViewRoundTrip(t *testing.T) {
	c := validForView(t)
	h0 := c.Hash()
	b, err := c.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "focal_px") || strings.Contains(string(b), "view_tilt_deg") {
		t.Fatalf("unset view fields written:\n%s", b)
	}
	v := 0.0
	c.Camera.ViewTiltDeg = &v
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if c.Hash() == h0 {
		t.Error("a measured tilt does not change the hash")
	}
	b, err = c.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	d, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if d.Camera.ViewTiltDeg == nil || *d.Camera.ViewTiltDeg != 0 || d.ViewTiltDeg(Point{100, 100}) != 0 {
		t.Errorf("view_tilt_deg 0 lost on the round trip:\n%s", b)
	}
}

// TestViewOffCentre: a real camera's principal point is off the image
// centre by a few pixels to a few percent of the width; the estimate
// takes it at the centre, and refuses to estimate where a principal point
// a percent of the width off would move the angle more than
// viewMaxSpreadDeg. A view given must be within 3 degrees with the
// principal point up to 1% of the width off; one over 15 degrees off
// vertical must be given. The errors, with 2% off too, are logged (-v).
func TestViewOffCentre(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for _, tilt := range []float64{10, 15, 25, 35} {
		for _, fs := range []float64{0.6, 1.0, 2.0} {
			for _, off := range []Point{{19, 0}, {0, -19}, {14, 14}, {-38, 20}, {38, 38}} {
				p := pinhole{w: 1920, h: 1080, f: fs * 1920, tilt: tilt, yaw: 30, dst: 3000, off: off}
				c := p.calibrate(t, 0.5, rng)
				e := p.worstError(c)
				t.Logf("tilt %2.0f f %.1fw principal point off by (%3.0f, %3.0f) px: worst error %.2f deg (%s)", tilt, fs, off.X, off.Y, e, c.View())
				if math.IsNaN(e) {
					if tilt > 15 {
						t.Errorf("tilt %g f %g off %v: view refused (%s)", tilt, fs, off, c.View().Reason)
					}
					continue
				}
				if math.Hypot(off.X, off.Y) <= 0.01*1920 && !(e <= 3) {
					t.Errorf("tilt %g f %g off %v: worst error %.2f deg", tilt, fs, off, e)
				}
			}
		}
	}
}

// TestViewDescribeLens: with a lens model, the view's summary (the angle
// at the image's centre, corners and sides) is the angle ViewTiltDeg gives
// there, through the lens model, not the angle at the undistorted
// position the raw pixel would have without it.
func TestViewDescribeLens(t *testing.T) {
	p := pinhole{w: 1920, h: 1080, f: 1600, tilt: 20, dst: 2500}
	c := p.calibrate(t, 0, rand.New(rand.NewPCG(1, 1)))
	c.Lens = Lens{Model: LensBrownConrady, FX: 1600, FY: 1600, CX: 960, CY: 540, K1: -0.2}
	c.prepareView()
	v := c.View()
	if v.Source != ViewFocal {
		t.Fatalf("view %s, want one from the lens model's focal length", v)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, a := range viewGrid {
		for _, b := range viewGrid {
			d := c.ViewTiltDeg(Point{a * 1920, b * 1080})
			lo, hi = math.Min(lo, d), math.Max(hi, d)
		}
	}
	centre := c.ViewTiltDeg(Point{960, 540})
	if math.Abs(v.MinDeg-lo) > 1e-9 || math.Abs(v.MaxDeg-hi) > 1e-9 || math.Abs(v.CentreDeg-centre) > 1e-9 {
		t.Errorf("view %s: ViewTiltDeg gives %.2f at the centre, %.2f..%.2f at the corners and sides", v, centre, lo, hi)
	}
}

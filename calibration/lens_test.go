package calibration

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// publicLens is a camera's lens model from a public OpenCV calibration
// (calibrateCamera's camera matrix and distortion coefficients) and the
// image size it was made for.
type publicLens struct {
	name string
	w, h int
	lens Lens
}

// publicLenses are nine OpenCV calibrations from public repositories,
// 640x480 to 1600x1200, as session 19's review (review20a) collected them
// (their numbers only: the files they came from were not recorded).
var publicLenses = []publicLens{
	{"800x600 long", 800, 600, Lens{Model: LensBrownConrady, FX: 1454.03, FY: 1458.92, CX: 469.791, CY: 180.359, K1: -0.0118792, K2: -1.61905, P1: -0.0128177, P2: -0.00135465}},
	{"800x600 wide", 800, 600, Lens{Model: LensBrownConrady, FX: 538.63, FY: 539.723, CX: 457.698, CY: 297.003, K1: -0.30678, K2: 0.0825017, P1: 0.0028784, P2: -0.00015829}},
	{"640x480 webcam", 640, 480, Lens{Model: LensBrownConrady, FX: 580.46715, FY: 576.62721, CX: 315.27153, CY: 247.47257, K1: 0.134462, K2: -0.311908, P1: 0.002304, P2: 0.003083}},
	{"1280x800 fisheye-like", 1280, 800, Lens{Model: LensBrownConrady, FX: 415.12614, FY: 410.49986, CX: 665.52373, CY: 460.14929, K1: -0.017697, K2: -0.007270, P1: 0.005751, P2: -0.000139}},
	{"640x480 narrow", 640, 480, Lens{Model: LensBrownConrady, FX: 722.937686, FY: 726.001504, CX: 306.509634, CY: 263.802979, K1: 0.109696, K2: -0.556727, P1: -0.001913, P2: 0.000226}},
	{"640x480 wide", 640, 480, Lens{Model: LensBrownConrady, FX: 369.40269, FY: 371.158263, CX: 310.549287, CY: 230.099198, K1: -0.331914, K2: 0.068294, P1: -0.00294, P2: 0.004949}},
	{"1600x1200", 1600, 1200, Lens{Model: LensBrownConrady, FX: 1158.6258, FY: 1156.0605, CX: 765.561, CY: 588.668, K1: -0.1738313, K2: 0.1074727, P1: 0.0042311, P2: -0.0026692}},
	{"960x540", 960, 540, Lens{Model: LensBrownConrady, FX: 582.7585, FY: 580.8446, CX: 479.957, CY: 271.8299, K1: -0.1150974, K2: 0.1029277, P1: 0.0014198, P2: -0.0018379}},
	{"800x600 off-centre", 800, 600, Lens{Model: LensBrownConrady, FX: 1138.8328, FY: 1139.5947, CX: 308.1729, CY: 317.129, K1: -0.1628939, K2: 0.0835183, P1: 0.0122765, P2: 0.0006859}},
}

// onTable is a calibration for a w x h camera with lens l looking
// straight down at a table whose outline's image fills the central share
// of the image each way (the outline is the largest rectangle in the
// ideal image, about the box's centre, whose distorted image stays
// inside that box). The table is about 1000 mm across the image's short
// side.
func onTable(t *testing.T, w, h int, l Lens, share float64) *Calibration {
	t.Helper()
	// mm per ideal px, across and down (a pinhole's view straight down
	// with focal lengths fx and fy)
	s := 1000 / float64(min(w, h))
	sx, sy := s*math.Sqrt(l.FX*l.FY)/l.FX, s*math.Sqrt(l.FX*l.FY)/l.FY
	c := &Calibration{Version: Version, Camera: Camera{Width: w, Height: h}, Lens: l,
		Homography: [9]float64{sx, 0, -sx * l.CX, 0, sy, -sy * l.CY, 0, 0, 1}, Die: Die{EdgeMM: 19}}
	lo := Point{float64(w) * (1 - share) / 2, float64(h) * (1 - share) / 2}
	hi := Point{float64(w) - lo.X, float64(h) - lo.Y}
	mid := Point{(lo.X + hi.X) / 2, (lo.Y + hi.Y) / 2}
	rect := func(k float64) [4]Point {
		return [4]Point{{mid.X + k*(lo.X-mid.X), mid.Y + k*(lo.Y-mid.Y)}, {mid.X + k*(hi.X-mid.X), mid.Y + k*(lo.Y-mid.Y)},
			{mid.X + k*(hi.X-mid.X), mid.Y + k*(hi.Y-mid.Y)}, {mid.X + k*(lo.X-mid.X), mid.Y + k*(hi.Y-mid.Y)}}
	}
	// The rectangle's image, over a grid inside it, stays in the box.
	inside := func(k float64) bool {
		r := rect(k)
		for i := 0; i <= 32; i++ {
			for j := 0; j <= 32; j++ {
				u := Point{r[0].X + (r[1].X-r[0].X)*float64(i)/32, r[0].Y + (r[3].Y-r[0].Y)*float64(j)/32}
				p := l.distort(u)
				if !(p.X >= lo.X && p.X <= hi.X && p.Y >= lo.Y && p.Y <= hi.Y) {
					return false
				}
			}
		}
		return true
	}
	k0, k1 := 0.0, 4.0
	for i := 0; i < 50; i++ {
		if k := (k0 + k1) / 2; inside(k) {
			k0 = k
		} else {
			k1 = k
		}
	}
	for _, u := range rect(k0) {
		m := apply(c.Homography, u)
		c.TablePolygon = append(c.TablePolygon, [2]float64{m.X, m.Y})
	}
	return c
}

// TestLensPublic: the nine public lens models load over a plausible
// table, its outline's image filling the central 80% of the image each
// way (and the check's margin around it). Seven are sound over the whole
// image, without a warning; the 1280x800 one (fx 415) does not reach the
// image's corners (the widest its polynomial reaches is about 680 px from
// the principal point, the corners are 755 away), and is accepted with a
// warning naming the first such pixel. Its model is refused for a table
// that fills the whole image, where the model is near its fold (a pixel
// there is 5 or more in the undistorted image). The largest share
// accepted is logged (-v).
func TestLensPublic(t *testing.T) {
	for _, pl := range publicLenses {
		c := onTable(t, pl.w, pl.h, pl.lens, 0.8)
		if err := c.Validate(); err != nil {
			t.Errorf("%s: %v", pl.name, err)
			continue
		}
		want := ""
		if pl.name == "1280x800 fisheye-like" {
			want = "the model does not invert at pixel (0, 0) outside the table's region"
		}
		if got := c.LensWarning(); (want == "") != (got == "") || !strings.HasPrefix(got, want) {
			t.Errorf("%s: warning %q, want %q", pl.name, got, want)
		}
		if want != "" && !strings.Contains(c.View().String(), "; lens warning: "+want) {
			t.Errorf("%s: the view's summary %q does not carry the warning", pl.name, c.View())
		}
		best := 0.0
		for share := 0.5; share <= 1.0001; share += 0.05 {
			if onTable(t, pl.w, pl.h, pl.lens, share).Validate() != nil {
				break
			}
			best = share
		}
		t.Logf("%-22s loads for a table filling up to %.0f%% of the image each way; warning %q", pl.name, 100*best, c.LensWarning())
	}
	wide := publicLenses[3]
	err := onTable(t, wide.w, wide.h, wide.lens, 1).Validate()
	if err == nil || !strings.Contains(err.Error(), "on the table's region") {
		t.Errorf("%s over the whole image: %v, want refused on the table's region", wide.name, err)
	}
}

// TestLensUndistortWide: undistort inverts a wide lens's model out to the
// image's corners (the 640x480 public lens, k1 -0.33: the 20 fixed-point
// steps alone leave its corner 8 px off), to within a millionth of a
// pixel.
func TestLensUndistortWide(t *testing.T) {
	l := publicLenses[5].lens
	for _, p := range []Point{{0, 0}, {640, 0}, {0, 480}, {640, 480}, {320, 0}, {0, 240}} {
		q, ok := l.undistortOK(p)
		r := l.distort(q)
		if d := math.Hypot(r.X-p.X, r.Y-p.Y); !ok || d > 1e-6 {
			t.Errorf("%v: undistorted to %v, distorted again %.3g px away (ok %v)", p, q, d, ok)
		}
	}
}

// TestLensUndistortNoFold: for radial models that fold (their image
// reaches a widest radius, then comes back in, or through the centre to
// the other side), undistort finds the inner solution, the one before the
// fold, wherever the model reaches, and undistortOK refuses the pixels
// beyond its reach, rather than taking a solution past the fold (which
// distorts back exactly, but is the wrong place). A radial model's inner
// solution is found here along the radius, by bisection up to the first
// fold. Random models with k1 -3..0, k2 -2..2 and a third with k3 -1..1
// (without undistortOK's look for a fold on the way out 5 pixels fail,
// and without that and the fold guard in undistort's Newton steps 579:
// taken as inverting past a fold, or not at the inner solution). A pixel
// the model reaches only past a fold that undistortOK's samples miss (a
// slight one, the model's image dipping back in a little before going
// on out) may be taken as inverting: it has one solution, past the fold.
func TestLensUndistortNoFold(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	checked, beyond, past := 0, 0, 0
	for i := 0; i < 20000; i++ {
		l := Lens{Model: LensBrownConrady, FX: 1000, FY: 1000, CX: 500, CY: 400, K1: -3 * rng.Float64(), K2: 4*rng.Float64() - 2}
		if i%3 == 0 {
			l.K3 = 2*rng.Float64() - 1
		}
		f := func(r float64) float64 {
			r2 := r * r
			return r * (1 + l.K1*r2 + l.K2*r2*r2 + l.K3*r2*r2*r2)
		}
		fold := 0.0
		for fold < 3 && f(fold+0.001) > f(fold) {
			fold += 0.001
		}
		p := Point{1000 * rng.Float64(), 800 * rng.Float64()}
		rd := math.Hypot(p.X-500, p.Y-400) / 1000
		q, ok := l.undistortOK(p)
		const tol = 0.5 / 1000 // the round trip's tolerance
		if rd > f(fold)-tol {
			reached := false
			for r := fold; r < 3 && !reached; r += 0.001 {
				reached = f(r) > rd-tol
			}
			if !reached {
				beyond++
				if ok {
					t.Errorf("%+v: %v is beyond the model's reach (%.4f > %.4f) but undistorts to %v", l, p, rd, f(fold), q)
				}
			} else if ok {
				past++ // reached only past a fold too slight to see
			}
			continue
		}
		lo, hi := 0.0, fold
		for k := 0; k < 60; k++ {
			if m := (lo + hi) / 2; f(m) < rd {
				lo = m
			} else {
				hi = m
			}
		}
		want := Point{500 + (p.X-500)*lo/rd, 400 + (p.Y-400)*lo/rd}
		checked++
		if d := math.Hypot(q.X-want.X, q.Y-want.Y); !ok || d > 1e-3 {
			t.Errorf("%+v: %v undistorts to %v (ok %v), %.3g px from the inner solution %v", l, p, q, ok, d, want)
		}
	}
	t.Logf("%d pixels within reach checked, %d beyond it; %d reached only past a fold taken as inverting", checked, beyond, past)
}

// TestLensRefused: absurd models are refused whatever the table (a k1 of
// 40, a k1 of -2 that folds the image halfway to its sides, even with the
// table in the middle of the image); a model that is wrong where the
// table is is refused, and the same model with the table elsewhere is
// accepted with a warning naming where it is wrong.
func TestLensRefused(t *testing.T) {
	lens := func(k1, k2 float64) Lens {
		return Lens{Model: LensBrownConrady, FX: 1600, FY: 1600, CX: 960, CY: 540, K1: k1, K2: k2}
	}
	for _, tc := range []struct {
		name  string
		lens  Lens
		share float64
		want  string // the error, or with warn the warning
		warn  bool
	}{
		{"k1 40, small table", lens(40, 0), 0.3, "lens: the model shrinks or stretches the image 1.44..2.31 times at pixel (1200, 540) (25% of the way from the image centre to its sides)", false},
		{"k1 4, small table", lens(4, 0), 0.3, "lens: the model shrinks or stretches the image 1.41..2.23 times at pixel (1680, 540) (75% of the way from the image centre to its sides)", false},
		{"k1 -2, small table", lens(-2, 0), 0.3, "lens: the model does not invert at pixel (1440, 540) (50% of the way from the image centre to its sides)", false},
		{"k1 -1, small table", lens(-1, 0), 0.3, "lens: the model does not invert at pixel (1680, 540) (75% of the way from the image centre to its sides)", false},
		{"k1 -0.4, table over the image", lens(-0.4, 0), 1, "on the table's region", false},
		{"k1 -0.4, table off the corners", lens(-0.4, 0), 0.7, "the model does not invert at pixel (0, 0) outside the table's region", true},
		{"k1 -0.2 k2 0.05, table over the image", lens(-0.2, 0.05), 1, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := onTable(t, 1920, 1080, tc.lens, tc.share)
			err := c.Validate()
			if tc.warn {
				if err != nil {
					t.Fatal(err)
				}
				if got := c.LensWarning(); (tc.want == "") != (got == "") || !strings.HasPrefix(got, tc.want) {
					t.Errorf("warning %q, want %q", got, tc.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error with %q", err, tc.want)
			}
		})
	}
}

// TestLensRegionView: where the lens model does not reach, the view is
// not known (NaN), and the view's summary leaves such pixels out.
func TestLensRegionView(t *testing.T) {
	p := publicLenses[3]
	c := onTable(t, p.w, p.h, p.lens, 0.8)
	c.Camera.ViewTiltDeg = nil
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if _, ok := p.lens.undistortOK(Point{0, 0}); ok {
		t.Fatal("the 1280x800 lens reaches its corner")
	}
	c.view = view{done: true, info: ViewInfo{Source: ViewFocal}, pose: pose{cx: p.lens.CX, cy: p.lens.CY, fx: p.lens.FX, fy: p.lens.FY, n: [3]float64{0, 0, 1}}}
	if v := c.ViewTiltDeg(Point{0, 0}); !math.IsNaN(v) {
		t.Errorf("view at the unreached corner %g, want NaN", v)
	}
	if v := c.ViewTiltDeg(Point{640, 400}); math.IsNaN(v) {
		t.Error("view at the centre NaN")
	}
	in := c.describe(c.view.pose, ViewFocal)
	if math.IsNaN(in.MinDeg) || math.IsNaN(in.MaxDeg) || in.MaxDeg > 90 {
		t.Errorf("summary %+v", in)
	}
}

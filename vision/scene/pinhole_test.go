package scene

import (
	"image"
	"math"
	"testing"
)

// lookAt is a pinhole written independently of pinholeCam: the camera at
// c looking at the table's origin, the picture's x along the table's x.
type lookAt struct {
	c, right, down, fwd vec3
	f, cx, cy           float64
}

func newLookAt(h, tilt, f float64) lookAt {
	c := vec3{0, h * math.Tan(tilt*math.Pi/180), h}
	n := math.Sqrt(dot3(c, c))
	fwd := vec3{-c[0] / n, -c[1] / n, -c[2] / n}
	right := vec3{1, 0, 0}
	// down = right x fwd
	down := vec3{right[1]*fwd[2] - right[2]*fwd[1], right[2]*fwd[0] - right[0]*fwd[2], right[0]*fwd[1] - right[1]*fwd[0]}
	return lookAt{c: c, right: right, down: down, fwd: fwd, f: f, cx: 320, cy: 320}
}

func (l lookAt) px(q vec3) (float64, float64) {
	d := vec3{q[0] - l.c[0], q[1] - l.c[1], q[2] - l.c[2]}
	z := dot3(d, l.fwd)
	return l.cx + l.f*dot3(d, l.right)/z, l.cy + l.f*dot3(d, l.down)/z
}

// pinRaster is a 640x640 black raster drawn through the pinhole.
func pinRaster(t *testing.T, h, tilt, f float64) *raster {
	t.Helper()
	c := newPinholeCam(h, tilt, f, 640, 640)
	toImg, toTab, err := c.tableMaps(640, 640)
	if err != nil {
		t.Fatal(err)
	}
	v := &view{cam: Camera{Width: 640, Height: 640, FPS: 30, PxPerMM: 1}, toImg: toImg, toTab: toTab}
	return &raster{buf: make([]byte, 640*640*3), w: 640, h: 640, stride: 640 * 3, v: v, pin: &c}
}

// drawnBox is the box of the pixels a draw changed from black.
func drawnBox(r *raster) image.Rectangle {
	b := image.Rectangle{}
	for y := 0; y < r.h; y++ {
		for x := 0; x < r.w; x++ {
			i := y*r.stride + 3*x
			if r.buf[i]|r.buf[i+1]|r.buf[i+2] != 0 {
				b = b.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	return b
}

// A flat die under a known pinhole lands where that camera projects it:
// its top face's box is the projection of the face's corners an edge up,
// its size the focal length over the face's depth, and its drawn pixels
// fill the box of its visible faces.
func TestPinholeDieLands(t *testing.T) {
	const h, tilt, f, spin = 800.0, 20.0, 900.0, 0.3
	l := newLookAt(h, tilt, f)
	for _, at := range []pt{{0, 0}, {60, -40}, {-120, 150}} {
		r := pinRaster(t, h, tilt, f)
		p := pose{X: at.X, Y: at.Y, R: restRotation(5, spin, 0, 0), Scale: 1}
		// the top face's corners, by hand
		x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
		yaw := math.Atan2(p.R[3], p.R[0])
		for _, c := range [4][2]float64{{-.5, -.5}, {.5, -.5}, {.5, .5}, {-.5, .5}} {
			dx := (c[0]*math.Cos(yaw) - c[1]*math.Sin(yaw)) * edgeMM
			dy := (c[0]*math.Sin(yaw) + c[1]*math.Cos(yaw)) * edgeMM
			px, py := l.px(vec3{at.X + dx, at.Y + dy, edgeMM})
			x0, y0, x1, y1 = math.Min(x0, px), math.Min(y0, py), math.Max(x1, px), math.Max(y1, py)
		}
		want := image.Rect(int(math.Round(x0)), int(math.Round(y0)), int(math.Round(x1)), int(math.Round(y1)))
		got := r.faceBox(edgeMM, p, true)
		if d := absDiff(got, want); d > 1 {
			t.Errorf("die at %v: top face box %v, the pinhole projects %v", at, got, want)
		}
		// its size: f over the depth, across the face's turned square
		mid := vec3{at.X, at.Y, edgeMM}
		d := vec3{mid[0] - l.c[0], mid[1] - l.c[1], mid[2] - l.c[2]}
		side := f * edgeMM / dot3(d, l.fwd) * (math.Abs(math.Cos(yaw)) + math.Abs(math.Sin(yaw)))
		if w := float64(got.Dx()); math.Abs(w-side) > 1.5 {
			t.Errorf("die at %v: top face %g px across, want about %.1f", at, w, side)
		}
		st := Styles()[1]
		r.drawDie(edgeMM, &st, []pose{p}, 3)
		hull := r.faceBox(edgeMM, p, false)
		if db := drawnBox(r); absDiff(db, hull) > 2 || !db.In(r.dieBox(edgeMM, []pose{p})) {
			t.Errorf("die at %v: drawn over %v, its visible faces box %v (die box %v)", at, db, hull, r.dieBox(edgeMM, []pose{p}))
		}
	}
}

func absDiff(a, b image.Rectangle) int {
	m := 0
	for _, d := range []int{a.Min.X - b.Min.X, a.Min.Y - b.Min.Y, a.Max.X - b.Max.X, a.Max.Y - b.Max.Y} {
		if d < 0 {
			d = -d
		}
		m = max(m, d)
	}
	return m
}

// The side faces a pinhole shows are those that face the nadir (the
// table point under the camera), and each is drawn on the nadir's side
// of the top face in the picture: all round the nadir straight down, and
// under a tilted camera back up the picture for a die between the nadir
// and the picture's near edge, where the historical draw shows the near
// side at every place.
func TestPinholeSidesFaceNadir(t *testing.T) {
	cases := []struct {
		tilt float64
		at   pt
		// the world normals of the side faces that must show, and the
		// picture direction from the top face to each
		sides [][2]float64
		dirs  [][2]float64
	}{
		{0, pt{150, 0}, [][2]float64{{-1, 0}}, [][2]float64{{-1, 0}}},
		{0, pt{-150, 0}, [][2]float64{{1, 0}}, [][2]float64{{1, 0}}},
		{0, pt{0, 150}, [][2]float64{{0, -1}}, [][2]float64{{0, -1}}},
		{0, pt{-150, -150}, [][2]float64{{1, 0}, {0, 1}}, [][2]float64{{1, 0}, {0, 1}}},
		// tilt 30, 600 mm up: the nadir is 346 mm down the picture
		{30, pt{0, -150}, [][2]float64{{0, 1}}, [][2]float64{{0, 1}}},
		{30, pt{0, 460}, [][2]float64{{0, -1}}, [][2]float64{{0, -1}}},
	}
	for _, c := range cases {
		r := pinRaster(t, 600, c.tilt, 320)
		p := pose{X: c.at.X, Y: c.at.Y, R: restRotation(1, 0, 0, 0), Scale: 1}
		st := Styles()[1]
		fs := r.facesOf(edgeMM, p, &st)
		var top *facePx
		var sides []facePx
		for i := range fs {
			n := mulMV(p.R, fs[i].f.n)
			if n[2] > 0.99 {
				top = &fs[i]
			} else {
				sides = append(sides, fs[i])
			}
		}
		if top == nil || len(sides) != len(c.sides) {
			t.Errorf("tilt %g, die at %v: %d faces seen, want the top and %d sides", c.tilt, c.at, len(fs), len(c.sides))
			continue
		}
		for k, want := range c.sides {
			found := false
			for _, s := range sides {
				n := mulMV(p.R, s.f.n)
				if math.Abs(n[0]-want[0]) > 1e-9 || math.Abs(n[1]-want[1]) > 1e-9 {
					continue
				}
				found = true
				dx, dy := s.ox-top.ox, s.oy-top.oy
				if dx*c.dirs[k][0]+dy*c.dirs[k][1] <= 0.5*math.Hypot(dx, dy) {
					t.Errorf("tilt %g, die at %v: side %v drawn (%.1f, %.1f) from the top face, want towards %v", c.tilt, c.at, want, dx, dy, c.dirs[k])
				}
			}
			if !found {
				t.Errorf("tilt %g, die at %v: side facing %v not seen", c.tilt, c.at, want)
			}
		}
	}
}

// A pinhole still: the truth carries the camera, the draw is the same
// every time, a die's size follows the focal length, and the option does
// not mix with CameraHeightMM.
func TestPinholeStill(t *testing.T) {
	o := StillOptions{Pinhole: PinholeOptions{HeightMM: HeightRange{Min: 700, Max: 900}}}
	for _, seed := range []int64{1, 7} {
		a, tr, err := StillJPEG(seed, o)
		if err != nil {
			t.Fatal(err)
		}
		b, _, _ := StillJPEG(seed, o)
		if string(a) != string(b) {
			t.Errorf("still %d: two pinhole draws differ", seed)
		}
		_, hist, _ := StillJPEG(seed, StillOptions{})
		if tr.FocalPx <= 0 || tr.CameraHeightMM < 700 || tr.CameraHeightMM > 900 || tr.CameraTiltDeg != hist.CameraTiltDeg {
			t.Errorf("still %d: camera %g mm, %g deg, f %g px; historical tilt %g", seed, tr.CameraHeightMM, tr.CameraTiltDeg, tr.FocalPx, hist.CameraTiltDeg)
		}
		// the focal length keeps the still's die edge at the centre
		dist := tr.CameraHeightMM / math.Cos(tr.CameraTiltDeg*math.Pi/180)
		if e := tr.FocalPx / dist * edgeMM; math.Abs(e-hist.EdgePx) > 0.1 {
			t.Errorf("still %d: edge %.2f at the centre, historical %.1f", seed, e, hist.EdgePx)
		}
		if len(tr.Dice) != len(hist.Dice) {
			t.Errorf("still %d: %d dice, historical %d", seed, len(tr.Dice), len(hist.Dice))
		}
	}
	o.CameraHeightMM = HeightRange{Min: 800}
	if _, _, err := StillJPEG(1, o); err == nil {
		t.Error("a pinhole and a camera height together: no error")
	}
	if _, _, err := StillJPEG(1, StillOptions{Pinhole: PinholeOptions{HeightMM: HeightRange{Min: 30}}}); err == nil {
		t.Error("a pinhole 30 mm up: no error")
	}
}

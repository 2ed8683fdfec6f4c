package vision

import (
	"math"
	"testing"

	"github.com/dicewatch/dicewatch/vision/scene"
)

// TestSidesFrom: with no edge map, or one that is the same everywhere,
// topFace keeps the optical centre; with an edge growing down the frame
// (a camera tilted towards the picture's bottom), the sides are taken to
// face down, wherever the die lies, and topFace keeps the footprint's
// upper end.
func TestSidesFrom(t *testing.T) {
	c := candidate{cx: 100, cy: 400, w: 40, h: 56, edge: 40}
	const ocx, ocy = 320, 240
	r := &Reader{}
	if x, y := r.sidesFrom(c, 0, 0, ocx, ocy); x != ocx || y != ocy {
		t.Errorf("no edge map: sides face %.0f,%.0f, want the optical centre", x, y)
	}
	r.opts.ExpectedEdgePx = func(x, y float64) float64 { return 40 }
	if x, y := r.sidesFrom(c, 0, 0, ocx, ocy); x != ocx || y != ocy {
		t.Errorf("flat edge map: sides face %.0f,%.0f, want the optical centre", x, y)
	}
	// The edge 30 px at the top of a 640 px frame, 50 at the bottom.
	r.opts.ExpectedEdgePx = func(x, y float64) float64 { return 30 + 20*y/640 }
	x, y := r.sidesFrom(c, 0, 0, ocx, ocy)
	if !(y > c.cy+1000 && math.Abs(x-c.cx) < 1) {
		t.Fatalf("tilted: sides face %.0f,%.0f, want far below %.0f,%.0f", x, y, c.cx, c.cy)
	}
	// Below the optical centre the centre's rule takes the lower end (the
	// side face); the tilt's takes the upper one.
	if got := topFace(c, ocx, ocy); got.cy <= c.cy {
		t.Errorf("optical centre: top face at y %.1f, want below %.1f", got.cy, c.cy)
	}
	if got := topFace(c, x, y); !(got.cy < c.cy && got.w == 40 && got.h == 40) {
		t.Errorf("tilted: top face at y %.1f (%.0fx%.0f), want a 40 px square above %.1f", got.cy, got.w, got.h, c.cy)
	}
	// A slope under minSideSlope per die edge counts as straight down.
	r.opts.ExpectedEdgePx = func(x, y float64) float64 { return 40 + 0.001*y }
	if x, y := r.sidesFrom(c, 0, 0, ocx, ocy); x != ocx || y != ocy {
		t.Errorf("nearly flat edge map: sides face %.0f,%.0f, want the optical centre", x, y)
	}
}

// TestTiltSideStills: clean dice the calibrated read (the edge at each
// place) gave wrong values at edf07bb, each on a face rectangle taken at
// the footprint's end over the near side face (stills 474, 1177 and 1718,
// a 6 read 1, a 2 read 1 and a 4 read 6), are no longer read wrong. Fails
// with tiltSideOff.
func TestTiltSideStills(t *testing.T) {
	if testing.Short() {
		t.Skip("reads generated stills")
	}
	r := NewReader(ReaderOptions{DiePx: 1, PipSpread: stillPipSpread})
	defer r.Close()
	for _, seed := range []int64{474, 1177, 1718} {
		img, tr, err := scene.Still(seed, scene.StillOptions{})
		if err != nil {
			t.Fatal(err)
		}
		coverByStacked(tr.Dice)
		r.opts.DiePx, r.opts.ExpectedEdgePx = tr.EdgePx, stillEdgeAt(tr)
		dets, err := r.Read(img)
		img.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range matchStill(tr.Dice, dets) {
			g, d := tr.Dice[p[0]], dets[p[1]]
			if stillGroup(g) == "clean" && d.Value > 0 && d.Value != g.Value {
				t.Errorf("still %d die %d: clean %d read %d at %.2f", seed, p[0], g.Value, d.Value, d.Confidence)
			}
		}
	}
}

// pinhole is a camera h mm above the table, pitched tilt degrees off
// straight down towards the table's far end (the picture's top), with
// focal length f px and principal point (px, py).
type pinhole struct{ h, tilt, f, px, py float64 }

// ray gives the table depth along the optical axis (mm) and the line of
// sight's angle off vertical (degrees) at image point (x, y).
func (p pinhole) ray(x, y float64) (depth, deg float64) {
	t := p.tilt * math.Pi / 180
	// The ray in camera terms is axis + (x-px)/f right + (y-py)/f down;
	// the axis leans forward by t, image down leans back by t, so the
	// ray's drop per unit along the axis is:
	u, v := (x-p.px)/p.f, (y-p.py)/p.f
	down := math.Cos(t) + v*math.Sin(t)
	if down <= 0 {
		return math.Inf(1), math.NaN()
	}
	return p.h / down, math.Acos(down/math.Sqrt(1+u*u+v*v)) * 180 / math.Pi
}

// edgeAt is the picture of a die edge of e mm at image point (x, y).
func (p pinhole) edgeAt(e float64) func(x, y float64) float64 {
	return func(x, y float64) float64 { z, _ := p.ray(x, y); return p.f * e / z }
}

func (p pinhole) viewAt(x, y float64) float64 { _, d := p.ray(x, y); return d }

// nadir is the image of the table point under the camera.
func (p pinhole) nadir() (float64, float64) {
	return p.px, p.py + p.f*math.Tan(p.tilt*math.Pi/180)
}

// TestSidesFromPinhole: under a pinhole camera 1 m up, 1280x720 with a
// 900 px focal length, tilted 8, 12 and 20 degrees (16 mm dice, and 25 mm
// at 8 degrees), a die's sides face
// the nadir's image on both sides of it, and sidesFrom, given the view at
// each place, points there. Given only the edge map it points down the
// picture where the edge grows fast enough (12 and 20 degrees, and 8
// with 25 mm dice), wrong between the nadir and the near edge, and at
// the optical centre where it does not (8 degrees, 16 mm), wrong between
// the centre and the nadir (the
// test checks that such dice exist at each tilt, so it fails without
// the view's rule). With no view, one view for the picture, or NaN, the result is
// the edge map's exactly.
func TestSidesFromPinhole(t *testing.T) {
	const ocx, ocy = 640, 360
	for _, tc := range []struct{ tilt, mm float64 }{{8, 16}, {8, 25}, {12, 16}, {20, 16}} {
		tilt := tc.tilt
		cam := pinhole{h: 1000, tilt: tilt, f: 900, px: ocx, py: ocy}
		nx, ny := cam.nadir()
		edge := cam.edgeAt(tc.mm)
		var oldWrong, below int
		for y := 20.0; y <= 710; y += 30 {
			for _, x := range []float64{60, 400, 640, 900, 1220} {
				e := edge(x, y)
				if math.Hypot(x-nx, y-ny) < 2*e {
					continue // at the nadir no side shows
				}
				c := candidate{cx: x, cy: y, w: e, h: 1.3 * e, edge: e}
				r := &Reader{opts: ReaderOptions{ExpectedEdgePx: edge}}
				ex, ey := r.sidesFrom(c, 0, 0, ocx, ocy)
				for _, view := range []func(x, y float64) float64{
					func(x, y float64) float64 { return tilt },
					func(x, y float64) float64 { return math.NaN() },
				} {
					r.opts.ViewTiltDeg = view
					if gx, gy := r.sidesFrom(c, 0, 0, ocx, ocy); gx != ex || gy != ey {
						t.Errorf("tilt %.0f at %.0f,%.0f: constant or NaN view gives %v,%v, edge map %v,%v", tilt, x, y, gx, gy, ex, ey)
					}
				}
				r.opts.ViewTiltDeg = cam.viewAt
				sx, sy := r.sidesFrom(c, 0, 0, ocx, ocy)
				wx, wy := nx-x, ny-y
				cos := ((sx-x)*wx + (sy-y)*wy) / math.Hypot(sx-x, sy-y) / math.Hypot(wx, wy)
				if !(cos > 0.95) {
					t.Errorf("tilt %.0f at %.0f,%.0f: sides face %.0f,%.0f (cos %.3f to the nadir %.0f,%.0f)", tilt, x, y, sx, sy, cos, nx, ny)
				}
				if (ex-x)*wx+(ey-y)*wy < 0 {
					oldWrong++
					if y > ny {
						below++
					}
				}
			}
		}
		t.Logf("tilt %.0f, %.0f mm dice: nadir at %.0f,%.0f; without the view the sides are taken to face away from it on %d dice, %d of them below it", tilt, tc.mm, nx, ny, oldWrong, below)
		if oldWrong == 0 {
			t.Errorf("tilt %.0f: no die where the rules differ", tilt)
		}
	}
}

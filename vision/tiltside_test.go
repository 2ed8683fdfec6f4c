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

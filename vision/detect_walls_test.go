package vision

import (
	"image"
	"math"
	"testing"
)

// TestStripRunsFreesDiceFromWall: a wall (a long band thinner than a
// die) is taken out of its region, under the die that touches it too,
// while the die and a row of dice pressed together (long runs, but
// thick across) stay.
func TestStripRunsFreesDiceFromWall(t *testing.T) {
	const w, h, id = 200, 120, 3
	lab := make([]int32, w*h)
	fill := func(r image.Rectangle) {
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				lab[y*w+x] = id
			}
		}
	}
	wall := image.Rect(10, 10, 190, 18) // 8 px thick
	side := image.Rect(10, 10, 18, 110) // a second wall, down the left
	die := image.Rect(60, 18, 80, 38)   // 20 px die against the wall
	row := image.Rect(100, 18, 160, 38) // three dice pressed in a row
	fill(wall)
	fill(side)
	fill(die)
	fill(row)
	lab[5*w+5] = 7 // another component's pixel: left alone
	bb := image.Rect(0, 0, w, h)
	var buf []uint16
	stripRuns(lab, w, bb, id, 50, 14, &buf)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			p := image.Pt(x, y)
			want := int32(0)
			switch {
			case p.In(die) || p.In(row):
				want = id
			case x == 5 && y == 5:
				want = 7
			}
			if lab[y*w+x] != want {
				t.Fatalf("pixel (%d,%d): label %d, want %d", x, y, lab[y*w+x], want)
			}
		}
	}
}

// TestClusterPartsCutsPressedDice: two dice pressed together side by
// side, offset along the side they share, make one region; it is cut at
// the neck into one part per die, each about a die's area.
func TestClusterPartsCutsPressedDice(t *testing.T) {
	const w, h, id, sd = 80, 60, 1, 20.0
	lab := make([]int32, w*h)
	a, b := image.Rect(10, 10, 30, 30), image.Rect(30, 14, 50, 34)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if p := image.Pt(x, y); p.In(a) || p.In(b) {
				lab[y*w+x] = id
			}
		}
	}
	dist := make([]float32, w*h)
	bb := a.Union(b)
	chamfer(lab, dist, w, bb, id)
	var own []int32
	parts, areas := clusterParts(lab, dist, w, bb, id, 0.3*sd, sd, &own)
	if len(parts) != 2 {
		t.Fatalf("%d parts, want 2", len(parts))
	}
	for i, p := range parts {
		c := rectOf(p)
		if areas[i] < 300 || areas[i] > 500 || (math.Abs(c.cx-20) > 4 && math.Abs(c.cx-40) > 4) {
			t.Errorf("part %d: area %d, centre (%.1f, %.1f)", i, areas[i], c.cx, c.cy)
		}
	}
	// One die alone is one part.
	for i := range lab {
		if p := image.Pt(i%w, i/w); p.In(b) {
			lab[i] = 0
		}
	}
	chamfer(lab, dist, w, a, id)
	if parts, _ := clusterParts(lab, dist, w, a, id, 0.3*sd, sd, &own); len(parts) != 1 {
		t.Fatalf("one die: %d parts, want 1", len(parts))
	}
}

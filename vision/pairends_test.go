package vision

import (
	"math"
	"testing"
)

// TestPairEnds: a region twice the typical die long gives one die-sized
// square at each end, a region that long both ways one at each corner,
// and a region about one die long none.
func TestPairEnds(t *testing.T) {
	cases := []struct {
		name    string
		c       candidate
		centres [][2]float64
	}{
		{"one die", candidate{cx: 50, cy: 50, w: 22, h: 20, edge: 21, sizeRatio: 1.05}, nil},
		{"pair along x", candidate{cx: 50, cy: 50, w: 40, h: 20, edge: 30, sizeRatio: 1.5},
			[][2]float64{{40, 50}, {60, 50}}},
		{"pair along y", candidate{cx: 50, cy: 50, w: 20, h: 40, edge: 30, sizeRatio: 1.5},
			[][2]float64{{50, 60}, {50, 40}}},
		{"block of four", candidate{cx: 50, cy: 50, w: 40, h: 40, edge: 40, sizeRatio: 2},
			[][2]float64{{40, 40}, {40, 60}, {60, 40}, {60, 60}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := pairEnds(tc.c)
			if len(got) != len(tc.centres) {
				t.Fatalf("%d squares, want %d", len(got), len(tc.centres))
			}
			for _, want := range tc.centres {
				ok := false
				for _, g := range got {
					if math.Hypot(g.cx-want[0], g.cy-want[1]) < 1e-6 {
						ok = true
						if math.Abs(g.edge-20) > 1e-6 || g.w != g.edge || g.h != g.edge || !g.weak {
							t.Errorf("square at %v: edge %.2f (%.2f x %.2f), weak %v; want a weak 20 px square", want, g.edge, g.w, g.h, g.weak)
						}
					}
				}
				if !ok {
					t.Errorf("no square at %v in %+v", want, got)
				}
			}
		})
	}
}

// TestOverRegionEnds: without a known die size, a region far larger than
// the frame's typical die (over) is read at its ends once dice of the
// typical size read (ReadRegion). On byler_d6, IMG_20191208_112926 holds
// a green 2 and a yellow 4 meeting corner to corner by the tray's wall,
// found as one region twice the typical die: the 2 must be detected
// (without the ends, neither die is). Only its end reads, and one face
// alone in such a region (on the generated stills, a cocked die's side
// face) is reported unread, not flat.
func TestOverRegionEnds(t *testing.T) {
	ps := loadPhotoSet(t, "byler_d6")
	const name, label = "IMG_20191208_112926.jpg", 1
	r := NewReader(ReaderOptions{})
	defer r.Close()
	dets := readPhoto(t, r, ps, name)
	truth := ps.dice[name]
	for _, p := range match(truth, dets) {
		if p[0] != label {
			continue
		}
		if d := dets[p[1]]; d.Value != 0 || d.Flat {
			t.Errorf("%s label %d (a %d): value %d, flat %v; want unread, not flat", name, label, truth[label].value, d.Value, d.Flat)
		}
		return
	}
	t.Errorf("%s label %d (a %d): not detected", name, label, truth[label].value)
}

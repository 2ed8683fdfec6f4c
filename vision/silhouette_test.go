package vision

import (
	"math"
	"testing"
)

// silFrame draws, on a light floor, dark squares (centre, edge, turn in
// radians) with light pips at a 4's places, and returns the frame.
func silFrame(w, h int, squares [][4]float64) bgrImage {
	pix := make([]uint8, w*h*3)
	for i := range pix {
		pix[i] = 205
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			for _, q := range squares {
				co, si := math.Cos(q[3]), math.Sin(q[3])
				dx, dy := float64(x)+0.5-q[0], float64(y)+0.5-q[1]
				u, v := dx*co+dy*si, -dx*si+dy*co
				if math.Abs(u) > q[2]/2 || math.Abs(v) > q[2]/2 {
					continue
				}
				c := uint8(40)
				for _, p := range [][2]float64{{-1, -1}, {1, -1}, {-1, 1}, {1, 1}} {
					if math.Hypot(u-p[0]*0.27*q[2], v-p[1]*0.27*q[2]) < 0.09*q[2] {
						c = 230 // a pip the floor's colour: a hole in the outline
					}
				}
				o := (y*w + x) * 3
				pix[o], pix[o+1], pix[o+2] = c, c, c
			}
		}
	}
	return bgrImage{pix: pix, w: w, h: h}
}

func TestSilhouette(t *testing.T) {
	const turn = 27 * math.Pi / 180
	tests := []struct {
		name    string
		squares [][4]float64
		ok      bool
	}{
		{"alone", [][4]float64{{60, 60, 36, turn}}, true},
		{"touching a neighbour", [][4]float64{{60, 60, 36, turn}, {92, 60, 36, 0}}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fr := silFrame(120, 120, tc.squares)
			var s faceScratch
			// The segmentation's guess: off by 3 px, 10% large, unturned.
			c := candidate{cx: 62, cy: 58, w: 40, h: 40, edge: 40}
			got, ok := s.silhouette(fr, c)
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			if !ok {
				return
			}
			if d := math.Abs(math.Remainder(got.angle-turn, math.Pi/2)); d > 1.5*math.Pi/180 {
				t.Errorf("angle %.1f deg, want 27 (mod 90)", got.angle*180/math.Pi)
			}
			if math.Abs(got.edge-36) > 1.5 || math.Hypot(got.cx-60, got.cy-60) > 1 {
				t.Errorf("rectangle centre (%.1f, %.1f) edge %.1f, want (60, 60) and 36", got.cx, got.cy, got.edge)
			}
		})
	}
	// An outline that fills half its rectangle (a wedge: a shadow, a
	// die half hidden) is no face, though its rectangle is square and
	// the candidate's size.
	t.Run("wedge", func(t *testing.T) {
		const w, h = 120, 120
		pix := make([]uint8, w*h*3)
		for i := range pix {
			pix[i] = 205
		}
		for y := 40; y < 80; y++ {
			for x := 40; x < 40+(80-y); x++ {
				o := (y*w + x) * 3
				pix[o], pix[o+1], pix[o+2] = 40, 40, 40
			}
		}
		var s faceScratch
		c := candidate{cx: 55, cy: 62, w: 40, h: 40, edge: 40}
		if got, ok := s.silhouette(bgrImage{pix: pix, w: w, h: h}, c); ok {
			t.Errorf("wedge taken as a face: %+v", got)
		}
	})
}

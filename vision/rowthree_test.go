package vision

import (
	"math"
	"testing"
	"time"
)

// paintFace paints, on a grey table, a die face of edge e turned by turn
// radians about (cx, cy), with pips of radius 0.1 e at the given offsets
// (face axes, over the edge).
func paintFace(n int, cx, cy, e, turn float64, pips [][2]float64) bgrImage {
	fr := bgrImage{pix: make([]uint8, 3*n*n), w: n, h: n}
	c, s := math.Cos(turn), math.Sin(turn)
	for y := range n {
		for x := range n {
			dx, dy := float64(x)+0.5-cx, float64(y)+0.5-cy
			a, b := (c*dx+s*dy)/e, (-s*dx+c*dy)/e
			col := [3]uint8{120, 120, 120} // table
			if math.Abs(a) <= 0.5 && math.Abs(b) <= 0.5 {
				col = [3]uint8{40, 30, 200} // body
				for _, p := range pips {
					if math.Hypot(a-p[0], b-p[1]) <= 0.1 {
						col = [3]uint8{240, 240, 240}
					}
				}
			}
			copy(fr.pix[3*(y*n+x):], col[:])
		}
	}
	return fr
}

// TestBetweenTwoPips: a 3 whose pips lie in a row across the frame, read
// as a 1 from its middle pip, is caught; a 1, and a 1 with a neighbour's
// pips beside it, are not.
func TestBetweenTwoPips(t *testing.T) {
	const n, e = 200, 50.0
	body := [3]float64{40, 30, 200}
	one := func(fr bgrImage, x, y float64) faceValue {
		fv := faceValue{value: 1, pipRing: 1, body: body}
		fv.pips[0] = [3]float64{x, y, 0.1 * e}
		return fv
	}
	d := 0.27
	three := paintFace(n, 100, 100, e, math.Pi/4, [][2]float64{{-d, -d}, {0, 0}, {d, d}})
	if !betweenTwoPips(three, one(three, 100, 100), e) {
		t.Error("a 3 turned 45 degrees read as a 1: not caught")
	}
	if betweenTwoPips(three, one(three, 100, 100), 0) {
		t.Error("without a known edge: caught")
	}
	lone := paintFace(n, 100, 100, e, 0.3, [][2]float64{{0, 0}})
	if betweenTwoPips(lone, one(lone, 100, 100), e) {
		t.Error("a 1: caught")
	}
	// A 1 between two 6s touching it on either side: their pips are 0.73
	// edges off or more.
	row := paintFace(n, 100, 100, e, 0, [][2]float64{{0, 0}, {1 - d, -d}, {1 - d, 0}, {1 - d, d}, {-1 + d, -d}, {-1 + d, 0}, {-1 + d, d}})
	for y := range n {
		for x := range n {
			dx := math.Abs(float64(x) + 0.5 - 100)
			if dx > e/2 && dx <= 1.5*e && math.Abs(float64(y)+0.5-100) <= e/2 {
				o := 3 * (y*n + x)
				a := (dx - e) / e
				bb := (float64(y) + 0.5 - 100) / e
				col := [3]uint8{40, 30, 200}
				for _, p := range [][2]float64{{-d, -d}, {-d, 0}, {-d, d}, {d, -d}, {d, 0}, {d, d}} {
					if math.Hypot(a-p[0], bb-p[1]) <= 0.1 {
						col = [3]uint8{240, 240, 240}
					}
				}
				copy(row.pix[o:], col[:])
			}
		}
	}
	if betweenTwoPips(row, one(row, 100, 100), e) {
		t.Error("a 1 between two 6s: caught")
	}
}

// TestBetweenTwoPipsHugeEdge: an expected edge far past the picture (an
// ExpectedEdgePx that blows up near a calibration's horizon) must not
// keep the row search walking past the picture's border: with an
// infinite edge its ray never ended.
func TestBetweenTwoPipsHugeEdge(t *testing.T) {
	body := [3]float64{40, 30, 200}
	fr := paintFace(80, 40, 40, 40, 0.3, [][2]float64{{0, 0}})
	fv := faceValue{value: 1, pipRing: 1, body: body}
	fv.pips[0] = [3]float64{40, 40, 4}
	for _, e := range []float64{1e6, math.Inf(1)} {
		done := make(chan bool, 1)
		go func() { done <- betweenTwoPips(fr, fv, e) }()
		select {
		case got := <-done:
			if got {
				t.Errorf("edge %g: a lone 1 caught", e)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("edge %g: no answer in 5 s", e)
		}
	}
}

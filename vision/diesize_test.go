package vision

import (
	"image"
	"testing"
)

func TestTypicalEdge(t *testing.T) {
	die := func(x, y, e float64, cut bool) candidate {
		return candidate{cx: x, cy: y, w: e, h: e, edge: e, cut: cut}
	}
	cases := []struct {
		name  string
		cands []candidate
		want  float64
	}{
		// A keyboard's square at the frame's edge outweighs three dice.
		{"large cut square", []candidate{die(570, 60, 130, true), die(110, 200, 50, false), die(320, 150, 48, false), die(250, 280, 56, false)}, 50},
		// Small pieces of a vignetted corner outnumber one die.
		{"small cut pieces", []candidate{die(9, 390, 19, true), die(9, 410, 19, true), die(9, 430, 19, true), die(9, 450, 19, true), die(9, 470, 19, true), die(9, 370, 19, true), die(300, 200, 46, false)}, 46},
		// A die at the frame's edge of about the others' size changes nothing.
		{"die at the edge", []candidate{die(10, 100, 60, true), die(200, 200, 50, false), die(300, 200, 52, false)}, 52},
		// Nothing but cut candidates: they are all there is.
		{"all cut", []candidate{die(5, 5, 30, true)}, 30},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := typicalEdge(tc.cands); got != tc.want {
				t.Errorf("typicalEdge = %v, want %v", got, tc.want)
			}
		})
	}
	if !atFrameEdge(image.Rect(0, 10, 20, 30), 640, 480) || atFrameEdge(image.Rect(1, 1, 639, 479), 640, 480) || !atFrameEdge(image.Rect(600, 400, 640, 470), 640, 480) {
		t.Error("atFrameEdge")
	}
}

package vision

import (
	"math"
	"testing"
)

// TestRelativeSizeSynthetic: without an expected size, a die drawn 1.18
// times the size of the frame's other dice (as a die resting on another
// looks) is measured against them by its pips and passes the stacked cut
// (1.12), while the others, one with a dark shadow joined to its
// footprint, stay under it. By their footprints against the frame's
// typical footprint (the ratio before relativeSize) the shadowed 3 read
// 1.34 and the large 5 1.00.
func TestRelativeSizeSynthetic(t *testing.T) {
	const edge, big = 30.0, 1.18
	var dice []synthDie
	for v := 2; v <= 6; v++ {
		e := edge
		if v == 5 {
			e = edge * big
		}
		dice = append(dice, synthDie{cx: float64(100 + 150*(v-2)), cy: 200 + float64(v%2)*110, edge: e, angle: 0.3 + float64(v)*0.07, value: v})
	}
	img := drawTable(800, 450, dice, 11)
	defer img.Close()
	// A dark shadow cast beside the 3, half an edge wide along two of
	// its sides, joins its footprint.
	sh := dice[1]
	for y := int(sh.cy - 0.3*edge); y < int(sh.cy+1.1*edge); y++ {
		for x := int(sh.cx - 0.3*edge); x < int(sh.cx+1.1*edge); x++ {
			if math.Hypot(float64(x)-sh.cx, float64(y)-sh.cy) < 0.75*edge {
				continue // the die
			}
			for c := 0; c < 3; c++ {
				img.SetUCharAt(y, 3*x+c, img.GetUCharAt(y, 3*x+c)/4)
			}
		}
	}
	r := NewReader(ReaderOptions{})
	defer r.Close()
	got, err := r.Read(img)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dice {
		var g *Detection
		for i := range got {
			if math.Hypot(got[i].CX-d.cx, got[i].CY-d.cy) < d.edge/4 {
				g = &got[i]
			}
		}
		if g == nil {
			t.Fatalf("die at %.0f,%.0f not found", d.cx, d.cy)
		}
		want := d.edge / edge
		t.Logf("value %d: size ratio %.3f, drawn %.2f", g.Value, g.SizeRatio, want)
		if g.Value != d.value {
			t.Errorf("die at %.0f,%.0f read %d, want %d", d.cx, d.cy, g.Value, d.value)
		}
		if math.Abs(g.SizeRatio-want) > 0.03 {
			t.Errorf("die at %.0f,%.0f (%d): size ratio %.3f, want %.2f +- 0.03", d.cx, d.cy, d.value, g.SizeRatio, want)
		}
	}
}

// TestRelativeSize checks relativeSize's choices on detections built by
// hand: dice read by their pips are measured against the others' pips, a
// 1 by its face against theirs, an unread die keeps its footprint's ratio,
// and a frame whose dice do not share a size is left as it was.
func TestRelativeSize(t *testing.T) {
	mk := func(v int, reach, edge, fp float64) Detection {
		return Detection{Value: v, latReach: reach, EdgePx: edge, SizeRatio: fp}
	}
	dets := []Detection{
		mk(4, 10, 37, 1.3),  // footprint too large (a shadow)
		mk(6, 10.2, 37, 1),  //
		mk(3, 9.8, 37, 0.9), //
		mk(2, 10.1, 37, 1),  //
		mk(5, 11.8, 44, 1),  // a die on a die: 1.17
		mk(1, 0, 44, 1),     // a 1 as large
		mk(0, 0, 60, 1.4),   // unread: footprint kept
	}
	relativeSize(dets)
	want := []float64{10 / 10.15, 10.2 / 10.05, 9.8 / 10.15, 10.1 / 10.1, 11.8 / 10.05, 44.0 / 37, 1.4}
	for i, w := range want {
		if math.Abs(dets[i].SizeRatio-w) > 1e-9 {
			t.Errorf("die %d (%d): size ratio %.4f, want %.4f", i, dets[i].Value, dets[i].SizeRatio, w)
		}
	}
	// Four dice of four sizes (a photo of several sets): the pips are
	// no ruler, the footprints' ratios stay.
	mixed := []Detection{mk(4, 7, 26, 0.8), mk(4, 10, 37, 1), mk(4, 13, 48, 1.2), mk(4, 16, 59, 1.4)}
	relativeSize(mixed)
	for i, w := range []float64{0.8, 1, 1.2, 1.4} {
		if mixed[i].SizeRatio != w {
			t.Errorf("mixed sizes, die %d: size ratio %.4f, want %.4f kept", i, mixed[i].SizeRatio, w)
		}
	}
	// A lone die has no ruler.
	lone := []Detection{mk(5, 11.8, 44, 1.05)}
	relativeSize(lone)
	if lone[0].SizeRatio != 1.05 {
		t.Errorf("lone die: size ratio %.4f, want 1.05 kept", lone[0].SizeRatio)
	}
}

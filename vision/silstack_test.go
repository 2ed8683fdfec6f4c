package vision

import "testing"

// TestOutlineStacked pins outlineStacked on detections: a read die whose
// outline is outlineStackedCut expected edges or more takes the outline's
// ratio as its size; an unread die, a smaller outline, a size already
// larger, no outline and an unknown die size leave the size as it was;
// with the edge across the line of sight given, the outline is measured
// against it.
func TestOutlineStacked(t *testing.T) {
	base := Detection{Value: 3, Confidence: 1, EdgePx: 21, SizeRatio: 1.05, silEdge: 30}
	cases := []struct {
		name  string
		edit  func(d *Detection, o *ReaderOptions)
		ratio float64
	}{
		{"outline 1.5 edges", func(*Detection, *ReaderOptions) {}, 1.5},
		{"outline at the cut", func(d *Detection, _ *ReaderOptions) { d.silEdge = 20 * outlineStackedCut }, outlineStackedCut},
		{"outline under the cut", func(d *Detection, _ *ReaderOptions) { d.silEdge = 28.8 }, 1.05},
		{"size already larger", func(d *Detection, _ *ReaderOptions) { d.SizeRatio = 1.6 }, 1.6},
		{"unread", func(d *Detection, _ *ReaderOptions) { d.Value, d.Confidence = 0, 0 }, 1.05},
		{"no outline", func(d *Detection, _ *ReaderOptions) { d.silEdge = 0 }, 1.05},
		{"no known size", func(_ *Detection, o *ReaderOptions) { o.DiePx = 0 }, 1.05},
		{"edge at each place", func(_ *Detection, o *ReaderOptions) {
			o.DiePx = 0
			o.ExpectedEdgePx = func(x, y float64) float64 { return 19 }
		}, 30.0 / 19},
		// A tilted camera: the outline 1.5 mean edges, 1.43 across the
		// line of sight (the side faces in sight), under the cut.
		{"edge across the line of sight", func(_ *Detection, o *ReaderOptions) {
			o.AcrossEdgePx = func(x, y float64) float64 { return 21 }
		}, 1.05},
		{"edge across past the cut", func(_ *Detection, o *ReaderOptions) {
			o.AcrossEdgePx = func(x, y float64) float64 { return 20.5 }
		}, 30.0 / 20.5},
		{"edge across not known there", func(_ *Detection, o *ReaderOptions) {
			o.AcrossEdgePx = func(x, y float64) float64 { return 0 }
		}, 1.5},
	}
	for _, c := range cases {
		d := base
		r := &Reader{opts: ReaderOptions{DiePx: 20}}
		c.edit(&d, &r.opts)
		dets := []Detection{d}
		r.outlineStacked(dets)
		if got := dets[0].SizeRatio; got < c.ratio-1e-9 || got > c.ratio+1e-9 {
			t.Errorf("%s: size ratio %.4f, want %.4f", c.name, got, c.ratio)
		}
	}
}

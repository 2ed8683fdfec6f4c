package vision

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"testing"

	"github.com/dicewatch/dicewatch/vision/scene"
)

// TestLargeRead checks largeRead's choices on detections built by hand:
// with an expected edge of 40 and a pip spread of 0.27, a layout of two
// pips or more measuring the face at 1.12 (the stacked cut) to 1.3 of
// the edge is kept (a die on another), a smaller one (a die on the
// table, whose region took in a shadow or a neighbour) or a larger one,
// a 1 (no reach) and an unread die are not.
func TestLargeRead(t *testing.T) {
	r := NewReader(ReaderOptions{DiePx: 40, PipSpread: 0.27})
	defer r.Close()
	reach := func(s float64) float64 { return s * 0.27 * 40 }
	for _, c := range []struct {
		d    Detection
		want bool
	}{
		{Detection{Value: 4, reachValue: 4, latReach: reach(1.0)}, false}, // on the table
		{Detection{Value: 5, reachValue: 5, latReach: reach(1.18)}, true},
		{Detection{Value: 2, reachValue: 2, latReach: reach(1.13)}, true},
		{Detection{Value: 6, reachValue: 6, latReach: reach(1.1)}, false},
		{Detection{Value: 2, reachValue: 2, latReach: reach(0.81)}, false}, // a 4's two pips read as a 2
		{Detection{Value: 2, reachValue: 2, latReach: reach(1.45)}, false}, // a cocked die's spots
		// The layout's bias taken out (pipReachBias): a 2 measures short,
		// a 6 long.
		{Detection{Value: 2, reachValue: 2, latReach: reach(1.115)}, true},
		{Detection{Value: 6, reachValue: 6, latReach: reach(1.125)}, false},
		// A reach with no layout value behind it measures nothing.
		{Detection{Value: 4, latReach: reach(1.18)}, false},
		{Detection{Value: 1, EdgePx: 46}, false},
		{Detection{Value: 0, EdgePx: 46}, false},
	} {
		if got := r.largeRead(c.d); got != c.want {
			t.Errorf("value %d reach %.2f: kept %v, want %v", c.d.Value, c.d.latReach, got, c.want)
		}
	}
}

// largeStacked: dice on dice on the tuning stills (seeds 0..599) truly
// past the stacked cut whose regions, with both dice's shadows, measure
// 1.6 to 2 expected edges: dropped unread before the large regions'
// read, in both calibrated modes.
var largeStacked = []struct {
	seed   int64
	cx, cy float64 // the die's place as read
	value  int     // what its pips read (withheld)
}{
	{23, 345.5, 308.5, 3},
	{73, 409.1, 560.1, 5},
	{149, 306.5, 541.5, 5},
	{313, 469.0, 261.5, 4},
	{530, 211.6, 169.0, 6},
}

// TestLargeStackedStills reads those stills calibrated, with the
// nominal edge and with the edge at each place: each die must be found
// unread (the large regions' read gives stacked evidence only, see
// largeEvidence) with a size ratio past the stacked cut (1.12), and
// without the large regions' read none of them is found.
func TestLargeStackedStills(t *testing.T) {
	// Back on however the test ends (find fails the test at once).
	defer func() { largeOff = false }()
	find := func(seed int64, cx, cy float64, local bool) *Detection {
		img, tr, err := scene.Still(seed, scene.StillOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer img.Close()
		opts := ReaderOptions{DiePx: tr.EdgePx, PipSpread: stillPipSpread}
		if local {
			opts.ExpectedEdgePx = stillEdgeAt(tr)
		}
		r := NewReader(opts)
		defer r.Close()
		dets, err := r.Read(img)
		if err != nil {
			t.Fatal(err)
		}
		for i := range dets {
			if math.Hypot(dets[i].CX-cx, dets[i].CY-cy) < 6 {
				return &dets[i]
			}
		}
		return nil
	}
	for _, s := range largeStacked {
		for _, local := range []bool{false, true} {
			d := find(s.seed, s.cx, s.cy, local)
			switch {
			case d == nil:
				t.Errorf("still %d (local edge %v): die at %.0f,%.0f not found", s.seed, local, s.cx, s.cy)
			case d.Value != 0 || d.SizeRatio < 1.12:
				t.Errorf("still %d (local edge %v): die at %.0f,%.0f read %d at %.2f, size ratio %.3f; want unread (its pips read %d), 1.12 or more",
					s.seed, local, s.cx, s.cy, d.Value, d.Confidence, d.SizeRatio, s.value)
			default:
				t.Logf("still %d (local edge %v): %d at %.2f, size ratio %.3f", s.seed, local, d.Value, d.Confidence, d.SizeRatio)
			}
			largeOff = true
			if d := find(s.seed, s.cx, s.cy, local); d != nil {
				t.Errorf("still %d (local edge %v): without the large regions' read, a die at %.0f,%.0f (%d)", s.seed, local, s.cx, s.cy, d.Value)
			}
			largeOff = false
		}
	}
}

// TestLargeEvidenceOnly reads stills calibrated (the nominal edge and
// the edge at each place) with and without the large regions' read:
// every detection made without it must be made with it, bit for bit
// (box, value, confidence, flatness, size), and each detection the read
// adds must be unread, so that it adds stacked evidence and never a
// value. DICEWATCH_LARGE_DIFF=N reads N stills from DICEWATCH_STILL_FIRST
// (0) and logs every added die; by default the five stills of
// largeStacked.
func TestLargeEvidenceOnly(t *testing.T) {
	var seeds []int64
	if v := os.Getenv("DICEWATCH_LARGE_DIFF"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatal(err)
		}
		for s := stillFirst(t); s < stillFirst(t)+int64(n); s++ {
			seeds = append(seeds, s)
		}
	} else {
		for _, s := range largeStacked {
			seeds = append(seeds, s.seed)
		}
	}
	defer func() { largeOff = false }()
	key := func(d Detection) string {
		return fmt.Sprintf("%v %v %v %v v%d c%v f%v %v r%v e%v", d.Box, d.PipBox, d.CX, d.CY, d.Value, d.Confidence, d.Flat, d.Flatness, d.SizeRatio, d.EdgePx)
	}
	added, past := 0, 0
	for _, seed := range seeds {
		img, tr, err := scene.Still(seed, scene.StillOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, local := range []bool{false, true} {
			opts := ReaderOptions{DiePx: tr.EdgePx, PipSpread: stillPipSpread}
			if local {
				opts.ExpectedEdgePx = stillEdgeAt(tr)
			}
			r := NewReader(opts)
			read := func(off bool) []Detection {
				largeOff = off
				dets, err := r.Read(img)
				if err != nil {
					t.Fatal(err)
				}
				return dets
			}
			without, with := read(true), read(false)
			r.Close()
			have := map[string]int{}
			for _, d := range with {
				have[key(d)]++
			}
			for _, d := range without {
				k := key(d)
				if have[k] == 0 {
					t.Errorf("still %d (local edge %v): %s not made with the large regions' read", seed, local, k)
					continue
				}
				have[k]--
			}
			for _, d := range with {
				k := key(d)
				if have[k] == 0 {
					continue
				}
				have[k]--
				added++
				if d.SizeRatio >= 1.12 {
					past++
				}
				if d.Value != 0 {
					t.Errorf("still %d (local edge %v): the large regions' read gave a value: %s", seed, local, k)
				}
				if covers(without, d, nil) {
					t.Errorf("still %d (local edge %v): the large regions' read counts a die found without it again: %s", seed, local, k)
				}
				if os.Getenv("DICEWATCH_LARGE_DIFF") != "" {
					t.Logf("still %d (local edge %v): added %s", seed, local, k)
				}
			}
		}
		img.Close()
	}
	t.Logf("%d stills, both calibrated modes: %d dice added, %d of them at a size ratio of 1.12 or more", len(seeds), added, past)
	if os.Getenv("DICEWATCH_LARGE_DIFF") == "" && past < len(largeStacked) {
		t.Errorf("%d added dice past the stacked cut, want %d or more", past, len(largeStacked))
	}
}

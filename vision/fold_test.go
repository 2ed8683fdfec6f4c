package vision

import (
	"strings"
	"testing"
)

// TestFoldStills reads generated stills where a face rectangle lay across
// an edge of the die (a cocked die's top face and lit side face, or a
// flat die's top and side under a tilted camera) and read a wrong value:
// the fold is found on each (fold.go) and no such value is given with
// confidence 0.9 or more. Still 6209 (uncalibrated, die 1: a purple die
// cocked 40 degrees read as a 6, its face a 5) was read at confidence 1
// before the fold doubt; on the others another doubt caps the value too.
// Since session 13's enclosure rule (minPipsEnclosed) 6209's 6 is
// withheld and its weak candidate, left with no value, is not reported:
// a die not detected gives no value, as one withheld.
func TestFoldStills(t *testing.T) {
	cases := []struct {
		seed int64
		cal  bool
		die  int
	}{
		{6209, false, 1},
		// Seeds 0..1999: a cocked translucent 5 read as a 2 and a
		// cocked translucent 6 read as a 4 (uncalibrated), a marbled
		// 2 read as a 3 (calibrated).
		{552, false, 5}, {553, false, 5}, {927, true, 2},
	}
	type key struct{ x, y float64 }
	folds := map[key]bool{}
	checkTrace = func(d *Detection, ci checkInfo) {
		if !strings.Contains(ci.reason, "frame") {
			folds[key{d.CX, d.CY}] = ci.foldStep >= foldStep && ci.foldSep >= foldSep
		}
	}
	defer func() { checkTrace = nil }()
	// maxUndetected: still 6209 die 1 has not been detected since the
	// pip enclosure rule (session 13); a case more lost would leave the
	// fold doubt tested on fewer dice without anyone noticing.
	const maxUndetected = 1
	undetected := 0
	for _, tc := range cases {
		clear(folds)
		g, d, ok := readStillDie(t, tc.seed, tc.die, tc.cal)
		if !ok {
			t.Logf("still %d die %d: not detected (no value given)", tc.seed, tc.die)
			undetected++
			if undetected > maxUndetected {
				t.Errorf("%d of the %d cases not detected, at most %d expected: the fold doubt goes untested on them", undetected, len(cases), maxUndetected)
			}
			continue
		}
		if d.Value == 0 || d.Value == g.Value {
			continue // read right or withheld: nothing to doubt
		}
		t.Logf("still %d (calibrated %v) die %d: read %d (true %d) at %.2f, fold %v", tc.seed, tc.cal, tc.die, d.Value, g.Value, d.Confidence, folds[key{d.CX, d.CY}])
		if d.Confidence >= 0.9 {
			t.Errorf("still %d (calibrated %v) die %d: read %d with confidence %.2f, true face %d", tc.seed, tc.cal, tc.die, d.Value, d.Confidence, g.Value)
		}
		if !folds[key{d.CX, d.CY}] {
			t.Errorf("still %d (calibrated %v) die %d: read %d (true %d), no fold found", tc.seed, tc.cal, tc.die, d.Value, g.Value)
		}
	}
}

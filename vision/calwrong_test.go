package vision

import (
	"math"
	"testing"

	"github.com/dicewatch/dicewatch/vision/scene"
)

// TestCalibratedWrongStills reads, calibrated, generated stills where a
// reading pass meant for uncalibrated photos gave a clean die a wrong
// value (session 7's 2000-still runs): the rest pass (seeds 202, 468,
// 560: a die-sized part of a region that did not read) and the read-away
// rule from the pips' centres and both ends (807, 1104, 1363, 1912;
// 581 needs both kept out).
// Each such die must now read right or stay unread.
func TestCalibratedWrongStills(t *testing.T) {
	cleanRightOrUnread(t, []stillDie{{202, 0}, {468, 6}, {560, 8}, {581, 0}, {807, 1}, {1104, 2}, {1363, 3}, {1912, 0}})
}

// readStillDie renders still seed, reads it (with the still's nominal
// die edge as DiePx when calibrated) and returns die's truth and the
// detection matched to it; ok is false when no detection is.
func readStillDie(t *testing.T, seed int64, die int, calibrated bool) (g scene.StillDie, d Detection, ok bool) {
	t.Helper()
	img, tr, err := scene.Still(seed, scene.StillOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer img.Close()
	coverByStacked(tr.Dice)
	opts := ReaderOptions{}
	if calibrated {
		opts.DiePx = tr.EdgePx
	}
	r := NewReader(opts)
	defer r.Close()
	dets, err := r.Read(img)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range matchStill(tr.Dice, dets) {
		if p[0] == die {
			return tr.Dice[p[0]], dets[p[1]], true
		}
	}
	return g, d, false
}

// TestRowSpacingStills reads, calibrated, generated stills where a clean
// die was read as a 2 or a 3 from two neighbouring pips or a row of a
// larger face (its layout offset 0.67..0.74 of the frame's other dice';
// session 9's 2000-still dump, seeds 0..1999). framePipCheck's spacing cut
// for 2s and 3s (minFrameRowRel) withholds each; each must now read right
// or stay unread. 1393 die 2 and 1786 die 6 need the read's own layout
// offset (their values were read on another pip map than the check's).
func TestRowSpacingStills(t *testing.T) {
	cleanRightOrUnread(t, []stillDie{{290, 0}, {412, 0}, {576, 3}, {741, 0}, {865, 3}, {868, 5}, {1273, 1}, {1393, 2}, {1786, 6}})
}

// TestPipsRowStills reads, calibrated, generated stills where a clean die
// was read from part of its face with a whole face's pips (seeds 0..1999,
// session 14's dump): 340 die 0 and 1457 die 6, a 6's row of three read as
// a 3, and 1577 die 3, a 5's centre and two corners read as a 4, each
// layout under 0.205 of the die's edge and under 2.5 of its pips' radius.
// check's cut on layoutRadii withholds each; each must read right or stay
// unread. 34598 die 5 (a check seed, read once to report), a 4 whose
// first read the cut withholds, was then read as a 1 by a later look:
// the cut's mark (pipsRow) keeps the later looks off it.
func TestPipsRowStills(t *testing.T) {
	cleanRightOrUnread(t, []stillDie{{340, 0}, {1457, 6}, {1577, 3}, {34598, 5}})
}

// stillDie names one die of a generated still.
type stillDie struct {
	seed int64
	die  int
}

// cleanRightOrUnread reads each still calibrated and checks that its
// clean die reads right or stays unread (not detected passes, logged).
func cleanRightOrUnread(t *testing.T, cases []stillDie) {
	t.Helper()
	for _, tc := range cases {
		g, d, ok := readStillDie(t, tc.seed, tc.die, true)
		if !ok {
			t.Logf("still %d die %d: not detected", tc.seed, tc.die)
			continue
		}
		if g := stillGroup(g); g != "clean" {
			t.Errorf("still %d die %d: group %s, want clean (the generator changed?)", tc.seed, tc.die, g)
		}
		if d.Value != 0 && d.Value != g.Value {
			t.Errorf("still %d die %d: read %d (confidence %.2f), true face %d", tc.seed, tc.die, d.Value, d.Confidence, g.Value)
		}
	}
}

// TestSilTurnStills reads, calibrated, a generated still where a clean die
// was read from pips of two dice (still 2183 die 0, a red 1 beside a
// brown die, read as a 3 from its pip and two of its neighbour's, session
// 15's dump of held-out seeds 2000..2599): the layout lies turned 43
// degrees from the die's outline, and check's cut on layoutSilTurn
// withholds it. It must read right or stay unread.
func TestSilTurnStills(t *testing.T) {
	cleanRightOrUnread(t, []stillDie{{2183, 0}})
}

// TestLayoutSilTurn checks the turn measure: none without an outline or
// for a 1, the remainder within a quarter turn otherwise.
func TestLayoutSilTurn(t *testing.T) {
	deg := math.Pi / 180
	fv := faceValue{value: 3, lv: 3, silEdge: 20, silAngle: 10 * deg}
	fv.c.angle = 50 * deg
	fv.rot = 3 * deg
	if got := layoutSilTurn(fv) / deg; math.Abs(got-43) > 1e-9 {
		t.Errorf("turn %.3f degrees, want 43", got)
	}
	fv.c.angle = 97 * deg // with rot, a quarter turn and 0 degrees from the outline
	if got := layoutSilTurn(fv) / deg; math.Abs(got) > 1e-9 {
		t.Errorf("turn %.3f degrees, want 0", got)
	}
	for _, f := range []faceValue{{value: 3, lv: 3}, {value: 1, lv: 1, silEdge: 20}, {value: 3, lv: 2, silEdge: 20}} {
		f.c.angle = 45 * deg
		if got := layoutSilTurn(f); got != 0 {
			t.Errorf("%+v: turn %.3f, want 0", f, got)
		}
	}
}

// TestLatticeSizeStills reads, calibrated, generated stills where a clean
// die was given a wrong value whose pip lattice does not fit a face of
// the known die size (session 16's dump of seeds 0..1999, TestStillWrongDump's
// given.tsv): 166 die 2, an ivory 1 read as a 2 from its pip and a pip of
// the side face a tilted camera shows (lattice 0.215 of the edge, not
// found again by the check: smallUnfound), and 865 die 5, a 2 read as a 3
// across more than the die (lattice 0.48 of the edge: maxLatRel); and
// 1629 die 10, a black 2 on dark cloth read as a 1 from one pip on a
// footprint 0.46 square (minValueFlatness). Each must read right or stay
// unread.
func TestLatticeSizeStills(t *testing.T) {
	cleanRightOrUnread(t, []stillDie{{166, 2}, {865, 5}, {1629, 10}})
}

// TestSmallUnfound checks the rule's parts: a 2 or a 3 only, not found
// again by the check, and under the cut of the expected edge.
func TestSmallUnfound(t *testing.T) {
	const e = 40.0
	lat := func(v int, scale float64) faceValue {
		fv := faceValue{value: v, lv: v}
		fv.lat.scale = scale
		return fv
	}
	small := (maxUnfoundRel - 0.01) * e
	for _, tc := range []struct {
		name   string
		fv     faceValue
		pipOff float64
		want   bool
	}{
		{"small 2 not found again", lat(2, small), 0, true},
		{"small 3 not found again", lat(3, small), 0, true},
		{"small 2 found again", lat(2, small), 5, false},
		{"a 4", lat(4, small), 0, false},
		{"a 1", lat(1, small), 0, false},
		{"a face's lattice", lat(2, 0.267*e), 0, false},
		{"no lattice", lat(2, 0), 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := smallUnfound(tc.fv, tc.pipOff, e); got != tc.want {
				t.Errorf("smallUnfound = %v, want %v", got, tc.want)
			}
		})
	}
}

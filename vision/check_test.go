package vision

import (
	"testing"

	"github.com/dicewatch/dicewatch/vision/scene"
)

// TestCheckStills reads generated stills on which the reader gave a wrong
// value before the consistency check (veto.go), each for a reason the
// check looks at, and requires that die's value to be right or withheld.
func TestCheckStills(t *testing.T) {
	cases := []struct {
		seed       int64
		calibrated bool
		die        int
		wrong      int
		why        string
	}{
		{125, true, 0, 2, "a 3 half hidden by a die leaning over it: a corner and the centre pip read as a 2 of half the die's layout"},
		{683, true, 11, 3, "a neighbour's dark pip completes a 3 with a 2's two yellow pips"},
		{791, false, 8, 2, "the rectangle off a 5: a corner and the centre pip, half the other dice's layout"},
	}
	plain := NewReader(ReaderOptions{})
	defer plain.Close()
	for _, c := range cases {
		img, tr, err := scene.Still(c.seed, scene.StillOptions{})
		if err != nil {
			t.Fatal(err)
		}
		coverByStacked(tr.Dice)
		r := plain
		if c.calibrated {
			r = NewReader(ReaderOptions{DiePx: tr.EdgePx})
		}
		dets, err := r.Read(img)
		img.Close()
		if c.calibrated {
			r.Close()
		}
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, p := range matchStill(tr.Dice, dets) {
			if p[0] != c.die {
				continue
			}
			found = true
			g, d := tr.Dice[p[0]], dets[p[1]]
			if g.Value == c.wrong {
				t.Fatalf("still %d die %d: truth %d, want a die whose wrong read was %d", c.seed, c.die, g.Value, c.wrong)
			}
			if d.Value != 0 && d.Value != g.Value {
				t.Errorf("still %d die %d (%s): read %d (confidence %.2f), truth %d", c.seed, c.die, c.why, d.Value, d.Confidence, g.Value)
			}
		}
		if !found {
			t.Errorf("still %d: die %d not detected (the case needs it)", c.seed, c.die)
		}
	}
}

// TestCheckNotFlatConfidence: a value of a die the reader calls not flat
// is never confident.
func TestCheckNotFlatConfidence(t *testing.T) {
	r := NewReader(ReaderOptions{})
	defer r.Close()
	n := 0
	for seed := int64(0); seed < 15; seed++ {
		img, _, err := scene.Still(seed, scene.StillOptions{})
		if err != nil {
			t.Fatal(err)
		}
		dets, err := r.Read(img)
		img.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range dets {
			if d.Flat || d.Value == 0 {
				continue
			}
			n++
			if d.Confidence > notFlatMaxConf {
				t.Errorf("still %d: not flat (flatness %.2f) value %d with confidence %.2f > %.2f", seed, d.Flatness, d.Value, d.Confidence, notFlatMaxConf)
			}
		}
	}
	if n == 0 {
		t.Fatal("no value of a die not flat in the stills: the test checks nothing")
	}
}

// TestCoverByStacked: on still 575 two dice are stacked on die 4; the
// second, die 7 (a 4), is drawn over the first, die 5 (a 6), whose top
// face it hides. The generator leaves die 5's Occluded at 0; the harness must
// count it covered (so that the top die's read is not scored against it).
func TestCoverByStacked(t *testing.T) {
	img, tr, err := scene.Still(575, scene.StillOptions{})
	if err != nil {
		t.Fatal(err)
	}
	img.Close()
	if tr.Dice[5].OnDie != 4 || tr.Dice[5].Occluded != 0 {
		t.Fatalf("still 575 die 5: OnDie %d Occluded %.2f; the case wants a stacked die the generator counts uncovered", tr.Dice[5].OnDie, tr.Dice[5].Occluded)
	}
	before := append([]scene.StillDie(nil), tr.Dice...)
	coverByStacked(tr.Dice)
	if tr.Dice[5].Occluded < heavyOcclusion {
		t.Errorf("still 575 die 5: Occluded %.2f after coverByStacked, want >= %.2f", tr.Dice[5].Occluded, heavyOcclusion)
	}
	for i := range tr.Dice {
		if tr.Dice[i].Occluded < before[i].Occluded {
			t.Errorf("die %d: Occluded lowered %.2f -> %.2f", i, before[i].Occluded, tr.Dice[i].Occluded)
		}
		if before[i].OnDie < 0 && tr.Dice[i].Occluded != before[i].Occluded {
			covered := false
			for _, o := range tr.Dice {
				if o.OnDie == i {
					covered = true
				}
			}
			if !covered {
				t.Errorf("die %d: on the table with nothing stacked on it, Occluded changed %.2f -> %.2f", i, before[i].Occluded, tr.Dice[i].Occluded)
			}
		}
	}
}

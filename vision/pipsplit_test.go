package vision

import (
	"fmt"
	"image"
	"slices"
	"testing"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/vision/scene"
)

func TestDeleteAt(t *testing.T) {
	ds := []Detection{{Value: 1}, {Value: 2}, {Value: 3}, {Value: 4}}
	got := deleteAt(ds, []int{0, 2})
	if len(got) != 2 || got[0].Value != 2 || got[1].Value != 4 {
		t.Fatalf("deleteAt: %+v", got)
	}
}

func TestSplitPieces(t *testing.T) {
	face := Detection{Box: image.Rect(100, 100, 160, 160), CX: 130, CY: 130, EdgePx: 60, Value: 2}
	piece := func(x, y, v int) Detection {
		return Detection{Box: image.Rect(x-12, y-12, x+12, y+12), CX: float64(x), CY: float64(y), Value: v}
	}
	cases := []struct {
		name string
		dets []Detection
		want int
	}{
		{"two unread pieces", []Detection{piece(115, 130, 0), piece(145, 130, 0)}, 2},
		{"one piece", []Detection{piece(115, 130, 0)}, 0},
		{"a read piece", []Detection{piece(115, 130, 0), piece(145, 130, 3)}, 0},
		{"a region larger than the face", []Detection{piece(115, 130, 0), {Box: image.Rect(90, 90, 170, 170), CX: 130, CY: 130}}, 0},
		{"pieces elsewhere", []Detection{piece(300, 300, 0), piece(340, 300, 0)}, 0},
	}
	for _, c := range cases {
		if got := len(splitPieces(c.dets, face)); got != c.want {
			t.Errorf("%s: %d pieces, want %d", c.name, got, c.want)
		}
	}
}

// TestSplitStills lists every die splitPieces or onWeakMiss makes on the stills
// DICEWATCH_STILL_FIRST.. (DICEWATCH_STILLS of them, read plain: with a
// known size the pass does not run) with the true die under it, as lines
// to DICEWATCH_SPLIT_DIAG. A still where it acts nowhere is read as
// before. It is a tuning tool: skipped without that variable.
func TestSplitStills(t *testing.T) {
	f := diagFile(t, "DICEWATCH_SPLIT_DIAG")
	var made []Detection
	var kinds []string
	splitTrace = func(d Detection, pieces []Detection) {
		made = append(made, d)
		kind := "pieces"
		if pieces == nil {
			kind = "weak"
		}
		kinds = append(kinds, kind)
	}
	defer func() { splitTrace = nil }()
	acts, wrong, none, reread, changed := 0, 0, 0, 0, 0
	readStillsR(t, func() { made, kinds = made[:0], kinds[:0] }, func(r *Reader, seed int64, mode string, img gocv.Mat, tr scene.StillTruth, dets []Detection) {
		if len(made) > 0 || len(r.weakMiss) > 0 {
			// Read again without the two passes (as the base reader):
			// any difference but the dice they made is listed.
			reread++
			n := len(made)
			splitOff, weakOff = true, true
			base, err := r.Read(img)
			splitOff, weakOff = false, false
			if err != nil {
				t.Fatal(err)
			}
			made = made[:n]
			if d := detDiff(base, dets, made); d != "" {
				changed++
				fmt.Fprintf(f, "%d\t%s\tother dice changed:%s\n", seed, mode, d)
			}
		}
		for k, m := range made {
			acts++
			at := -1
			for j, d := range dets {
				if d.CX == m.CX && d.CY == m.CY {
					at = j
				}
			}
			truth, group := 0, "none"
			for _, p := range matchStill(tr.Dice, dets) {
				if p[1] == at {
					truth, group = tr.Dice[p[0]].Value, stillGroup(tr.Dice[p[0]])
				}
			}
			if at >= 0 {
				// The value the read gave in the end.
				m = dets[at]
			}
			switch {
			case truth == 0:
				none++
			case truth != m.Value:
				wrong++
			}
			fmt.Fprintf(f, "%d\t%s\t%s\t%s\ttruth=%d\tread=%d\tconf=%.2f\tbox=%v\tkept=%v\tflat=%v\tflatness=%.2f\tsizeRatio=%.2f\n", seed, mode, kinds[k], group, truth, m.Value, m.Confidence, m.Box, at >= 0, m.Flat, m.Flatness, m.SizeRatio)
		}
	})
	t.Logf("splitPieces and onWeakMiss acted %d times: %d on no die, %d wrong; %d stills read again without them, %d with other dice changed", acts, none, wrong, reread, changed)
}

// detDiff lists the detections of base missing from got and those of got
// missing from base, but for those in made (the new dice) and those made
// replaced (base's detections whose centre lies in a made die's box).
func detDiff(base, got, made []Detection) string {
	key := func(d Detection) string {
		return fmt.Sprintf("%v %v %v %v %v %v %v %v %v", d.Box, d.PipBox, d.CX, d.CY, d.Value, d.Confidence, d.Flat, d.SizeRatio, d.EdgePx)
	}
	in := func(d Detection, ds []Detection) bool {
		for _, o := range ds {
			if key(o) == key(d) {
				return true
			}
		}
		return false
	}
	under := func(d Detection) bool {
		for _, m := range made {
			if image.Pt(int(d.CX), int(d.CY)).In(m.Box) {
				return true
			}
		}
		return false
	}
	var s string
	for _, d := range base {
		if !in(d, got) && !under(d) {
			s += " -" + key(d)
		}
	}
	for _, d := range got {
		if !in(d, base) && !slices.ContainsFunc(made, func(m Detection) bool { return m.CX == d.CX && m.CY == d.CY }) {
			s += " +" + key(d)
		}
	}
	return s
}

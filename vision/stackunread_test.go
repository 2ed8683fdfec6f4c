package vision

import (
	"os"
	"testing"

	"github.com/dicewatch/dicewatch/rules"
	"github.com/dicewatch/dicewatch/vision/scene"
)

// TestUnreadSizesStills reads generated stills calibrated as the stills
// harness does (the edge at each place and the pip spread; camera height
// from DICEWATCH_STILL_CAMERA_H) and scores the stacked evidence twice
// from the one read: with unreadSizes (as read) and with the size ratio
// each re-measured die had before it (unreadSizeTrace). Only unread dice
// are re-measured, so every value, confidence and flat call is the same
// in both.
//
//	DICEWATCH_UNREADSIZES=1 DICEWATCH_STILLS=2000 DICEWATCH_STILL_FIRST=0 go test -count=1 -run UnreadSizesStills -v -timeout 60m ./vision/
func TestUnreadSizesStills(t *testing.T) {
	if os.Getenv("DICEWATCH_UNREADSIZES") == "" {
		t.Skip("DICEWATCH_UNREADSIZES not set")
	}
	n := stillCount(t, 600)
	before := map[[2]float64]float64{}
	unreadSizeTrace = func(d *Detection, b float64) {
		before[[2]float64{d.CX, d.CY}] = b
	}
	defer func() { unreadSizeTrace = nil }()
	r := NewReader(ReaderOptions{DiePx: 1, PipSpread: stillPipSpread})
	defer r.Close()
	old, now := newStillTally(), newStillTally()
	moved := 0
	for seed := stillFirst(t); seed < stillFirst(t)+int64(n); seed++ {
		img, tr, err := scene.Still(seed, stillOptions(t))
		if err != nil {
			t.Fatal(err)
		}
		coverByStacked(tr.Dice)
		r.opts.DiePx = tr.EdgePx
		r.opts.ExpectedEdgePx = stillEdgeAt(tr)
		clear(before)
		dets, err := r.Read(img)
		img.Close()
		if err != nil {
			t.Fatal(err)
		}
		was := append([]Detection(nil), dets...)
		for i := range was {
			if b, ok := before[[2]float64{was[i].CX, was[i].CY}]; ok {
				was[i].SizeRatio = b
				moved++
			}
		}
		old.seed, now.seed = seed, seed
		old.add(tr, was)
		now.add(tr, dets)
	}
	cut := rules.DefaultStackedSizeRatio
	for _, x := range []struct {
		name string
		st   *stillTally
	}{{"before", old}, {"after", now}} {
		st := x.st
		t.Logf("%s: stacked recall %.2f%% (%d/%d detected; %d stacked in all); of the %d stacked dice truly >= %.2f, %d detected, %d caught (%.2f%%); false stacked %.2f%% (%d/%d clean dice); over dice given a value at 0.8: caught %d/%d, false %d/%d",
			x.name, 100*st.stackedRecall(), st.stackHit, st.stackDet, st.stackN, st.stackBigN, cut, st.stackBigDet, st.stackBigHit, 100*st.bigStackedRecall(),
			100*st.falseStackedRate(), st.falseStacked, st.flatN, st.stackBigValuedHit, st.stackBigValued, st.falseStackedValued, st.cleanValued)
	}
	t.Logf("%d stills from %d: %d unread dice re-measured", n, stillFirst(t), moved)
}

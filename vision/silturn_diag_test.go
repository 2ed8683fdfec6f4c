package vision

import (
	"fmt"
	"math"
	"testing"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/vision/scene"
)

// TestStillSilTurnProbe writes, for every value the reader gives on a
// matched die of the stills DICEWATCH_STILL_FIRST.. (DICEWATCH_STILLS of
// them), read with a known die size, how far the face its pips' layout
// implies turns from the die's outline, to the file DICEWATCH_SILTURN_PROBE
// (tab-separated). It is a tuning tool: skipped without that variable.
func TestStillSilTurnProbe(t *testing.T) {
	f := diagFile(t, "DICEWATCH_SILTURN_PROBE")
	fmt.Fprintln(f, "seed\tdie\tgroup\ttilt\ttruth\tvalue\tconf\tlv\ttmpl\tblobs\tsilOK\tturn\tfaceRel\tlatRel")
	type rec struct {
		fv    faceValue
		silOK bool
		silA  float64
	}
	cal := NewReader(ReaderOptions{DiePx: 1})
	defer cal.Close()
	type key struct{ x, y float64 }
	seen := map[key]rec{}
	readTrace = func(d *Detection, fv faceValue, shrunk bool) {
		seen[key{d.CX, d.CY}] = rec{fv, cal.face.smallSil, cal.face.smallSilAngle}
	}
	defer func() { readTrace = nil }()
	n := stillCount(t, defaultStills)
	first := stillFirst(t)
	forEachStill(t, first, n, scene.StillOptions{}, func(seed int64, img gocv.Mat, tr scene.StillTruth) {
		cal.opts.DiePx = tr.EdgePx
		clear(seen)
		dets, err := cal.Read(img)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range matchStill(tr.Dice, dets) {
			g, d := tr.Dice[p[0]], dets[p[1]]
			rc, found := seen[key{d.CX, d.CY}]
			if d.Value == 0 || !found {
				continue
			}
			turn := -1.0
			if rc.silOK && rc.fv.lv >= 2 {
				turn = math.Abs(math.Remainder(rc.fv.c.angle+rc.fv.rot-rc.silA, math.Pi/2)) * 180 / math.Pi
			}
			fmt.Fprintf(f, "%d\t%d\t%s\t%.1f\t%d\t%d\t%.3f\t%d\t%d\t%d\t%v\t%.1f\t%.3f\t%.3f\n",
				seed, p[0], stillGroup(g), tr.CameraTiltDeg, g.Value, d.Value, d.Confidence, rc.fv.lv, rc.fv.tmpl, rc.fv.blobs,
				rc.silOK, turn, rc.fv.c.edge/tr.EdgePx, rc.fv.lat.scale/tr.EdgePx)
		}
	})
}

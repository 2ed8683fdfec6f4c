package vision

import (
	"fmt"
	"testing"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/vision/scene"
)

// TestUnfoundDiag writes, for every 2 or 3 the check passed on the stills
// DICEWATCH_STILL_FIRST.. read calibrated, what smallUnfound looks at: the
// layout's lattice over the expected edge, the face read's size over it,
// the true edge at the die's place over it (the camera's tilt makes the
// far dice smaller than the nominal edge), and whether the check found
// the layout again. One tab-separated line each to DICEWATCH_UNFOUND_DIAG.
// It is a tuning tool: skipped without that variable.
func TestUnfoundDiag(t *testing.T) {
	f := diagFile(t, "DICEWATCH_UNFOUND_DIAG")
	fmt.Fprintln(f, "seed\tdie\tgroup\tstyle\ttilt\ttruth\tread\tfinal\tconf\tpipOff\tlatRel\tfaceRel\tlocalRel\tlatFace\twh\tunfound\tradii\trMeanRel\tyRel")
	type key = [2]float64
	seen, untrace := traceReads()
	defer untrace()
	checks := map[key]checkInfo{}
	checkTrace = func(d *Detection, ci checkInfo) {
		if ci.reason == "frame: ok" || ci.reason == "layout smaller than the frame's dice'" || ci.reason == "a 2 or 3 at a side's spacing of the frame's dice'" {
			return
		}
		checks[key{d.CX, d.CY}] = ci
	}
	defer func() { checkTrace = nil }()
	readStillsR(t, func() { clear(seen); clear(checks) }, func(r *Reader, seed int64, mode string, img gocv.Mat, tr scene.StillTruth, dets []Detection) {
		if mode != "cal" {
			return
		}
		edgeAt := stillEdgeAt(tr)
		for _, p := range matchStill(tr.Dice, dets) {
			g, d := tr.Dice[p[0]], dets[p[1]]
			ci, ok := checks[key{d.CX, d.CY}]
			tc := seen[key{d.CX, d.CY}]
			fv := tc.fv
			if !ok || ci.reason != "" || (fv.value != 2 && fv.value != 3) {
				continue
			}
			e := r.expectedAt(d.CX, d.CY)
			if e <= 0 {
				continue
			}
			latFace := 0.0
			if fv.c.edge > 0 {
				latFace = fv.lat.scale / fv.c.edge
			}
			wh := 0.0
			if fv.c.w > 0 && fv.c.h > 0 {
				wh = min(fv.c.w, fv.c.h) / max(fv.c.w, fv.c.h)
			}
			rm := 0.0
			if lr := layoutRadii(fv); lr > 0 {
				rm = fv.lat.scale / lr / e
			}
			fmt.Fprintf(f, "%d\t%d\t%s\t%s\t%.1f\t%d\t%d\t%d\t%.3f\t%.2f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%v\t%.3f\t%.4f\t%.3f\n",
				seed, p[0], stillGroup(g), g.Style, tr.CameraTiltDeg, g.Value, fv.value, d.Value, d.Confidence, ci.pipOff,
				fv.lat.scale/e, fv.c.edge/e, edgeAt(d.CX, d.CY)/e, latFace, wh, smallUnfound(fv, ci.pipOff, e), layoutRadii(fv), rm, d.CY/float64(tr.Height))
		}
	})
}

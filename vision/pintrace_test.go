package vision

import (
	"math"
	"os"
	"testing"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/vision/scene"
)

// TestPinholeCockTrace logs, for each cocked die of the pinhole stills
// DICEWATCH_STILL_FIRST.. (DICEWATCH_STILLS of them, drawn with
// DICEWATCH_STILL_CAMERA=pinhole) that the calibrated read (the
// calibration's edge, tilt and vertical) calls flat, what each flatness
// cue saw: the cocked nets' probability and cut, the view's tilt and
// vertical at the die, the footprint's centre from the read face's
// centre along the view's vertical (in edges), whether footAside and
// viewCocked measured it, and where the die's other pips lie.
//
//	DICEWATCH_STILL_CAMERA=pinhole DICEWATCH_STILL_FIRST=104577 DICEWATCH_STILLS=1 go test -count=1 -run PinholeCockTrace -v ./vision/
func TestPinholeCockTrace(t *testing.T) {
	if os.Getenv("DICEWATCH_STILL_CAMERA") != "pinhole" {
		t.Skip("set DICEWATCH_STILL_CAMERA=pinhole")
	}
	po, _ := stillPinholeOptions(t)
	r := NewReader(ReaderOptions{DiePx: 1, PipSpread: stillPipSpread})
	defer r.Close()
	faces := map[[2]float64]faceValue{}
	readTrace = func(d *Detection, fv faceValue, shrunk bool) { faces[[2]float64{d.CX, d.CY}] = fv }
	defer func() { readTrace = nil }()
	forEachStill(t, stillFirst(t), stillCount(t, 1), scene.StillOptions{Pinhole: po}, func(seed int64, img gocv.Mat, tr scene.StillTruth) {
		stillPinholeView(tr, &r.opts)
		clear(faces)
		dets, err := r.Read(img)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range matchStill(tr.Dice, dets) {
			g, d := tr.Dice[p[0]], dets[p[1]]
			if stillGroup(g) != "cocked" || !d.Flat {
				continue
			}
			edge := r.cockEdge(d)
			var v [2]float64
			vt := math.NaN()
			if r.opts.ViewUp != nil {
				v = r.opts.ViewUp(d.CX, d.CY)
				vt = r.opts.ViewTiltDeg(d.CX, d.CY)
			}
			s := math.Hypot(v[0], v[1])
			along := math.NaN()
			if s > 0 && d.foot != ([4]float64{}) {
				along = ((d.foot[0]-d.CX)*v[0] + (d.foot[1]-d.CY)*v[1]) / s / edge
			}
			t.Logf("still %d die %d: true %d tilt %.1f read %d conf %.2f flatness %.3f sr %.3f box %v pipbox %v c (%.1f,%.1f) edge %.1f",
				seed, p[0], g.Value, g.TiltDeg, d.Value, d.Confidence, d.Flatness, d.SizeRatio, d.Box, d.PipBox, d.CX, d.CY, edge)
			t.Logf("  cockP %.3f cut(tilt nets) %.2f flatCut %.2f viewTilt %.1f viewUp (%.3f,%.3f) foot %v footAlongUp %.2f edges footAside %v viewCocked %v reachValue %d lat %+v",
				d.cockP, cockTiltNotFlat, r.flatCut(d), vt, v[0], v[1], d.foot, along, r.footAside(d, edge), r.viewCocked(d), d.reachValue, d.lat)
			if fv, ok := faces[[2]float64{d.CX, d.CY}]; ok {
				t.Logf("  face rect c (%.1f,%.1f) w %.1f h %.1f ang %.1f deg flatness %.3f sr %.3f; silhouette edge %.1f turn %.1f deg; blobs %d tmpl %d lv %d",
					fv.c.cx, fv.c.cy, fv.c.w, fv.c.h, fv.c.angle*180/math.Pi, fv.c.flatness, fv.c.sizeRatio, fv.silEdge, fv.silAngle*180/math.Pi, fv.blobs, fv.tmpl, fv.lv)
			}
			t.Logf("  truth: cx %.1f cy %.1f", g.CX, g.CY)
		}
	})
}

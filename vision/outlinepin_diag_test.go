package vision

import (
	"math"
	"os"
	"testing"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/calibration"

	"github.com/dicewatch/dicewatch/vision/scene"
)

// TestOutlinePinDiag counts, on the stills readStills gives (calibrated,
// DICEWATCH_STILL_CAMERA=pinhole for a tilted camera's), the clean and
// the stacked read dice sized past the rules' 1.12 cut, and those whose
// outline reaches outlineStackedCut over the expected (mean) edge and
// over the edge across the line of sight (calibration.DieAcrossPx).
// DICEWATCH_OUTLINE_PIN=on or off (outlineStacked off) runs it (review23):
//
//	DICEWATCH_OUTLINE_PIN=on DICEWATCH_STILL_CAMERA=pinhole DICEWATCH_STILL_MODE=cal DICEWATCH_STILLS=300 go test -count=1 -run OutlinePinDiag -v ./vision/
func TestOutlinePinDiag(t *testing.T) {
	if os.Getenv("DICEWATCH_OUTLINE_PIN") == "" {
		t.Skip("DICEWATCH_OUTLINE_PIN not set")
	}
	outlineStackedOff = os.Getenv("DICEWATCH_OUTLINE_PIN") == "off"
	defer func() { outlineStackedOff = false }()
	clean, stacked, fired, firedClean := 0, 0, 0, 0
	cleanPast, stackedPast := 0, 0
	acrossClean, acrossStacked := 0, 0
	defer func() { t.Logf("across edge: clean past cut %d, stacked past cut %d", acrossClean, acrossStacked) }()
	readStillsR(t, func() {}, func(r *Reader, seed int64, mode string, img gocv.Mat, tr scene.StillTruth, dets []Detection) {
		if mode != "cal" {
			return
		}
		for _, d := range dets {
			if d.Value == 0 {
				continue
			}
			best, bd := -1, math.Inf(1)
			for i, td := range tr.Dice {
				if dd := math.Hypot(td.CX-d.CX, td.CY-d.CY); dd < bd {
					best, bd = i, dd
				}
			}
			if best < 0 || bd > 0.5*d.EdgePx {
				continue
			}
			td := tr.Dice[best]
			isClean := td.Flat && td.OnDie < 0
			if isClean {
				clean++
				if d.SizeRatio >= 1.12 {
					cleanPast++
				}
			} else if td.OnDie >= 0 {
				stacked++
				if d.SizeRatio >= 1.12 {
					stackedPast++
				}
			}
			e := r.expectedAt(d.CX, d.CY)
			if tr.FocalPx > 0 && d.silEdge > 0 {
				c := mustPinholeCal(tr)
				ax := c.DieAcrossPx(calibration.Point{X: d.CX, Y: d.CY})
				if d.silEdge/ax >= outlineStackedCut {
					if isClean {
						acrossClean++
					} else if td.OnDie >= 0 {
						acrossStacked++
					}
				}
				if !isClean && td.OnDie >= 0 && d.silEdge/e >= outlineStackedCut {
					t.Logf("stacked fired: seed %d sil %.2f across %.2f", seed, d.silEdge/e, d.silEdge/ax)
				}
			}
			if d.silEdge > 0 && e > 0 && d.silEdge/e >= outlineStackedCut {
				fired++
				if isClean {
					firedClean++
					t.Logf("clean fired: seed %d tilt %.0f value %d/%d sil %.2f conf %.2f size %.2f", seed, tr.CameraTiltDeg, d.Value, td.Value, d.silEdge/e, d.Confidence, d.SizeRatio)
				}
			}
		}
	})
	t.Logf("read clean %d (size>=1.12: %d) stacked %d (size>=1.12: %d); outline past cut %d, of them clean %d", clean, cleanPast, stacked, stackedPast, fired, firedClean)
}

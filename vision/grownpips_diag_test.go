package vision

import (
	"fmt"
	"testing"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/vision/scene"
)

// TestGrownPipsDiag writes to DICEWATCH_GROWN_DIAG, for every 3 or 4 the
// first read gives on the stills DICEWATCH_STILL_FIRST.. (both modes
// unless DICEWATCH_STILL_MODE), what the veto's grown rectangle holds:
// blobs, peaks and the layout read there, with the truth and the value's
// confidence. A tuning tool (session 19: a 6 by a wall read 3 on a box
// shifted half a face, still 60494).
func TestGrownPipsDiag(t *testing.T) {
	f := diagFile(t, "DICEWATCH_GROWN_DIAG")
	fmt.Fprintln(f, "seed\tmode\tdie\tgroup\ttruth\tvalue\tconf\tblobs\tpeaks\tlv\tls\tsizeRatio")
	seen, untrace := traceReads()
	defer untrace()
	readStillsR(t, func() { clear(seen) }, func(r *Reader, seed int64, mode string, img gocv.Mat, tr scene.StillTruth, dets []Detection) {
		fr := readerFrame(t, r)
		for _, p := range matchStill(tr.Dice, dets) {
			g, d := tr.Dice[p[0]], dets[p[1]]
			if d.Value < 3 || d.Value > 4 {
				continue
			}
			tc, ok := seen[[2]float64{d.CX, d.CY}]
			if !ok || tc.fv.value != d.Value {
				continue
			}
			b, pk := r.face.vetoGrownBlobs(fr, tc.fv.c)
			lv, ls, _ := matchLayout(b)
			fmt.Fprintf(f, "%d\t%s\t%d\t%s\t%d\t%d\t%.3f\t%d\t%d\t%d\t%.2f\t%.3f\n", seed, mode, p[0], stillGroup(g), g.Value, d.Value, d.Confidence, len(b), len(pk), lv, ls, d.SizeRatio)
		}
	})
}

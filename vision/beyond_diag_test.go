package vision

import (
	"bufio"
	"fmt"
	"os"
	"testing"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/vision/scene"
)

// TestBeyondDiag writes, for every die given a 4, 5 or 6 on the stills
// (both read modes) that its first read's layout gave, the count of
// pip-like spots past the layout's corners (beyondPips), with the die's
// truth and group; with DICEWATCH_BEYOND_CROPS set, a crop of each die
// with one spot or more to that directory. Run it with DICEWATCH_NO_BEYOND
// set to see the dice beyondLook withholds.
//
//	DICEWATCH_NO_BEYOND=1 DICEWATCH_BEYOND_DIAG=/tmp/b.tsv DICEWATCH_STILLS=600 go test -count=1 -run BeyondDiag -v -timeout 60m ./vision/
func TestBeyondDiag(t *testing.T) {
	f := diagFile(t, "DICEWATCH_BEYOND_DIAG")
	w := bufio.NewWriter(f)
	defer w.Flush()
	seen, untrace := traceReads()
	defer untrace()
	dir := os.Getenv("DICEWATCH_BEYOND_CROPS")
	fmt.Fprintln(w, "seed\tmode\tdie\tgroup\ttruth\tvalue\tconf\tsr\ttsr\tbeyond")
	readStillsR(t, func() { clear(seen) }, func(r *Reader, seed int64, mode string, img gocv.Mat, tr scene.StillTruth, dets []Detection) {
		fr := readerFrame(t, r)
		for _, p := range matchStill(tr.Dice, dets) {
			g, d := tr.Dice[p[0]], dets[p[1]]
			if d.Value < 4 {
				continue
			}
			tc, ok := seen[[2]float64{d.CX, d.CY}]
			if !ok || tc.fv.value != d.Value {
				continue
			}
			b := beyondPips(fr, &tc.fv.pips, d.Value, tc.fv.body)
			if dir != "" && b >= 1 {
				writeWrongCrop(fmt.Sprintf("%s/%d_%s_%d_b%d.png", dir, seed, mode, p[0], b), img, g, d)
			}
			fmt.Fprintf(w, "%d\t%s\t%d\t%s\t%d\t%d\t%.3f\t%.3f\t%.3f\t%d\n", seed, mode, p[0], stillGroup(g), g.Value, d.Value, d.Confidence, d.SizeRatio, g.SizeRatio, b)
		}
	})
}

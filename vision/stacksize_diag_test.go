package vision

import (
	"bufio"
	"fmt"
	"os"
	"testing"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/vision/scene"
)

// TestStackSizeDiag writes one line per detection of the generated
// stills, read calibrated (the nominal edge, and the edge at each place)
// and uncalibrated, for studying the size evidence against the truth:
//
//	DICEWATCH_STACKSIZE_DIAG=/tmp/ss.tsv DICEWATCH_STILLS=600 go test -count=1 -run StackSizeDiag -v -timeout 60m ./vision/
//
// DICEWATCH_STACKSIZE_MODE=cal, uncal or loc reads in that mode alone
// (loc: calibrated with the edge at each place, stillEdgeAt).
//
// Columns: seed, mode, picture width and height, nominal edge, the
// matched die's group, true size ratio and flat edge at its place (or
// "none", 0, 0 for a detection matched to no die), the detection's
// centre, value, true value, pip reach (latReach), EdgePx, SizeRatio, the
// footprint's ratio the detection had before the size evidence (0 when
// not traced), confidence, flat call and the box's width and height.
func TestStackSizeDiag(t *testing.T) {
	f := diagFile(t, "DICEWATCH_STACKSIZE_DIAG")
	n := stillCount(t, 600)
	w := bufio.NewWriter(f)
	defer w.Flush()
	fp := map[[2]float64]float64{}
	readTrace = func(d *Detection, fv faceValue, shrunk bool) { fp[[2]float64{d.CX, d.CY}] = d.SizeRatio }
	defer func() { readTrace = nil }()
	cal := NewReader(ReaderOptions{DiePx: 1, PipSpread: stillPipSpread})
	defer cal.Close()
	plain := NewReader(ReaderOptions{})
	defer plain.Close()
	loc := NewReader(ReaderOptions{DiePx: 1, PipSpread: stillPipSpread})
	defer loc.Close()
	// DICEWATCH_LARGE_OFF=1: without the large regions' read (see
	// Reader.largeRead), to diff the detections against it.
	largeOff = os.Getenv("DICEWATCH_LARGE_OFF") != ""
	defer func() { largeOff = false }()
	fmt.Fprintln(w, "seed\tmode\tw\th\tnom\tgroup\ttsr\tlocal\tcx\tcy\tval\ttval\treach\tedge\tsr\tfp\tconf\tflat\tbw\tbh")
	forEachStill(t, stillFirst(t), n, stillOptions(t), func(seed int64, img gocv.Mat, truth scene.StillTruth) {
		cal.opts.DiePx = truth.EdgePx
		edgeAt := stillEdgeAt(truth)
		loc.opts.DiePx, loc.opts.ExpectedEdgePx = truth.EdgePx, edgeAt
		for _, m := range []struct {
			name string
			r    *Reader
		}{{"cal", cal}, {"uncal", plain}, {"loc", loc}} {
			if only := os.Getenv("DICEWATCH_STACKSIZE_MODE"); only != "" && only != m.name {
				continue
			}
			clear(fp)
			dets, err := m.r.Read(img)
			if err != nil {
				t.Fatal(err)
			}
			byDet := map[int]int{}
			for _, p := range matchStill(truth.Dice, dets) {
				byDet[p[1]] = p[0]
			}
			for j, d := range dets {
				grp, tsr, le, tv := "none", 0.0, 0.0, 0
				if i, ok := byDet[j]; ok {
					g := truth.Dice[i]
					grp, tsr, le, tv = stillGroup(g), g.SizeRatio, edgeAt(g.CX, g.CY), g.Value
				}
				fmt.Fprintf(w, "%d\t%s\t%d\t%d\t%.2f\t%s\t%.3f\t%.2f\t%.1f\t%.1f\t%d\t%d\t%.3f\t%.2f\t%.4f\t%.4f\t%.3f\t%v\t%d\t%d\n", seed, m.name, truth.Width, truth.Height, truth.EdgePx,
					grp, tsr, le, d.CX, d.CY, d.Value, tv, d.latReach, d.EdgePx, d.SizeRatio, fp[[2]float64{d.CX, d.CY}], d.Confidence, d.Flat, d.Box.Dx(), d.Box.Dy())
			}
		}
	})
	t.Logf("wrote %s", f.Name())
}

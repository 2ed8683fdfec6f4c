package vision

import (
	"fmt"
	"image"
	"os"
	"testing"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/vision/scene"
)

// TestStackMissDiag logs, for each stacked die truly past the stacked cut
// that the calibrated read (the edge at each place) does not detect, the
// regions detect found over it (their boxes, sizes over the expected edge,
// die-sized cells) and the detections near it:
//
//	DICEWATCH_STACKMISS_DIAG=1 DICEWATCH_STILLS=600 go test -count=1 -run StackMissDiag -v ./vision/
func TestStackMissDiag(t *testing.T) {
	if os.Getenv("DICEWATCH_STACKMISS_DIAG") == "" {
		t.Skip("DICEWATCH_STACKMISS_DIAG not set")
	}
	n := stillCount(t, 600)
	type reg struct {
		box   image.Rectangle
		sr    float64
		cells int
		guess bool
	}
	var regs []reg
	detTrace = func(box image.Rectangle, sr float64, cells int, guess bool) {
		regs = append(regs, reg{box, sr, cells, guess})
	}
	defer func() { detTrace = nil }()
	type rd struct {
		blob       image.Rectangle
		value, lv  int
		conf, edge float64
	}
	var reads []rd
	candTrace = func(blob image.Rectangle, fv faceValue, shrunk bool) {
		reads = append(reads, rd{blob, fv.value, fv.lv, fv.conf, fv.c.edge})
	}
	defer func() { candTrace = nil }()
	r := NewReader(ReaderOptions{DiePx: 1, PipSpread: stillPipSpread})
	defer r.Close()
	miss, all := 0, 0
	forEachStill(t, stillFirst(t), n, scene.StillOptions{}, func(seed int64, img gocv.Mat, tr scene.StillTruth) {
		r.opts.DiePx, r.opts.ExpectedEdgePx = tr.EdgePx, stillEdgeAt(tr)
		regs, reads = regs[:0], reads[:0]
		dets, err := r.Read(img)
		if err != nil {
			t.Fatal(err)
		}
		matched := map[int]bool{}
		for _, p := range matchStill(tr.Dice, dets) {
			matched[p[0]] = true
		}
		for i, g := range tr.Dice {
			if stillGroup(g) != "stacked" || g.SizeRatio < 1.12 {
				continue
			}
			all++
			if matched[i] {
				continue
			}
			miss++
			hull := image.Rect(g.Hull[0], g.Hull[1], g.Hull[2], g.Hull[3])
			top := image.Rect(g.Box[0], g.Box[1], g.Box[2], g.Box[3])
			lo := tr.Dice[g.OnDie]
			line := fmt.Sprintf("still %d die %d (on %d, lower occl %.2f) tsr %.3f top %v hull %v flat %v blur %v;", seed, i, g.OnDie, lo.Occluded, g.SizeRatio, top, hull, g.Flat, g.MotionBlur)
			for _, rg := range regs {
				if rg.box.Overlaps(hull) {
					in := rg.box.Intersect(hull)
					line += fmt.Sprintf(" region %v sr %.2f cells %d guess %v cover %.2f;", rg.box, rg.sr, rg.cells, rg.guess,
						float64(in.Dx()*in.Dy())/float64(hull.Dx()*hull.Dy()))
				}
			}
			for _, x := range reads {
				if x.blob.Overlaps(hull) {
					line += fmt.Sprintf(" read %v v%d lv%d c%.2f edge %.1f;", x.blob, x.value, x.lv, x.conf, x.edge)
				}
			}
			for _, d := range dets {
				if d.Box.Overlaps(hull) {
					line += fmt.Sprintf(" det %v v%d c%.2f sr %.2f;", d.Box, d.Value, d.Confidence, d.SizeRatio)
				}
			}
			t.Log(line)
		}
	})
	t.Logf("%d of %d stacked dice truly past the cut not detected", miss, all)
}

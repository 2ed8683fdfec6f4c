package vision

import (
	"bufio"
	"fmt"
	"image"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/vision/scene"
)

// TestPinholeMissDiag writes, for every true die of the stills
// DICEWATCH_STILL_FIRST.. (DICEWATCH_STILLS of them), whether the
// calibrated read detects it drawn the historical way (the edge at each
// place) and drawn through the pinhole (scene.PinholeOptions 600-1200 mm,
// read with its calibration's view, stillPinholeView), one line each in
// DICEWATCH_PINMISS/miss.tsv, with where the die lies, its group in each
// draw, its boxes against the edge the calibration gives there and the
// nearest detection. A clean die missed under the pinhole and found in
// the historical draw gets a crop of each draw (pinhole left, historical
// right; truth top green, hull dark green, nearest detection red). A
// tuning tool: skipped without that variable.
func TestPinholeMissDiag(t *testing.T) {
	dir, f := diagDirFile(t, "DICEWATCH_PINMISS", "miss.tsv")
	w := bufio.NewWriter(f)
	defer w.Flush()
	fmt.Fprintln(w, "seed\tdie\tstyle\tbg\ttilt\thPinMM\tgrpHist\tgrpPin\thitHist\thitPin\tvalHist\tvalPin\tconfPin\t"+
		"cx\tcy\tnadirDistEdges\tedgeAtPin\tedgeNom\ttopWRel\ttopHRel\thullWRel\thullHRel\tbestIoUPin\tnearBoxRel\tnearCentreOff\tnDetPin\tnDetHist\tchips\twall\ttouching\toccl")
	g2, err := os.Create(filepath.Join(dir, "draws.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer g2.Close()
	w2 := bufio.NewWriter(g2)
	defer w2.Flush()
	fmt.Fprintln(w2, "seed\tdraw\tdie\tgroup\tstyle\tbg\ttilt\tviewDeg\tedgeAt\tedgeNom\thit\tval\tconf\tborderEdges\tnearDieEdges\tnearChipEdges\ttopRel\thullRel\ttouching\tchips\twall\tcause\tregSR")
	perDraw := func(draw string, tr scene.StillTruth, m []int, dets []Detection, o ReaderOptions, cause func(g scene.StillDie) string, regSR func(g scene.StillDie) float64) {
		for i, g := range tr.Dice {
			e := o.ExpectedEdgePx(g.CX, g.CY)
			view := tr.CameraTiltDeg
			if o.ViewTiltDeg != nil {
				view = o.ViewTiltDeg(g.CX, g.CY)
			}
			border := math.Min(math.Min(g.CX, float64(tr.Width)-g.CX), math.Min(g.CY, float64(tr.Height)-g.CY)) / e
			nd, nc := math.Inf(1), math.Inf(1)
			for j, o := range tr.Dice {
				if j != i {
					nd = math.Min(nd, math.Hypot(o.CX-g.CX, o.CY-g.CY)/e)
				}
			}
			for _, c := range tr.Chips {
				nc = math.Min(nc, math.Hypot(float64(c[0])-g.CX, float64(c[1])-g.CY)/e)
			}
			val, conf := -1, 0.0
			if m[i] >= 0 {
				val, conf = dets[m[i]].Value, dets[m[i]].Confidence
			}
			top := math.Sqrt(float64((g.Box[2]-g.Box[0])*(g.Box[3]-g.Box[1]))) / e
			hull := math.Sqrt(float64((g.Hull[2]-g.Hull[0])*(g.Hull[3]-g.Hull[1]))) / e
			c := "hit"
			if m[i] < 0 {
				c = cause(g)
			}
			fmt.Fprintf(w2, "%d\t%s\t%d\t%s\t%s\t%s\t%.1f\t%.1f\t%.2f\t%.1f\t%v\t%d\t%.2f\t%.2f\t%.2f\t%.2f\t%.3f\t%.3f\t%v\t%v\t%v\t%s\t%.3f\n",
				tr.Seed, draw, i, stillGroup(g), g.Style, tr.Background, tr.CameraTiltDeg, view, e, tr.EdgePx, m[i] >= 0, val, conf,
				border, nd, nc, top, hull, g.Touching, g.TouchesChips, g.AgainstWall, c, regSR(g))
		}
	}
	cal := NewReader(ReaderOptions{DiePx: 1, PipSpread: stillPipSpread})
	defer cal.Close()
	pinOpt := scene.StillOptions{Pinhole: scene.PinholeOptions{HeightMM: scene.HeightRange{Min: 600, Max: 1200}}}
	type reg struct {
		box   image.Rectangle
		sr    float64
		cells int
		guess bool
	}
	type rd struct {
		blob  image.Rectangle
		value int
		conf  float64
	}
	var regs []reg
	var reads []rd
	detTrace = func(box image.Rectangle, sr float64, cells int, guess bool) {
		regs = append(regs, reg{box, sr, cells, guess})
	}
	defer func() { detTrace = nil }()
	candTrace = func(blob image.Rectangle, fv faceValue, shrunk bool) {
		reads = append(reads, rd{blob, fv.value, fv.conf})
	}
	defer func() { candTrace = nil }()
	read := func(img gocv.Mat, tr scene.StillTruth) ([]Detection, []reg, []rd) {
		regs, reads = nil, nil
		cal.opts = ReaderOptions{DiePx: tr.EdgePx, PipSpread: stillPipSpread, ExpectedEdgePx: stillEdgeAt(tr)}
		stillPinholeView(tr, &cal.opts)
		dets, err := cal.Read(img)
		if err != nil {
			t.Fatalf("still %d: %v", tr.Seed, err)
		}
		return dets, regs, reads
	}
	// regionOf is the size over the expected edge of the region detect
	// found covering most of the die's hull with its centre inside (0:
	// none).
	regionOf := func(g scene.StillDie, rs []reg) float64 {
		hull := image.Rect(g.Hull[0], g.Hull[1], g.Hull[2], g.Hull[3])
		ctr := image.Pt(int(g.CX), int(g.CY))
		sr, cover := 0.0, 0.0
		for _, rg := range rs {
			if !ctr.In(rg.box) {
				continue
			}
			in := rg.box.Intersect(hull)
			if c := float64(in.Dx()*in.Dy()) / float64(hull.Dx()*hull.Dy()); c > cover {
				sr, cover = rg.sr, c
			}
		}
		return sr
	}
	// why names why a true die was not detected: the region detect
	// found over most of its hull (its centre inside the region) and
	// what became of it.
	why := func(g scene.StillDie, dets []Detection, rs []reg, rds []rd) string {
		hull := image.Rect(g.Hull[0], g.Hull[1], g.Hull[2], g.Hull[3])
		ctr := image.Pt(int(g.CX), int(g.CY))
		for _, d := range dets {
			if d.Box.Overlaps(hull) {
				in := d.Box.Intersect(hull)
				if float64(in.Dx()*in.Dy()) >= 0.25*float64(hull.Dx()*hull.Dy()) {
					return "det-low-iou"
				}
			}
		}
		best, cover := -1, 0.0
		for k, rg := range rs {
			if !ctr.In(rg.box) {
				continue
			}
			in := rg.box.Intersect(hull)
			if c := float64(in.Dx()*in.Dy()) / float64(hull.Dx()*hull.Dy()); c > cover {
				best, cover = k, c
			}
		}
		if best < 0 {
			return "no-region"
		}
		rg := rs[best]
		switch {
		case rg.sr < 0.6:
			return "region-small"
		case rg.sr > 1.6 && rg.cells == 0 && !rg.guess:
			return fmt.Sprintf("region-large(%.1f)", math.Min(rg.sr, 3))
		}
		for _, x := range rds {
			if x.blob.Overlaps(hull) && x.blob.Intersect(hull).Eq(x.blob.Intersect(rg.box)) {
				if x.value > 0 {
					return "read-dropped"
				}
			}
		}
		if rg.cells > 0 {
			return "cells-unread"
		}
		return "weak-unread"
	}
	first := stillFirst(t)
	n := stillCount(t, 600)
	var nClean, hitH, hitP, lost, gained int
	for seed := first; seed < first+int64(n); seed++ {
		imgH, trH, err := scene.Still(seed, scene.StillOptions{})
		if err != nil {
			t.Fatal(err)
		}
		imgP, trP, err := scene.Still(seed, pinOpt)
		if err != nil {
			imgH.Close()
			t.Fatal(err)
		}
		coverByStacked(trH.Dice)
		coverByStacked(trP.Dice)
		if len(trH.Dice) != len(trP.Dice) {
			t.Errorf("still %d: %d dice historically, %d under the pinhole", seed, len(trH.Dice), len(trP.Dice))
		}
		detH, regH, rdH := read(imgH, trH)
		detP, regP, rdP := read(imgP, trP)
		mH, mP := matchOf(trH.Dice, detH), matchOf(trP.Dice, detP)
		oH := ReaderOptions{ExpectedEdgePx: stillEdgeAt(trH)}
		oP := ReaderOptions{ExpectedEdgePx: stillEdgeAt(trP)}
		stillPinholeView(trP, &oP)
		perDraw("hist", trH, mH, detH, oH, func(g scene.StillDie) string { return why(g, detH, regH, rdH) }, func(g scene.StillDie) float64 { return regionOf(g, regH) })
		perDraw("pin", trP, mP, detP, oP, func(g scene.StillDie) string { return why(g, detP, regP, rdP) }, func(g scene.StillDie) float64 { return regionOf(g, regP) })
		cam := stillPinholeCamOf(trP)
		nadir := cam.project([2]float64{cam.c[0], cam.c[1]})
		edgeAt := stillEdgeAt(trP)
		for i := range min(len(trH.Dice), len(trP.Dice)) {
			gH, gP := trH.Dice[i], trP.Dice[i]
			e := edgeAt(gP.CX, gP.CY)
			best, near := 0.0, -1
			bestD := math.Inf(1)
			for j, d := range detP {
				top, hull := boxF(gP.Box), boxF(gP.Hull)
				if v := math.Max(iou(top, d.Box), iou(hull, d.Box)); v > best {
					best = v
				}
				if dd := math.Hypot(d.CX-gP.CX, d.CY-gP.CY); dd < bestD {
					bestD, near = dd, j
				}
			}
			nearRel, nearOff := 0.0, math.Inf(1)
			if near >= 0 {
				b := detP[near].Box
				nearRel = math.Sqrt(float64(b.Dx()*b.Dy())) / e
				nearOff = bestD / e
			}
			val := func(m []int, dets []Detection) int {
				if m[i] < 0 {
					return -1
				}
				return dets[m[i]].Value
			}
			confP := 0.0
			if mP[i] >= 0 {
				confP = detP[mP[i]].Confidence
			}
			fmt.Fprintf(w, "%d\t%d\t%s\t%s\t%.1f\t%.0f\t%s\t%s\t%v\t%v\t%d\t%d\t%.2f\t%.0f\t%.0f\t%.2f\t%.2f\t%.2f\t%.3f\t%.3f\t%.3f\t%.3f\t%.2f\t%.3f\t%.2f\t%d\t%d\t%v\t%v\t%v\t%.2f\n",
				seed, i, gP.Style, trP.Background, trP.CameraTiltDeg, trP.CameraHeightMM, stillGroup(gH), stillGroup(gP), mH[i] >= 0, mP[i] >= 0,
				val(mH, detH), val(mP, detP), confP, gP.CX, gP.CY, math.Hypot(gP.CX-nadir[0], gP.CY-nadir[1])/e, e, trP.EdgePx,
				float64(gP.Box[2]-gP.Box[0])/e, float64(gP.Box[3]-gP.Box[1])/e, float64(gP.Hull[2]-gP.Hull[0])/e, float64(gP.Hull[3]-gP.Hull[1])/e,
				best, nearRel, nearOff, len(detP), len(detH), gP.TouchesChips, gP.AgainstWall, gP.Touching, gP.Occluded)
			if stillGroup(gH) != "clean" || stillGroup(gP) != "clean" {
				continue
			}
			nClean++
			if mH[i] >= 0 {
				hitH++
			}
			if mP[i] >= 0 {
				hitP++
			}
			switch {
			case mH[i] >= 0 && mP[i] < 0:
				lost++
				var dP, dH *Detection
				if near >= 0 {
					dP = &detP[near]
				}
				if j := mH[i]; j >= 0 {
					dH = &detH[j]
				}
				writeMissCrop(filepath.Join(dir, fmt.Sprintf("lost_%d_%d.png", seed, i)), imgP, gP, dP, imgH, gH, dH)
			case mH[i] < 0 && mP[i] >= 0:
				gained++
			}
		}
		imgH.Close()
		imgP.Close()
	}
	t.Logf("%d stills from %d: %d dice clean in both draws; detected historically %d (%.2f%%), under the pinhole %d (%.2f%%); lost under the pinhole %d, gained %d",
		n, first, nClean, hitH, 100*ratio(hitH, nClean), hitP, 100*ratio(hitP, nClean), lost, gained)
}

// matchOf is matchStill as the detection index each true die is paired
// with (-1: none).
func matchOf(dice []scene.StillDie, dets []Detection) []int {
	m := make([]int, len(dice))
	for i := range m {
		m[i] = -1
	}
	for _, p := range matchStill(dice, dets) {
		m[p[0]] = p[1]
	}
	return m
}

// writeMissCrop writes two crops of one die side by side, four times
// larger: the pinhole draw's and the historical draw's, each with the
// true top face (green), hull (dark green) and a detection (red) if any.
func writeMissCrop(path string, imgP gocv.Mat, gP scene.StillDie, dP *Detection, imgH gocv.Mat, gH scene.StillDie, dH *Detection) {
	one := func(img gocv.Mat, g scene.StillDie, d *Detection) gocv.Mat {
		const k, half = 4, 40
		r := image.Rect(int(g.CX)-half, int(g.CY)-half, int(g.CX)+half, int(g.CY)+half).Intersect(image.Rect(0, 0, img.Cols(), img.Rows()))
		out := gocv.NewMatWithSize(2*half*k, 2*half*k, gocv.MatTypeCV8UC3)
		if r.Empty() {
			return out
		}
		sub := img.Region(r)
		defer sub.Close()
		big := gocv.NewMat()
		defer big.Close()
		gocv.Resize(sub, &big, image.Pt(r.Dx()*k, r.Dy()*k), 0, 0, gocv.InterpolationNearestNeighbor)
		roi := out.Region(image.Rect(0, 0, r.Dx()*k, r.Dy()*k))
		big.CopyTo(&roi)
		roi.Close()
		sc := func(b image.Rectangle) image.Rectangle {
			return image.Rect((b.Min.X-r.Min.X)*k, (b.Min.Y-r.Min.Y)*k, (b.Max.X-r.Min.X)*k, (b.Max.Y-r.Min.Y)*k)
		}
		gocv.Rectangle(&out, sc(image.Rect(g.Hull[0], g.Hull[1], g.Hull[2], g.Hull[3])), color.RGBA{0, 120, 0, 0}, 1)
		gocv.Rectangle(&out, sc(image.Rect(g.Box[0], g.Box[1], g.Box[2], g.Box[3])), color.RGBA{0, 255, 0, 0}, 1)
		label := "none"
		if d != nil {
			gocv.Rectangle(&out, sc(d.Box), color.RGBA{255, 0, 0, 0}, 1)
			label = strconv.Itoa(d.Value)
		}
		gocv.PutText(&out, label+"/"+strconv.Itoa(g.Value), image.Pt(2, 14), gocv.FontHersheyPlain, 1.1, color.RGBA{255, 0, 0, 0}, 1)
		return out
	}
	a, b := one(imgP, gP, dP), one(imgH, gH, dH)
	defer a.Close()
	defer b.Close()
	both := gocv.NewMat()
	defer both.Close()
	gocv.Hconcat(a, b, &both)
	gocv.IMWrite(path, both)
}

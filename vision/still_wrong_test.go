package vision

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/vision/scene"
)

// DICEWATCH_CHECK_LOG (any value) prints what the consistency check
// measured on every value it looked at.
//
// DICEWATCH_NO_CHECK (any value) turns the consistency check off in every
// test, for before-and-after figures; DICEWATCH_NO_ROWCUT only its cut of
// 2s and 3s at a larger face's pip spacing (minFrameRowRel);
// DICEWATCH_NO_FOLD only the fold doubt (fold.go); DICEWATCH_NO_PIPSROW
// only the cut of a layout small for the die and its pips (layoutRadii);
// DICEWATCH_NO_SILTURN only the cut of a layout turned from the die's
// outline (maxSilTurn); DICEWATCH_NO_SMALLREFIT only the cut of a small
// 2 or 3 the check does not find again (smallUnfound); DICEWATCH_NO_LARGELAT
// only the cut of a lattice too large for the die (maxLatRel);
// DICEWATCH_NO_THIN only the cut of a footprint far from a square
// (minValueFlatness); DICEWATCH_NO_CENTREOFF only the cut of a 3 whose
// middle pip's colour is off its corner pips' (maxCentreOff);
// DICEWATCH_NO_PARTCAP only the uncalibrated cap, under the rules'
// confidence, of a 1, 2 or 3 likely read on part of a face (partCap);
// DICEWATCH_NO_HALFSPLIT only the cut of a 1 read on a face rectangle
// whose halves differ in brightness (maxOneSplit); DICEWATCH_NO_EARLYCOCK
// only the later looks' reads of dice the cocked nets call flat against
// their footprint (earlyCockLook); DICEWATCH_NO_BEYOND only the
// withholding of a layout with pips past its corners (beyondLook).
func init() {
	pipsRowOff = os.Getenv("DICEWATCH_NO_PIPSROW") != ""
	foldOff = os.Getenv("DICEWATCH_NO_FOLD") != ""
	checkOff = os.Getenv("DICEWATCH_NO_CHECK") != ""
	rowCutOff = os.Getenv("DICEWATCH_NO_ROWCUT") != ""
	latOffOff = os.Getenv("DICEWATCH_NO_LATOFF") != ""
	silTurnOff = os.Getenv("DICEWATCH_NO_SILTURN") != ""
	smallRefitOff = os.Getenv("DICEWATCH_NO_SMALLREFIT") != ""
	largeLatOff = os.Getenv("DICEWATCH_NO_LARGELAT") != ""
	thinOff = os.Getenv("DICEWATCH_NO_THIN") != ""
	centreOffOff = os.Getenv("DICEWATCH_NO_CENTREOFF") != ""
	partCapOff = os.Getenv("DICEWATCH_NO_PARTCAP") != ""
	halfSplitOff = os.Getenv("DICEWATCH_NO_HALFSPLIT") != ""
	earlyCockOff = os.Getenv("DICEWATCH_NO_EARLYCOCK") != ""
	beyondOff = os.Getenv("DICEWATCH_NO_BEYOND") != ""
	if os.Getenv("DICEWATCH_CHECK_LOG") != "" {
		checkTrace = func(d *Detection, ci checkInfo) {
			fmt.Fprintf(os.Stderr, "CHECK\t%.1f\t%.1f\t%.3f\t%.3f\t%.3f\t%.3f\t%q\t%.3f\n", d.CX, d.CY, d.Confidence, ci.sizeRel, ci.pipRel, ci.colSpread, ci.reason, ci.pipOff)
		}
	}
}

// TestStillWrongDump writes every wrong value the reader gives on the
// stills DICEWATCH_STILL_FIRST.. (DICEWATCH_STILLS of them), in both read
// modes, to the directory DICEWATCH_WRONG_DUMP: one tab-separated line per
// wrong value in wrong.tsv (the scene, the die's truth, the read, what the
// pip reader's cues said, and how the detection sits on the true dice) and
// a crop of the die, four times larger, with the true top face (green),
// its hull (dark green) and the detection's box (red). It is a tuning
// tool: skipped without that variable.
func TestStillWrongDump(t *testing.T) {
	dir, f := diagDirFile(t, "DICEWATCH_WRONG_DUMP", "wrong.tsv")
	fmt.Fprintln(f, "seed\tmode\tdie\tgroup\tstyle\tbg\ttilt\tedgePx\ttruth\tread\tconf\tflatness\tsizeRatio\tdetEdge/edge\t"+
		"blobs\tlv\tlscore\ttmpl\tncc\tjunk\tsq\tshrunk\tiouTop\tiouHull\tothersInBox\ttouching\tchips\twall\tflags\tcrop")
	type key = [2]float64 // a detection's centre
	seen, untrace := traceReads()
	defer untrace()
	checks := map[key]checkInfo{}
	frames := map[key]checkInfo{}
	checkTrace = func(d *Detection, ci checkInfo) {
		if strings.Contains(ci.reason, "frame") {
			frames[key{d.CX, d.CY}] = ci
			return
		}
		checks[key{d.CX, d.CY}] = ci
	}
	defer func() { checkTrace = nil }()
	// Every value given, right or wrong, with the check's measures.
	all, err := os.Create(filepath.Join(dir, "all.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer all.Close()
	fmt.Fprintln(all, "seed\tmode\tdie\tgroup\tstyle\tbg\ttilt\ttruth\tread\tconf\tflatness\tsizeRel\tpipRel\treason\tfinal\tcolSpread\tpipOff\tframeRel\tframeReason\tfoldStep\tfoldSep\tcentreOff\thalfSplit")
	// Every value published (Value > 0), right or wrong, with what the
	// reader knew of the die, for rules on confidence.
	given, err := os.Create(filepath.Join(dir, "given.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer given.Close()
	fmt.Fprintln(given, "seed\tmode\tdie\tgroup\ttruth\tvalue\tconf\tflat\tflatness\tsizeRatio\tedgeRel\tshrunk\ttraced\tblobs\tlv\tlscore\ttmpl\tncc\tjunk\tsq\tempty\tsilRel\tnbCover\tnbDist\tocclTrue\tnPips\trMin\trMax\trMeanRel\tlatScaleRel\tlatMajorRel\tlatMinorRel\tfaceRel\tlocalRel\tpipRel\tframeRel\tx\ty")
	nWrong, nConf := 0, 0
	first, n := readStills(t, func() { clear(seen); clear(checks); clear(frames) }, func(seed int64, mode string, img gocv.Mat, tr scene.StillTruth, dets []Detection) {
		edgeAt := stillEdgeAt(tr)
		for _, p := range matchStill(tr.Dice, dets) {
			g, d := tr.Dice[p[0]], dets[p[1]]
			if d.Value > 0 {
				tc, traced := seen[key{d.CX, d.CY}]
				nbCover, nbDist := neighbourCover(dets, p[1])
				silRel := 0.0
				if tc.fv.silEdge > 0 {
					silRel = tc.fv.c.edge / tc.fv.silEdge
				}
				fmt.Fprintf(given, "%d\t%s\t%d\t%s\t%d\t%d\t%.3f\t%v\t%.3f\t%.3f\t%.3f\t%v\t%v\t%d\t%d\t%.3f\t%d\t%.3f\t%v\t%v\t%.3f\t%.3f\t%.3f\t%.3f\t%.2f",
					seed, mode, p[0], stillGroup(g), g.Value, d.Value, d.Confidence, d.Flat, d.Flatness, d.SizeRatio, d.EdgePx/tr.EdgePx,
					tc.shrunk, traced, tc.fv.blobs, tc.fv.lv, tc.fv.lscore, tc.fv.tmpl, tc.fv.nccScore, tc.fv.junk, tc.fv.sq, tc.fv.empty, silRel,
					nbCover, nbDist, g.Occluded)
				// The pips the value was read from, against the known
				// (nominal) edge and the edge at the die's place.
				np, rmin, rmax, rsum := 0, math.Inf(1), 0.0, 0.0
				for _, pp := range tc.fv.pips {
					if pp[2] <= 0 {
						continue
					}
					np++
					rmin, rmax, rsum = min(rmin, pp[2]), max(rmax, pp[2]), rsum+pp[2]
				}
				if np == 0 {
					rmin = 0
				}
				rmean := 0.0
				if np > 0 {
					rmean = rsum / float64(np)
				}
				le := edgeAt(d.CX, d.CY)
				ci := checks[key{d.CX, d.CY}]
				fmt.Fprintf(given, "\t%d\t%.2f\t%.2f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.0f\t%.0f\n",
					np, rmin, rmax, rmean/tr.EdgePx, tc.fv.lat.scale/tr.EdgePx, tc.fv.lat.major/tr.EdgePx, tc.fv.lat.minor/tr.EdgePx,
					tc.fv.c.edge/tr.EdgePx, le/tr.EdgePx, ci.pipRel, frames[key{d.CX, d.CY}].pipRel, d.CX, d.CY)
			}
			if ci, ok := checks[key{d.CX, d.CY}]; ok {
				fmt.Fprintf(all, "%d\t%s\t%d\t%s\t%s\t%s\t%.1f\t%d\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%q\t%d\t%.3f\t%.3f\t%.3f\t%q\t%.3f\t%.3f\t%.3f\t%.3f\n",
					seed, mode, p[0], stillGroup(g), g.Style, tr.Background, tr.CameraTiltDeg, g.Value, seen[key{d.CX, d.CY}].fv.value, d.Confidence,
					d.Flatness, ci.sizeRel, ci.pipRel, ci.reason, d.Value, ci.colSpread, ci.pipOff, frames[key{d.CX, d.CY}].pipRel, frames[key{d.CX, d.CY}].reason, ci.foldStep, ci.foldSep, ci.centreOff, ci.halfSplit)
			}
			if d.Value == 0 || d.Value == g.Value {
				continue
			}
			nWrong++
			if d.Confidence >= 0.9 {
				nConf++
			}
			tc := seen[key{d.CX, d.CY}]
			fv := tc.fv
			top := boxF(g.Box)
			hull := boxF(g.Hull)
			// Other true dice whose top face lies a quarter or more
			// inside the detection's box.
			others := 0
			for i, o := range tr.Dice {
				if i == p[0] {
					continue
				}
				ob := image.Rect(o.Box[0], o.Box[1], o.Box[2], o.Box[3])
				in := ob.Intersect(d.Box)
				if a := ob.Dx() * ob.Dy(); a > 0 && 4*in.Dx()*in.Dy() >= a {
					others++
				}
			}
			crop := fmt.Sprintf("%d_%s_%d.png", seed, mode, p[0])
			writeWrongCrop(filepath.Join(dir, crop), img, g, d)
			flags := fmt.Sprintf("onDie=%d occl=%.2f blur=%v tiltDie=%.1f trueSR=%.2f", g.OnDie, g.Occluded, g.MotionBlur, g.TiltDeg, g.SizeRatio)
			fmt.Fprintf(f, "%d\t%s\t%d\t%s\t%s\t%s\t%.1f\t%.1f\t%d\t%d\t%.3f\t%.3f\t%.3f\t%.2f\t%d\t%d\t%.2f\t%d\t%.2f\t%v\t%v\t%v\t%.2f\t%.2f\t%d\t%v\t%v\t%v\t%s\t%s\n",
				seed, mode, p[0], stillGroup(g), g.Style, tr.Background, tr.CameraTiltDeg, tr.EdgePx, g.Value, d.Value, d.Confidence,
				d.Flatness, d.SizeRatio, d.EdgePx/tr.EdgePx, fv.blobs, fv.lv, fv.lscore, fv.tmpl, fv.nccScore, fv.junk, fv.sq, tc.shrunk,
				iou(top, d.Box), iou(hull, d.Box), others, g.Touching, g.TouchesChips, g.AgainstWall, flags, crop)
		}
	})
	t.Logf("%d stills from %d: %d wrong values, %d of them confident (>= 0.9), written to %s", n, first, nWrong, nConf, dir)
}

func boxF(b [4]int) [4]float64 {
	return [4]float64{float64(b[0]), float64(b[1]), float64(b[2]), float64(b[3])}
}

// writeWrongCrop writes the neighbourhood of a true die and its detection,
// four times larger, with the boxes drawn.
func writeWrongCrop(path string, img gocv.Mat, g scene.StillDie, d Detection) {
	r := image.Rect(g.Hull[0], g.Hull[1], g.Hull[2], g.Hull[3]).Union(d.Box)
	m := int(math.Max(float64(r.Dx()), float64(r.Dy())) / 2)
	r = image.Rect(r.Min.X-m, r.Min.Y-m, r.Max.X+m, r.Max.Y+m).Intersect(image.Rect(0, 0, img.Cols(), img.Rows()))
	if r.Empty() {
		return
	}
	sub := img.Region(r)
	defer sub.Close()
	big := gocv.NewMat()
	defer big.Close()
	const k = 4
	gocv.Resize(sub, &big, image.Pt(r.Dx()*k, r.Dy()*k), 0, 0, gocv.InterpolationNearestNeighbor)
	sc := func(b image.Rectangle) image.Rectangle {
		return image.Rect((b.Min.X-r.Min.X)*k, (b.Min.Y-r.Min.Y)*k, (b.Max.X-r.Min.X)*k, (b.Max.Y-r.Min.Y)*k)
	}
	gocv.Rectangle(&big, sc(image.Rect(g.Hull[0], g.Hull[1], g.Hull[2], g.Hull[3])), color.RGBA{0, 120, 0, 0}, 1)
	gocv.Rectangle(&big, sc(image.Rect(g.Box[0], g.Box[1], g.Box[2], g.Box[3])), color.RGBA{0, 255, 0, 0}, 1)
	gocv.Rectangle(&big, sc(d.Box), color.RGBA{255, 0, 0, 0}, 1)
	gocv.PutText(&big, strconv.Itoa(d.Value)+"/"+strconv.Itoa(g.Value), image.Pt(2, 14), gocv.FontHersheyPlain, 1.1, color.RGBA{255, 0, 0, 0}, 1)
	gocv.IMWrite(path, big)
}

// neighbourCover gives, for detection i, the largest share of its box
// another detection's box covers and the nearest other detection's centre
// distance in its edges (+Inf when there is none or no edge).
func neighbourCover(dets []Detection, i int) (cover, dist float64) {
	d := dets[i]
	cover, dist = 0, math.Inf(1)
	for j, o := range dets {
		if j == i {
			continue
		}
		in := o.Box.Intersect(d.Box)
		if a := d.Box.Dx() * d.Box.Dy(); a > 0 {
			cover = max(cover, float64(in.Dx()*in.Dy())/float64(a))
		}
		if d.EdgePx > 0 {
			dist = min(dist, math.Hypot(o.CX-d.CX, o.CY-d.CY)/d.EdgePx)
		}
	}
	return cover, dist
}

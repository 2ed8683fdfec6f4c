package vision

import (
	"fmt"
	"image"
	"math"
	"os"
	"strings"
	"testing"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/vision/scene"
)

// lookTags points the later looks' traces at a map from a detection's
// centre to the looks that gave it a value, in order ("first" for a read
// of a candidate, then frameSize, spot, net, sep, netSmall, mapsAgree,
// restGive), and returns the map, the first reads' faces and a function
// that clears them and one that puts the traces back.
func lookTags() (tags map[[2]float64][]string, firsts map[[2]float64]faceValue, clearAll, undo func()) {
	tags = map[[2]float64][]string{}
	firsts = map[[2]float64]faceValue{}
	add := func(d *Detection, s string) {
		k := [2]float64{d.CX, d.CY}
		tags[k] = append(tags[k], s)
	}
	readTrace = func(d *Detection, fv faceValue, shrunk bool) {
		firsts[[2]float64{d.CX, d.CY}] = fv
		if d.Value > 0 {
			add(d, fmt.Sprintf("first%d", d.Value))
		}
	}
	frameSizeTrace = func(d *Detection, fv faceValue) { add(d, "frameSize") }
	spotTrace = func(d *Detection, rs [5]spotRead) { add(d, "spot") }
	netTrace = func(d *Detection, fv faceValue) { add(d, "net") }
	sepTrace = func(d *Detection, fv faceValue) { add(d, "sep") }
	netSmallTrace = func(r *Reader, fr bgrImage, edge float64, d *Detection, look string, f faceValue, v1 int, m1 float64, v2 int, m2, rel float64, why string) {
		if why == "" {
			add(d, "netSmall")
		}
	}
	mapsAgreeTrace = func(d *Detection, fv faceValue) { add(d, "mapsAgree") }
	restGiveTrace = func(d *Detection, pips image.Rectangle) { add(d, "restGive") }
	clearAll = func() { clear(tags); clear(firsts) }
	undo = func() {
		readTrace, frameSizeTrace, spotTrace, netTrace, sepTrace, netSmallTrace, mapsAgreeTrace, restGiveTrace = nil, nil, nil, nil, nil, nil, nil, nil
	}
	return tags, firsts, clearAll, undo
}

// TestUncalLooksDiag writes every value given on the generated stills
// (DICEWATCH_STILLS, DICEWATCH_STILL_FIRST; DICEWATCH_STILL_MODE as for
// the still harness) and on the photo set DICEWATCH_UNCAL_PHOTOS (byler_d6, matteo_webcam) to the
// file DICEWATCH_UNCAL_DIAG, one line each: the truth, the read, its
// confidence, the looks that gave it and the first read's cues, to tell
// wrong values from right ones by the look that gave them. A tuning
// tool: skipped without that variable.
func TestUncalLooksDiag(t *testing.T) {
	f := diagFile(t, "DICEWATCH_UNCAL_DIAG")
	fmt.Fprintln(f, "set\tseed\tmode\tdie\tgroup\tstyle\tbg\ttilt\ttruth\tvalue\tconf\tflat\tflatness\tsizeRatio\tlooks\tblobs\tlv\ttmpl\tlscore\tncc\tjunk\tsq\tedgeRel\tdoubts\tdflags\tcolSpread\toff")
	tags, firsts, clearAll, undo := lookTags()
	defer undo()
	line := func(r *Reader, dets []Detection, i int, set string, seed int64, mode string, die int, group, style, bg string, tilt float64, truth int, edgeRel float64) {
		d := dets[i]
		rec := r.checked[[2]float64{d.CX, d.CY}]
		fl := ""
		for _, b := range []struct {
			on bool
			s  string
		}{{d.Flatness < doubtFlatness, "F"}, {rec.shrunk, "S"}, {pressed(dets, i), "P"}, {d.SizeRatio > 0 && math.Abs(d.SizeRatio-1) > doubtSizeOff, "Z"},
			{d.Value <= 2, "L"}, {rec.weakCue, "C"}, {rec.weak, "W"}, {rec.larger, "G"}, {rec.colSpread > doubtColSpread, "K"}, {rec.noRefit, "R"}, {!d.Flat, "N"}} {
			if b.on {
				fl += b.s
			}
		}
		if fl == "" {
			fl = "-"
		}
		off := 0.0
		if d.EdgePx > 0 {
			off = rec.off / d.EdgePx
		}
		k := [2]float64{d.CX, d.CY}
		fv := firsts[k]
		lk := strings.Join(tags[k], ",")
		if lk == "" {
			lk = "-"
		}
		fmt.Fprintf(f, "%s\t%d\t%s\t%d\t%s\t%s\t%s\t%.1f\t%d\t%d\t%.3f\t%v\t%.3f\t%.3f\t%s\t%d\t%d\t%d\t%.3f\t%.3f\t%v\t%v\t%.3f\t%d\t%s\t%.3f\t%.3f\n",
			set, seed, mode, die, group, style, bg, tilt, truth, d.Value, d.Confidence, d.Flat, d.Flatness, d.SizeRatio, lk,
			fv.blobs, fv.lv, fv.tmpl, fv.lscore, fv.nccScore, fv.junk, fv.sq, edgeRel, doubts(dets, i, rec), fl, rec.colSpread, off)
	}
	if stillCount(t, 0) > 0 {
		readStillsR(t, clearAll, func(r *Reader, seed int64, mode string, img gocv.Mat, tr scene.StillTruth, dets []Detection) {
			for _, p := range matchStill(tr.Dice, dets) {
				g, d := tr.Dice[p[0]], dets[p[1]]
				if d.Value == 0 {
					continue
				}
				line(r, dets, p[1], "stills", seed, mode, p[0], stillGroup(g), g.Style, tr.Background, tr.CameraTiltDeg, g.Value, d.EdgePx/tr.EdgePx)
			}
		})
	}
	if set := os.Getenv("DICEWATCH_UNCAL_PHOTOS"); set != "" {
		ps := loadPhotoSet(t, set)
		r := NewReader(ReaderOptions{})
		defer r.Close()
		readPhotos(t, ps, r, func(string) { clearAll() }, func(i int, name string, img gocv.Mat, dets []Detection) {
			truth := ps.dice[name]
			for _, p := range matchBoxes(truth, dets, set == "matteo_webcam") {
				g, d := truth[p[0]], dets[p[1]]
				if d.Value == 0 {
					continue
				}
				line(r, dets, p[1], set, int64(i), name, p[0], "-", "-", "-", 0, g.value, 0)
			}
		})
	}
}

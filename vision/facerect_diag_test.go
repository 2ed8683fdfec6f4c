package vision

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"gocv.io/x/gocv"
)

// TestFaceRectDiag reads byler_d6 as the accuracy test does and, for every
// matched die left unread (or read wrong), measures the face rectangle the
// reader settled on against the label box: its edge over the label's
// edge (the label box's side at the rectangle's turn), its two sides'
// ratio, its centre's offset in label edges, its turn within a quarter
// turn, and what read1 gives on the label's place (turned every 7.5
// degrees, sized 0.9, 1 and 1.1) and on the reader's rectangle turned.
// Lines go to DICEWATCH_FACERECT_DIAG (tab-separated), sums by group to
// the log. A tuning tool: skipped without DICEWATCH_FACERECT_DIAG.
func TestFaceRectDiag(t *testing.T) {
	f := diagFile(t, "DICEWATCH_FACERECT_DIAG")
	type key = [2]float64 // a detection's centre
	seen, untrace := traceReads()
	defer untrace()
	fmt.Fprintln(f, "image\tidx\ttruth\tread\tconf\tgroup\tsize\tsides\toff\tangle\tfaceEdge\tgtEdge\tshrunk\tfinal\tgtReads\tturnReads\tbestGT\theld")
	ps := loadPhotoSet(t, "byler_d6")
	r := NewReader(ReaderOptions{})
	defer r.Close()
	crops := os.Getenv("DICEWATCH_FACERECT_CROPS")
	mos := map[string][]gocv.Mat{}
	defer func() {
		for _, ms := range mos {
			for _, m := range ms {
				m.Close()
			}
		}
	}()
	var rightSize, rightOff, rightSides []float64
	groups := map[string]int{}
	byTruth := map[string]int{}
	for _, name := range ps.images {
		img := photoImage(t, ps, name)
		clear(seen)
		dets, err := r.Read(img)
		if err != nil {
			t.Fatal(err)
		}
		fr := readerFrame(t, r)
		truth := ps.dice[name]
		for _, p := range matchBoxes(truth, dets, false) {
			g, d := truth[p[0]], dets[p[1]]
			if d.Value == g.value {
				// The same measures on the dice read right, for scale:
				// the label boxes are drawn with a margin.
				if tr, ok := seen[key{d.CX, d.CY}]; ok && tr.fv.value == d.Value {
					c := tr.fv.c
					side := ((g.box[2] - g.box[0]) + (g.box[3] - g.box[1])) / 2
					ar := math.Remainder(c.angle, math.Pi/2)
					ge := side / (math.Abs(math.Cos(ar)) + math.Abs(math.Sin(ar)))
					rightSize = append(rightSize, math.Sqrt(c.w*c.h)/ge)
					rightOff = append(rightOff, math.Hypot(c.cx-(g.box[0]+g.box[2])/2, c.cy-(g.box[1]+g.box[3])/2)/ge)
					rightSides = append(rightSides, min(c.w, c.h)/max(c.w, c.h))
				}
				continue
			}
			tr, ok := seen[key{d.CX, d.CY}]
			if !ok {
				fmt.Fprintf(f, "%s\t%d\t%d\t%d\t%.2f\tuntraced\n", name, p[0], g.value, d.Value, d.Confidence)
				groups["untraced"]++
				continue
			}
			c := tr.fv.c
			side := ((g.box[2] - g.box[0]) + (g.box[3] - g.box[1])) / 2
			gcx, gcy := (g.box[0]+g.box[2])/2, (g.box[1]+g.box[3])/2
			// The label's place read at every turn and three sizes.
			var gtRight, gtWrong []string
			bestConf, bestTurn, bestSc := 0.0, -1.0, 0.0
			for _, sc := range []float64{0.9, 1, 1.1} {
				for k := 0; k < 12; k++ {
					a := c.angle + float64(k)*7.5*math.Pi/180
					ar := math.Remainder(a, math.Pi/2)
					e := sc * side / (math.Abs(math.Cos(ar)) + math.Abs(math.Sin(ar)))
					fv := r.face.read1(fr, candidate{cx: gcx, cy: gcy, w: e, h: e, edge: e, angle: a})
					if fv.conf < 0.5 || fv.value == 0 {
						continue
					}
					if fv.value == g.value {
						gtRight = append(gtRight, fmt.Sprintf("%.0f@%.1f", float64(k)*7.5, sc))
						if fv.conf > bestConf {
							bestConf, bestTurn, bestSc = fv.conf, float64(k)*7.5, sc
						}
					} else {
						gtWrong = append(gtWrong, fmt.Sprintf("%.0f@%.1f:%d", float64(k)*7.5, sc, fv.value))
					}
				}
			}
			// The reader's rectangle turned.
			var turnRight, turnWrong []string
			for k := 1; k < 12; k++ {
				ct := c
				ct.angle += float64(k) * 7.5 * math.Pi / 180
				fv := r.face.read1(fr, ct)
				if fv.conf < 0.5 || fv.value == 0 {
					continue
				}
				if fv.value == g.value {
					turnRight = append(turnRight, fmt.Sprintf("%.0f", float64(k)*7.5))
				} else {
					turnWrong = append(turnWrong, fmt.Sprintf("%.0f:%d", float64(k)*7.5, fv.value))
				}
			}
			// The label's edge at the turn that read best (else the
			// rectangle's own).
			ang := c.angle
			if bestTurn >= 0 {
				ang += bestTurn * math.Pi / 180
			}
			ar := math.Remainder(ang, math.Pi/2)
			ge := side / (math.Abs(math.Cos(ar)) + math.Abs(math.Sin(ar)))
			size := math.Sqrt(c.w*c.h) / ge
			sides := min(c.w, c.h) / max(c.w, c.h)
			off := math.Hypot(c.cx-gcx, c.cy-gcy) / ge
			group := "map"
			switch {
			case d.Value != 0:
				group = "wrong"
			case len(gtRight) == 0 && len(turnRight) == 0:
				group = "map"
			case len(turnRight) > 0 && size >= 0.85:
				group = "turned"
			case size < 0.8:
				group = "short"
			case off > 0.15:
				group = "off"
			case len(turnRight) > 0:
				group = "turned"
			default:
				group = "rect-other"
			}
			groups[group]++
			if crops != "" {
				// The label's place sampled at the rectangle's turn, beside
				// the crop (label box green, the reader's rectangle magenta).
				var in diagInfo
				in.firstC, in.final = c, tr.fv
				e := side / (math.Abs(math.Cos(ar)) + math.Abs(math.Sin(ar)))
				r.face.sample(fr, candidate{cx: gcx, cy: gcy, w: e, h: e, edge: e, angle: ang})
				r.face.pipMap()
				in.patch, in.dog = r.face.patch, r.face.dog
				k := group
				if g.value <= 2 {
					k += "_12"
				}
				mos[k] = append(mos[k], diagCrop(img, g, in, fmt.Sprintf("%d r%d s%.2f o%.2f", g.value, d.Value, size, off)))
			}
			byTruth[fmt.Sprintf("%s %d", group, g.value)]++
			fmt.Fprintf(f, "%s\t%d\t%d\t%d\t%.2f\t%s\t%.2f\t%.2f\t%.2f\t%.1f\t%.1f\t%.1f\t%v\tv%d/c%.2f/b%d/lv%d/tv%d/ls%.2f/n%.2f/j%v/sq%v\t%d+ %v %d- %v\t%d+ %v %d- %v\t%.0f@%.1f/%.2f\t%s\n",
				name, p[0], g.value, d.Value, d.Confidence, group, size, sides, off, math.Remainder(c.angle, math.Pi/2)*180/math.Pi,
				c.edge, ge, tr.shrunk,
				tr.fv.value, tr.fv.conf, tr.fv.blobs, tr.fv.lv, tr.fv.tmpl, tr.fv.lscore, tr.fv.nccScore, tr.fv.junk, tr.fv.sq,
				len(gtRight), gtRight, len(gtWrong), gtWrong, len(turnRight), turnRight, len(turnWrong), turnWrong, bestTurn, bestSc, bestConf, heldNote(r, d, dets))
		}
		img.Close()
	}
	if crops != "" {
		if err := os.MkdirAll(crops, 0o755); err != nil {
			t.Fatal(err)
		}
		for k, ms := range mos {
			writeMosaic(t, filepath.Join(crops, k+".png"), ms)
		}
	}
	pct := func(xs []float64) string {
		if len(xs) == 0 {
			return "-"
		}
		sort.Float64s(xs)
		q := func(p float64) float64 { return xs[int(p*float64(len(xs)-1))] }
		return fmt.Sprintf("n %d: 5%% %.2f 10%% %.2f 25%% %.2f 50%% %.2f 75%% %.2f 90%% %.2f", len(xs), q(0.05), q(0.1), q(0.25), q(0.5), q(0.75), q(0.9))
	}
	t.Logf("read right, first read's rectangle: size %s", pct(rightSize))
	t.Logf("read right: offset %s", pct(rightOff))
	t.Logf("read right: sides %s", pct(rightSides))
	logCounts(t, "group %-10s %d", groups)
	logCounts(t, "  %-12s %d", byTruth)
}

// heldNote describes the value held for d (giveHeld did not give it):
// the value, its face's short side over the frame's median read edge,
// and whether it is a later look's 1 or 2.
func heldNote(r *Reader, d Detection, dets []Detection) string {
	h, ok := r.held[[2]float64{d.CX, d.CY}]
	if !ok {
		return ""
	}
	med, _ := readEdgeMedian(dets)
	return fmt.Sprintf("v%d side/med %.2f small %v whole %v", h.value, h.side/med, h.small != nil, h.whole)
}

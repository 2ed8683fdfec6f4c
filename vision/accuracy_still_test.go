package vision

import (
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dicewatch/dicewatch/rules"
	"github.com/dicewatch/dicewatch/vision/scene"
)

// The still-scene accuracy harness reads generated stills
// (scene.Still: photo-like 640x640 tables with ground truth for every
// die) and scores the reader against the truth. By default it reads a
// small number of stills (defaultStills, seeds 0..79) as a regression
// test held to floors (stillFloors); DICEWATCH_STILLS sets the number for
// the full run the issue asks for, which reports its figures and the
// issue's bar without holding the floors (they are the default stills'):
//
//	DICEWATCH_STILLS=2000 go test -count=1 -run AccuracyStills -v -timeout 60m ./vision/
//
// DICEWATCH_STILL_CAMERA_H=H or =A-B (mm) draws the stills under a camera
// that high over the table (stillOptions): stacked dice at a pinhole
// camera's scale, about 1.02 at 1 m, instead of the historical 1.08..1.2.
// DICEWATCH_STILL_EDGE=local gives the calibrated read the die edge at
// each place of the picture, DICEWATCH_STILL_VIEW=tilt the camera's tilt
// and the picture of a die's vertical edge (ReaderOptions.ViewTiltDeg and
// ViewUp; see evalStills), DICEWATCH_STILL_VIEW=cal or pinhole the view a
// table calibration of the still's camera gives (stillcal_test.go).
// DICEWATCH_STILL_CAMERA=pinhole draws the stills through a real pinhole
// camera instead and gives the calibrated read that camera's calibration
// (stillpinhole_test.go).
//
// It prints the time spent generating the stills and the mean read time
// of each mode.
//
// Scoring (what counts where):
//
//   - Detection counts every die in the truth: flat, cocked, stacked,
//     under a stacked die, motion-blurred. A detection matches a die when
//     its box overlaps the die's top-face box or its hull (every visible
//     face) with IoU >= 0.3, the larger of the two counting: a cocked
//     die's footprint is its hull, not its top face.
//   - Value is scored on the "clean" dice: flat, not stacked, not under a
//     stacked die, no motion blur. That is the value bar. A
//     motion-blurred die (still moving) and a die under a stacked one
//     (most of its top face hidden) may be unreadable without fault; their
//     values, and those of cocked and stacked-top dice, are printed apart.
//     Confidently wrong values are counted over every detected die: a
//     wrong value is the worst outcome wherever it happens.
//   - A cocked die is caught when it is detected and reported not flat
//     (Flat false). The harness also prints how many cocked dice were not
//     flat or had their value withheld, which is safe but not the flag.
//   - False cocked is the share of detected flat dice that are neither
//     stacked, under a stacked die nor motion-blurred, reported not flat.
//     The blurred and under-a-stack dice are printed apart.
//   - A stacked (top) die is caught when its SizeRatio reaches
//     rules.DefaultStackedSizeRatio (1.12, rules/profile.go), the cut
//     rules.Decide uses for the stacked reason. The generator draws
//     stacked dice 1.08..1.2 times larger, so recall is also printed over
//     the stacked dice whose true size ratio reaches the cut.
//
// Each die falls in one group, the first that applies: stacked (on
// another die), under-stack, blurred, cocked, clean.
//
// Each still is read twice: calibrated, and uncalibrated (the reader
// estimates the die size from the image). The calibrated read plays the
// role of a table calibration: ReaderOptions.DiePx is the scene's nominal
// die edge (truth.EdgePx, the edge at the middle of the picture) and,
// since session 18, ReaderOptions.ExpectedEdgePx the edge of a flat die
// at each place (stillEdgeAt, from the generator's own table-to-picture
// map), as vision/pipeline.go passes a calibration's. Under a tilted
// camera the edge varies across the picture (the far side's dice are
// drawn up to a quarter smaller than the nominal edge, the near side's
// a fifth larger, at a 35 degree tilt); with
// DICEWATCH_STILL_EDGE=nominal the read is given the nominal edge only,
// as before session 18. The calibrated read is also given the dice's pip
// spread (ReaderOptions.PipSpread), part of the dice's design as the
// edge is.

// stillMode is one way of reading the stills.
type stillMode struct {
	name       string
	calibrated bool
}

// stillTally accumulates the still-scene figures of one read mode.
type stillTally struct {
	// tl: detection over every die. val: value confusion and
	// confidently wrong over the detected clean dice (see above).
	tl, val tally
	// Value confusion of the other detected dice, by group.
	other map[string]*[7][7]int
	// Confidently wrong over every detected die, and by group.
	confidentWrongAll int
	groupConfWrong    map[string]int
	// confWrongList: one line per confidently wrong value (seed, die,
	// group, truth, value and what the reader knew), printed in report.
	confWrongList []string
	seed          int64
	reader        *Reader
	// relAll: the values given to every detected die, by confidence.
	relAll reliability
	// Detection per group: truth count and matched count.
	groupN, groupHit map[string]int

	cockedN, cockedDet, cockedHit, cockedSafe int
	flatN, falseCocked                        int
	blurFlatN, blurFalseCocked                int
	underN, underNotFlat                      int
	stackN, stackDet, stackHit                int
	stackBigN, stackBigDet, stackBigHit       int // true size ratio >= cut
	falseStacked                              int // clean dice with SizeRatio >= cut
	// Detections matched to no die: how many, how many carry a value,
	// and how many a value at the rules' default minimum confidence (a
	// die that is not there, read as a valid one).
	phantom, phantomValued, phantomSure int
	// phantomList: one line per phantom die read at that confidence,
	// with the best IoU it has with any die's top face or hull.
	phantomList []string
	// The same over the dice given a value the rules take (rules'
	// minimum confidence): only there does the size decide the verdict,
	// an unread die being a no roll as unreadable.
	stackBigValued, stackBigValuedHit int
	cleanValued, falseStackedValued   int

	// Flatness scores of the detected clean and cocked dice, for the
	// threshold-free view of the flatness evidence.
	cleanFlatness, cockedFlatness []float64

	readTime time.Duration
	reads    int
}

// heavyOcclusion is the covered share of a die's top face above which its
// value is not scored with the clean dice (every die under a stacked one
// in practice: the generator offsets a stacked die by 1..6 mm).
const heavyOcclusion = 0.25

// coverByStacked sets each die's Occluded to the largest share of its
// top-face box covered by the hull of a die stacked on it, or of a die
// stacked on the same die and drawn after it, when that is more than the
// generator's figure. The generator draws the dice
// on the table first, then the stacked ones in order, but records the
// cover only on the die a stacked die rests on, and only for the last
// die stacked there: when two dice are stacked on one die, the first of
// them can be hidden under the second with Occluded 0, and the second
// die's read was scored against the first (a "wrong" value that was the
// right value of the die on top).
func coverByStacked(dice []scene.StillDie) {
	area := func(b [4]int) int { return max(b[2]-b[0], 0) * max(b[3]-b[1], 0) }
	for i := range dice {
		a := area(dice[i].Box)
		if a == 0 {
			continue
		}
		for j, o := range dice {
			// A die stacked on die i, or stacked on the same die as
			// die i and after it (drawn over it). Other neighbours are
			// left to the generator's figure: the boxes of two dice
			// turned apart overlap where the dice do not.
			sibling := dice[i].OnDie >= 0 && o.OnDie == dice[i].OnDie && j > i
			if j == i || (o.OnDie != i && !sibling) {
				continue
			}
			in := [4]int{max(dice[i].Box[0], o.Hull[0]), max(dice[i].Box[1], o.Hull[1]),
				min(dice[i].Box[2], o.Hull[2]), min(dice[i].Box[3], o.Hull[3])}
			dice[i].Occluded = max(dice[i].Occluded, math.Round(float64(area(in))/float64(a)*100)/100)
		}
	}
}

// stillGroup names the group a true die falls in for the figures.
func stillGroup(d scene.StillDie) string {
	switch {
	case d.OnDie >= 0:
		return "stacked"
	case d.Occluded >= heavyOcclusion:
		return "under-stack"
	case d.MotionBlur:
		return "blurred"
	case !d.Flat:
		return "cocked"
	default:
		return "clean"
	}
}

var stillGroups = []string{"clean", "cocked", "stacked", "under-stack", "blurred"}

func newStillTally() *stillTally {
	st := &stillTally{other: map[string]*[7][7]int{}, groupN: map[string]int{}, groupHit: map[string]int{}, groupConfWrong: map[string]int{}}
	for _, g := range stillGroups {
		st.other[g] = &[7][7]int{}
	}
	return st
}

// matchStill pairs detections with true dice greedily by IoU >= 0.3 with
// the die's top-face box or its hull, whichever is larger. Dice whose top
// face is mostly hidden (under a stacked die) are matched last, to the
// detections left: otherwise the stacked die's detection, which overlaps
// the hull of the die under it, could be scored as a misread of that die.
func matchStill(dice []scene.StillDie, dets []Detection) [][2]int {
	var ps []boxPair
	for i, d := range dice {
		top := [4]float64{float64(d.Box[0]), float64(d.Box[1]), float64(d.Box[2]), float64(d.Box[3])}
		hull := [4]float64{float64(d.Hull[0]), float64(d.Hull[1]), float64(d.Hull[2]), float64(d.Hull[3])}
		for j, det := range dets {
			if v := math.Max(iou(top, det.Box), iou(hull, det.Box)); v >= 0.3 {
				ps = append(ps, boxPair{i: i, j: j, v: v, late: d.Occluded >= heavyOcclusion})
			}
		}
	}
	return greedyPairs(ps)
}

// add scores one still's detections against its truth.
func (st *stillTally) add(tr scene.StillTruth, dets []Detection) {
	cut := rules.DefaultStackedSizeRatio
	st.tl.images++
	st.tl.truth += len(tr.Dice)
	st.tl.found += len(dets)
	pairs := matchStill(tr.Dice, dets)
	st.tl.matched += len(pairs)
	matched := make([]int, len(tr.Dice))
	for i := range matched {
		matched[i] = -1
	}
	used := make([]bool, len(dets))
	for _, p := range pairs {
		matched[p[0]] = p[1]
		used[p[1]] = true
	}
	for j, d := range dets {
		if used[j] {
			continue
		}
		st.phantom++
		if d.Value != 0 {
			st.phantomValued++
			if d.Confidence >= rules.DefaultMinConfidence {
				st.phantomSure++
				best, near := 0.0, -1
				for i, g := range tr.Dice {
					top := [4]float64{float64(g.Box[0]), float64(g.Box[1]), float64(g.Box[2]), float64(g.Box[3])}
					hull := [4]float64{float64(g.Hull[0]), float64(g.Hull[1]), float64(g.Hull[2]), float64(g.Hull[3])}
					if v := math.Max(iou(top, d.Box), iou(hull, d.Box)); v > best {
						best, near = v, i
					}
				}
				st.phantomList = append(st.phantomList, fmt.Sprintf("still %d box %v value %d conf %.2f flat %v size ratio %.2f; best IoU %.2f with die %d",
					st.seed, d.Box, d.Value, d.Confidence, d.Flat, d.SizeRatio, best, near))
			}
		}
	}
	for i, g := range tr.Dice {
		grp := stillGroup(g)
		st.groupN[grp]++
		if grp == "cocked" {
			st.cockedN++
		}
		if grp == "stacked" {
			st.stackN++
			if g.SizeRatio >= cut {
				st.stackBigN++
			}
		}
		j := matched[i]
		if j < 0 {
			continue
		}
		d := dets[j]
		st.groupHit[grp]++
		if d.Value != 0 && d.Value != g.Value && d.Confidence >= 0.9 {
			st.confidentWrongAll++
			st.groupConfWrong[grp]++
			line := fmt.Sprintf("still %d die %d (%s): truth %d read %d conf %.2f flat %v flatness %.2f size ratio %.2f",
				st.seed, i, grp, g.Value, d.Value, d.Confidence, d.Flat, d.Flatness, d.SizeRatio)
			if st.reader != nil {
				rec := st.reader.checked[[2]float64{d.CX, d.CY}]
				line += fmt.Sprintf(" doubts %d shrunk %v weak %v colSpread %.2f off %.3f", doubts(dets, j, rec), rec.shrunk, rec.weak, rec.colSpread, rec.off)
			}
			st.confWrongList = append(st.confWrongList, line)
		}
		st.relAll.add(d.Value, g.Value, d.Confidence)
		switch grp {
		case "clean":
			st.val.matched++
			st.val.confusion[g.Value][d.Value]++
			st.val.rel.add(d.Value, g.Value, d.Confidence)
			if d.Value != 0 && d.Value != g.Value && d.Confidence >= 0.9 {
				st.val.confidentWrong++
			}
			st.flatN++
			st.cleanFlatness = append(st.cleanFlatness, d.Flatness)
			if !d.Flat {
				st.falseCocked++
			}
			if d.SizeRatio >= cut {
				st.falseStacked++
			}
			if valued(d) {
				st.cleanValued++
				if d.SizeRatio >= cut {
					st.falseStackedValued++
				}
			}
		case "cocked":
			st.other[grp][g.Value][d.Value]++
			st.cockedDet++
			st.cockedFlatness = append(st.cockedFlatness, d.Flatness)
			if !d.Flat {
				st.cockedHit++
			}
			if !d.Flat || d.Value == 0 {
				st.cockedSafe++
			}
		case "stacked":
			st.other[grp][g.Value][d.Value]++
			st.stackDet++
			if g.SizeRatio >= cut {
				st.stackBigDet++
				if valued(d) {
					st.stackBigValued++
					if d.SizeRatio >= cut {
						st.stackBigValuedHit++
					}
				}
			}
			if d.SizeRatio >= cut {
				st.stackHit++
				if g.SizeRatio >= cut {
					st.stackBigHit++
				}
			}
		case "under-stack":
			st.other[grp][g.Value][d.Value]++
			st.underN++
			if !d.Flat {
				st.underNotFlat++
			}
		case "blurred":
			st.other[grp][g.Value][d.Value]++
			if g.Flat {
				st.blurFlatN++
				if !d.Flat {
					st.blurFalseCocked++
				}
			}
		}
	}
}

// valued reports whether the rules take d's value (not unreadable at the
// rules' default minimum confidence).
func valued(d Detection) bool {
	return d.Value >= 1 && d.Value <= 6 && d.Confidence >= rules.DefaultMinConfidence
}

func (st *stillTally) cockedRecall() float64 { return ratio(st.cockedHit, st.cockedDet) }
func (st *stillTally) falseCockedRate() float64 {
	return ratio(st.falseCocked, st.flatN)
}
func (st *stillTally) stackedRecall() float64 { return ratio(st.stackHit, st.stackDet) }

// bigStackedRecall is the stacked recall over the detected stacked dice
// whose true size ratio reaches the cut: the generator draws a third of
// its stacked dice below it (1.08..1.2), which a true measure leaves
// under the cut and only a measure as noisy on flat dice puts over it.
func (st *stillTally) bigStackedRecall() float64 { return ratio(st.stackBigHit, st.stackBigDet) }
func (st *stillTally) falseStackedRate() float64 { return ratio(st.falseStacked, st.flatN) }

// valueFigures formats correct / wrong / unreadable of a confusion matrix.
func valueFigures(c *[7][7]int) string {
	var n, ok, unr int
	for v := 1; v <= 6; v++ {
		for p := 0; p <= 6; p++ {
			n += c[v][p]
		}
		ok += c[v][v]
		unr += c[v][0]
	}
	return fmt.Sprintf("%d dice: correct %.2f%%  wrong %.2f%% (%d)  unreadable %.2f%%",
		n, 100*ratio(ok, n), 100*ratio(n-ok-unr, n), n-ok-unr, 100*ratio(unr, n))
}

func (st *stillTally) report() string {
	var b strings.Builder
	tl := &st.tl
	fmt.Fprintf(&b, "images %d, true dice %d, detections %d, matched %d\n", tl.images, tl.truth, tl.found, tl.matched)
	fmt.Fprintf(&b, "detection: recall %.2f%%  precision %.2f%%  (IoU >= 0.3 with the top-face box or the hull)\n", 100*tl.recall(), 100*tl.precision())
	fmt.Fprintf(&b, "detections matched to no die: %d; with a value %d; with a value at confidence >= %.2f %d\n",
		st.phantom, st.phantomValued, rules.DefaultMinConfidence, st.phantomSure)
	for _, l := range st.phantomList {
		b.WriteString("  " + l + "\n")
	}
	// The value lines of tally.report, over the clean dice.
	b.WriteString("clean dice (flat, not stacked, not under a stacked die, not blurred), ")
	b.WriteString(st.val.valueReport())
	for _, g := range stillGroups {
		fmt.Fprintf(&b, "  %-11s detection recall %.2f%% (%d/%d)", g, 100*ratio(st.groupHit[g], st.groupN[g]), st.groupHit[g], st.groupN[g])
		if g != "clean" {
			fmt.Fprintf(&b, "; value among detected: %s", valueFigures(st.other[g]))
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "confidently wrong over every detected die: %d (", st.confidentWrongAll)
	for i, g := range stillGroups {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %d", g, st.groupConfWrong[g])
	}
	b.WriteString(")\n")
	for _, l := range st.confWrongList {
		b.WriteString("  " + l + "\n")
	}
	b.WriteString("every detected die: " + st.relAll.report())
	fmt.Fprintf(&b, "cocked recall %.2f%% (%d/%d detected cocked dice not flat; %d cocked dice in all, recall over all %.2f%%); not flat or value withheld %.2f%% (%d)\n",
		100*st.cockedRecall(), st.cockedHit, st.cockedDet, st.cockedN, 100*ratio(st.cockedHit, st.cockedN),
		100*ratio(st.cockedSafe, st.cockedDet), st.cockedSafe)
	fmt.Fprintf(&b, "false cocked %.2f%% (%d/%d clean flat dice); blurred flat dice not flat %d/%d; dice under a stack not flat %d/%d\n",
		100*st.falseCockedRate(), st.falseCocked, st.flatN, st.blurFalseCocked, st.blurFlatN, st.underNotFlat, st.underN)
	fmt.Fprintf(&b, "stacked recall (size ratio >= %.2f) %.2f%% (%d/%d detected; %d stacked in all); of the %d stacked dice truly >= %.2f, %d detected, %d caught (%.2f%%); false stacked %.2f%% (%d/%d clean dice)\n",
		rules.DefaultStackedSizeRatio, 100*st.stackedRecall(), st.stackHit, st.stackDet, st.stackN,
		st.stackBigN, rules.DefaultStackedSizeRatio, st.stackBigDet, st.stackBigHit, 100*st.bigStackedRecall(), 100*st.falseStackedRate(), st.falseStacked, st.flatN)
	fmt.Fprintf(&b, "  over dice given a value at the rules' confidence %.1f: stacked truly >= %.2f caught %.2f%% (%d/%d); false stacked %.2f%% (%d/%d clean dice)\n",
		rules.DefaultMinConfidence, rules.DefaultStackedSizeRatio, 100*ratio(st.stackBigValuedHit, st.stackBigValued), st.stackBigValuedHit, st.stackBigValued,
		100*ratio(st.falseStackedValued, st.cleanValued), st.falseStackedValued, st.cleanValued)
	b.WriteString(flatnessCurve(st.cleanFlatness, st.cockedFlatness))
	if st.reads > 0 {
		fmt.Fprintf(&b, "read time: mean %.1f ms per still\n", float64(st.readTime.Microseconds())/1000/float64(st.reads))
	}
	return b.String()
}

// defaultStills is the number of stills the regression test reads.
const defaultStills = 80

// flatnessCurve tells how well the Flatness score alone separates cocked
// from flat dice: for a few false-cocked rates, the MinFlatness that
// gives it on the clean dice and the cocked recall there.
func flatnessCurve(clean, cocked []float64) string {
	if len(clean) == 0 || len(cocked) == 0 {
		return ""
	}
	cl := append([]float64(nil), clean...)
	sort.Float64s(cl)
	var b strings.Builder
	b.WriteString("flatness score alone:")
	for _, fa := range []float64{0.005, 0.01, 0.02, 0.05, 0.10} {
		// Not flat below cut: at most fa of the clean dice fall below.
		k := int(fa * float64(len(cl)))
		cut := cl[k]
		hit := 0
		for _, f := range cocked {
			if f < cut {
				hit++
			}
		}
		fmt.Fprintf(&b, "  false %.1f%%: recall %.1f%% (MinFlatness %.3f)", 100*fa, 100*ratio(hit, len(cocked)), cut)
	}
	b.WriteString("\n")
	return b.String()
}

// stillPipSpread is the pip spread of every die the still generator draws.
const stillPipSpread = 0.27

// stillCount is the number of stills to read: DICEWATCH_STILLS or def.
func stillCount(t *testing.T, def int) int {
	v := os.Getenv("DICEWATCH_STILLS")
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		t.Fatalf("DICEWATCH_STILLS=%q: want a positive number", v)
	}
	return n
}

// evalStills reads stills 0..n-1 in both modes.
func evalStills(t *testing.T, n int) map[string]*stillTally {
	t.Helper()
	modes := []stillMode{{"calibrated", true}, {"uncalibrated", false}}
	out := map[string]*stillTally{}
	plain := NewReader(ReaderOptions{})
	defer plain.Close()
	// The calibrated read also knows the dice's design: the generator's
	// pip spread (vision/scene, Style.PipSpread, 0.27 for every style),
	// as a casino's calibration would know its dice.
	cal := NewReader(ReaderOptions{DiePx: 1, PipSpread: stillPipSpread})
	defer cal.Close()
	var genTime time.Duration
	debug := os.Getenv("DICEWATCH_DEBUG_DIR")
	// The calibrated read is given the die edge at each place
	// (stillEdgeAt, the generator's own table-to-picture map), as a
	// table calibration gives it: vision/pipeline.go passes the
	// calibration's edge at each place as ExpectedEdgePx.
	// DICEWATCH_STILL_EDGE=nominal gives it only the nominal edge for the
	// whole picture, as before session 18.
	localEdge := stillLocalEdge(t)
	// DICEWATCH_STILL_VIEW=tilt: the calibrated read is also given the
	// camera's tilt off vertical (ReaderOptions.ViewTiltDeg) and the
	// picture of a die's vertical edge (ReaderOptions.ViewUp,
	// stillViewUp), the pose a table calibration's camera has; the
	// stills draw every die through the one camera rotation, so the
	// tilt is the same at every place.
	viewTilt := os.Getenv("DICEWATCH_STILL_VIEW") == "tilt"
	// DICEWATCH_STILL_VIEW=cal (or pinhole): the view from a table
	// calibration of the still's camera instead (stillcal_test.go).
	calView := newStillCalView(t)
	sl := openSureLog(t)
	for _, m := range modes {
		out[m.name] = newStillTally()
	}
	// DICEWATCH_STILL_MODE=cal (or plain) reads in that mode only; the
	// other mode's figures are then empty.
	only := os.Getenv("DICEWATCH_STILL_MODE")
	for seed := stillFirst(t); seed < stillFirst(t)+int64(n); seed++ {
		t0 := time.Now()
		img, tr, err := scene.Still(seed, stillOptions(t))
		genTime += time.Since(t0)
		if err != nil {
			t.Fatal(err)
		}
		coverByStacked(tr.Dice)
		for _, m := range modes {
			if (only == "cal" && !m.calibrated) || (only == "plain" && m.calibrated) {
				continue
			}
			r := plain
			if m.calibrated {
				// The nominal die edge and the edge at each place stand
				// in for a calibration: this is NewReader(ReaderOptions{
				// DiePx: tr.EdgePx, ExpectedEdgePx: stillEdgeAt(tr)}), with
				// one reader kept so that its working Mats stay warm for
				// the timing.
				cal.opts.DiePx = tr.EdgePx
				if localEdge {
					cal.opts.ExpectedEdgePx = stillEdgeAt(tr)
				}
				if viewTilt {
					tilt := tr.CameraTiltDeg
					cal.opts.ViewTiltDeg = func(x, y float64) float64 { return tilt }
					cal.opts.ViewUp = stillViewUp(tr)
				}
				if calView != nil {
					cal.opts.ViewTiltDeg, cal.opts.ViewUp = calView.views(tr)
				}
				stillPinholeView(tr, &cal.opts)
				r = cal
			}
			t1 := time.Now()
			dets, err := r.Read(img)
			d := time.Since(t1)
			if err != nil {
				img.Close()
				t.Fatalf("still %d: %v", seed, err)
			}
			st := out[m.name]
			st.readTime += d
			st.reads++
			st.seed, st.reader = seed, r
			st.add(tr, dets)
			if sl != nil {
				for _, p := range matchStill(tr.Dice, dets) {
					sl.note(m.name+"/"+stillGroup(tr.Dice[p[0]]), dets[p[1]], tr.Dice[p[0]].Value)
				}
			}
			if debug != "" && m.calibrated && seed < 40 {
				var truth []gtDie
				for _, g := range tr.Dice {
					truth = append(truth, gtDie{value: g.Value, box: [4]float64{float64(g.Box[0]), float64(g.Box[1]), float64(g.Box[2]), float64(g.Box[3])}})
				}
				writeDebug(debug, "still_"+strconv.FormatInt(seed, 10), img, truth, dets, match(truth, dets))
			}
		}
		img.Close()
	}
	t.Logf("generated %d stills in %.1f s (%.1f ms each)", n, genTime.Seconds(), float64(genTime.Milliseconds())/float64(n))
	if calView != nil {
		t.Log(calView.report())
	}
	return out
}

// stillLocalEdge reports whether the calibrated still read is given the
// die edge at each place (the default) or, with
// DICEWATCH_STILL_EDGE=nominal, only the nominal edge.
func stillLocalEdge(t *testing.T) bool {
	switch v := os.Getenv("DICEWATCH_STILL_EDGE"); v {
	case "", "local":
		return true
	case "nominal":
		return false
	default:
		t.Fatalf("DICEWATCH_STILL_EDGE=%q: want local or nominal", v)
		return false
	}
}

// stillFloor is what a still read mode must keep (regression floor on the
// default scenes; the bar is printed beside the figures).
type stillFloor struct {
	minRecall, minPrecision float64
	minValue                float64 // correct among detected clean dice
	maxWrong                float64 // wrong among detected clean dice
	minCocked, maxFalseCock float64
	minStacked              float64
	// Over the stacked dice truly past the cut, and the clean dice
	// reported past it.
	minBigStacked, maxFalseStacked float64
	maxConfidentWrong              int // over every detected die
	// maxPhantomSure: detections matched to no die given a value at the
	// rules' default minimum confidence (a die that is not there, read
	// as a valid one).
	maxPhantomSure int
}

// stillFloors: what the reader measured on the default 80 stills when
// they were last raised, less about one die's worth (the stills are the
// same every run). The bar, printed beside the figures, is far
// above most of them. Raise them as the reader improves, never lower
// them. Wrong values among the clean dice were held to the 1%;
// since session 9 to what these stills measure (calibrated none of 189,
// uncalibrated one of 159; 158 before detect9 was merged).
// Lowered once, on purpose: the segmentation's outline regions and second
// background look (byler recall 87.2% -> 93.2%, precision 95.4% -> 97.5%)
// find more false candidates on the stills' wood, felt and cloth
// (calibrated precision 0.626 -> 0.550 here; on 300 stills 70.3% -> 57.9%,
// while recall went 46.6% -> 47.7%, clean wrong 1.19% -> 0.58% and
// confidently wrong 10 -> 7), and this set lost one caught cocked die and
// gained one false cocked die and one confidently wrong value.
// Confidently wrong held to none in either mode since doubtCap (the
// uncalibrated read had one, a cocked die's side face read as its top).
// The calibrated stacked recall was lowered once more (0.57 -> 0.54) when
// the size evidence came from the pips (ReaderOptions.PipSpread): two of
// the 29 detected stacked dice here are drawn below the cut (1.08 and
// 1.10 times) and the face's outline had put them over it, as it put 31
// of the 189 clean dice (now 14); the stacked dice truly past the cut
// are caught as before (15 of 22), held by minBigStacked.
// The cocked floors follow the cocked net's flat call (cocknet.go):
// calibrated 15 of 34 cocked dice caught (was 12), 5 of 189 clean dice
// called not flat (was 21); uncalibrated 10 of 159 clean dice
// (was 22), and the uncalibrated recall floor lowered, on purpose, 0.41 ->
// 0.36: 20 of 54 cocked dice caught here (was 23), as on stills 0..599
// (37.1% for 37.8%) while held-out stills 2000..2599 gain (40.8% for
// 35.5%).
// Session 14 (cock15: two cocked nets, the lower probability, not flat
// from 0.45): false cocked calibrated 5 -> 2 of 189, uncalibrated 10 -> 5
// of 159 (ceilings tightened), and the recall floors lowered, on purpose
// (0.43 -> 0.29, 0.36 -> 0.29): here 10 of 34 cocked dice caught
// calibrated (was 15) and 16 of 54 uncalibrated (was 20), while over
// stills 0..599 and 2000..2599 calibrated recall holds or gains (39.82% ->
// 40.27%, 42.11% -> 42.54%) at half the false calls (3.47% -> 1.87%,
// 4.09% -> 2.23%), and uncalibrated 37.13% -> 38.11% at 4.96% -> 2.86%
// (2000..2599: 40.84% -> 32.44% at 6.12% -> 3.43%).
// The uncalibrated stacked floors were lowered in session 13 (0.24 ->
// 0.20, 0.26 -> 0.22) when a die read by its pips came to be sized
// against the frame's other such dice (relativeSize): here four stacked
// dice drawn below the cut (1.08 to 1.11 times) that their footprints had
// put past it now measure under it, and two truly past it are measured
// against dice as raised as they are (still 43: two stacked dice alone;
// still 23: three of its five read dice stacked), one more (a 1 drawn
// 1.13 times) caught. Over stills 0..1999 the same rule catches 202 of
// the 552 stacked dice truly past the cut (169 before) and puts 173 of
// the 3464 clean dice past it (258).
// maxPhantomSure (session 13): values at the rules' minimum confidence on
// detections matched to no die, 7 in each mode before the pip enclosure
// rule (minPipsEnclosed), calibrated 2 after it (still 27, a printed
// white cross whose corners' felt fits a 4, each corner's ring just over
// half cross; still 77, a small bright spot beside a die read as a 1);
// uncalibrated 7 after it, other ones: printed die pictures on the felt
// (flat ink, about twice a die's size; stills 3, 34, 44, 55), a pair of
// chips read as a 5 (29), a chip beside dice (54), printed letters (73),
// which the rule does not touch. Session 14's printed outline rule
// (printedLook, without a known size) leaves uncalibrated 3: the printed
// die pictures are gone, the chips (29, 54) and the letters (73) stay.
// phantom16's open-pips rule (openLook, both modes) takes the printed
// cross (27): calibrated 1 (77).
// Session 15 (stack16: the large regions' read, largeRead, as stacked
// evidence only): calibrated, 6 stacked dice more detected, each past the
// cut: stacked 16 of 29 -> 22 of 35 (floor 0.54 -> 0.62), truly past the
// cut 15 of 22 -> 21 of 28 (0.68 -> 0.74), recall 0.4981 (0.48 -> 0.49).
// Session 18 (stack19: the calibrated read given the edge at each place,
// stillEdgeAt, as a table calibration gives it, rather than the nominal
// edge): the calibrated floors are the edge at each place's. Here,
// nominal -> local: detection recall 269 -> 260 of 536 (floor lowered, on
// purpose, 0.49 -> 0.48: the lost dice are mostly unread ones in the far
// part of steeply tilted pictures; still 59, a 31.6 degree tilt: three
// dice unread either way, measured 1.27..1.35 nominal edges where the
// local edge is 0.82 of the nominal, two of them no longer detected;
// TestStillEdgeDiffDiag lists every change), clean dice correct 175 -> 171 of 189 (none wrong in
// either), false cocked 2 -> 3 of 189 (ceiling 0.011 -> 0.016), stacked
// dice truly past the cut caught 23 of 30 -> 22 of 26 detected (floor
// 0.74 -> 0.80), stacked 24 of 37 -> 22 of 31 (0.62 -> 0.67), false
// stacked 13 -> 11 of 189 (ceiling 0.075 -> 0.064). DICEWATCH_STILL_EDGE=
// nominal reads as before and these floors do not hold for it.
var stillFloors = map[string]stillFloor{
	"calibrated": {minRecall: 0.48, minPrecision: 0.54, minValue: 0.88, maxWrong: 0.001,
		minCocked: 0.29, maxFalseCock: 0.016, minStacked: 0.67, maxConfidentWrong: 0,
		minBigStacked: 0.80, maxFalseStacked: 0.064, maxPhantomSure: 1},
	"uncalibrated": {minRecall: 0.43, minPrecision: 0.39, minValue: 0.83, maxWrong: 0.0065,
		minCocked: 0.29, maxFalseCock: 0.032, minStacked: 0.20, maxConfidentWrong: 0,
		minBigStacked: 0.22, maxFalseStacked: 0.065, maxPhantomSure: 3},
}

// TestAccuracyStills is the still-scene accuracy harness and regression
// test (see the scoring notes above).
func TestAccuracyStills(t *testing.T) {
	n := stillCount(t, defaultStills)
	t0 := time.Now()
	res := evalStills(t, n)
	t.Logf("%d stills read twice in %.1f s", n, time.Since(t0).Seconds())
	for _, name := range []string{"calibrated", "uncalibrated"} {
		st, fl := res[name], stillFloors[name]
		if st.reads == 0 {
			continue // DICEWATCH_STILL_MODE left this mode out
		}
		t.Logf("%s read of %d stills\n%s", name, n, st.report())
		tl, val := &st.tl, &st.val
		if n != defaultStills {
			continue // the floors are the default stills'; a full run reports
		}
		check := func(what string, got, floor float64, atLeast bool) {
			if (atLeast && got < floor) || (!atLeast && got > floor) {
				rel := "below floor"
				if !atLeast {
					rel = "above ceiling"
				}
				t.Errorf("%s: %s %.4f %s %.4f", name, what, got, rel, floor)
			}
		}
		check("detection recall", tl.recall(), fl.minRecall, true)
		check("detection precision", tl.precision(), fl.minPrecision, true)
		check("value correct", ratio(val.correct(), val.matched), fl.minValue, true)
		check("value wrong", ratio(val.wrong(), val.matched), fl.maxWrong, false)
		check("cocked recall", st.cockedRecall(), fl.minCocked, true)
		check("false cocked", st.falseCockedRate(), fl.maxFalseCock, false)
		check("stacked recall", st.stackedRecall(), fl.minStacked, true)
		check("stacked recall over dice truly past the cut", st.bigStackedRecall(), fl.minBigStacked, true)
		check("false stacked", st.falseStackedRate(), fl.maxFalseStacked, false)
		if st.confidentWrongAll > fl.maxConfidentWrong {
			t.Errorf("%s: %d confidently wrong values, ceiling %d", name, st.confidentWrongAll, fl.maxConfidentWrong)
		}
		if st.phantomSure > fl.maxPhantomSure {
			t.Errorf("%s: %d values at %.2f or more on detections matched to no die, ceiling %d", name, st.phantomSure, rules.DefaultMinConfidence, fl.maxPhantomSure)
		}
	}
	t.Logf("issue bar: value accuracy >= 99.9%%, no confidently wrong value in 2,000 or more, cocked recall >= 99%% with <= 0.5%% false cocked, stacked recall >= 95%%")
}

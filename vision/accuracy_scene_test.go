//go:build scenes

package vision

import (
	"image"
	"os"
	"strconv"
	"testing"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/calibration"
	"github.com/dicewatch/dicewatch/vision/motion"
	"github.com/dicewatch/dicewatch/vision/scene"
)

// TestAccuracyScenes reads the at-rest frame of every throw of generated
// sessions (vision/scene) with the session's calibration and compares with
// the ground truth. It is behind the `scenes` tag because it builds on the
// scene renderer; DICEWATCH_SCENES sets the number of throws (default 60):
//
//	DICEWATCH_SCENES=2000 go test -tags scenes -run AccuracyScenes -v -timeout 60m ./vision/
func TestAccuracyScenes(t *testing.T) {
	n := 60
	if v := os.Getenv("DICEWATCH_SCENES"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			t.Fatal(err)
		}
	}
	sess, err := scene.NewSession(scene.Config{Seed: 5, Throws: n})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	cal := sess.Calibration()
	r := NewReader(ReaderOptions{ExpectedEdgePx: func(x, y float64) float64 {
		return cal.DiePx(calibration.Point{X: x, Y: y})
	}})
	defer r.Close()
	frame := gocv.NewMat()
	defer frame.Close()

	var tl tally
	kindN, kindHit := map[scene.Kind]int{}, map[scene.Kind]int{}
	var flatN, falseCocked, cockedN, cockedHit, stackN, stackHit int
	for _, th := range sess.Truth() {
		if _, err := sess.Render(th.AtRestFrame, &frame); err != nil {
			t.Fatal(err)
		}
		dets, err := r.Read(frame)
		if err != nil {
			t.Fatal(err)
		}
		var truth []gtDie
		var dt []scene.DieTruth
		for _, d := range th.Dice {
			if d.Exited {
				continue
			}
			truth = append(truth, gtDie{value: d.Value, box: [4]float64{float64(d.Box[0]), float64(d.Box[1]), float64(d.Box[2]), float64(d.Box[3])}})
			dt = append(dt, d)
		}
		pairs := match(truth, dets)
		if dir := os.Getenv("DICEWATCH_DEBUG_DIR"); dir != "" && tl.images < 20 {
			writeDebug(dir, "scene_"+strconv.Itoa(th.Throw), frame, truth, dets, pairs)
		}
		kindN[th.Kind] += len(truth)
		kindHit[th.Kind] += len(pairs)
		tl.images++
		tl.truth += len(truth)
		tl.found += len(dets)
		tl.matched += len(pairs)
		tl.centreMatched += centreMatches(truth, dets)
		for _, p := range pairs {
			g, d, tr := truth[p[0]], dets[p[1]], dt[p[0]]
			switch {
			case tr.OnDie != nil:
				stackN++
				if d.SizeRatio >= 1.08 {
					stackHit++
				}
			case !tr.Flat:
				cockedN++
				if !d.Flat {
					cockedHit++
				}
			default:
				flatN++
				if !d.Flat {
					falseCocked++
				}
				tl.confusion[g.value][d.Value]++
				if d.Value != 0 && d.Value != g.value && d.Confidence >= 0.9 {
					tl.confidentWrong++
				}
			}
		}
	}
	vt := tl
	vt.matched = flatN // the confusion counts flat, unstacked dice only
	t.Logf("generated scenes (%d throws, at-rest frames, calibrated)\n%s", n, tl.detectionReport())
	for k, v := range kindN {
		t.Logf("throw kind %-10s detection recall %.2f%% (%d/%d)", k, 100*ratio(kindHit[k], v), kindHit[k], v)
	}
	t.Logf("values among detected flat, unstacked dice (%d):\n%s", flatN, vt.valueReport())
	t.Logf("cocked recall %.2f%% (%d/%d), false cocked %.2f%% (%d/%d); stacked recall (size ratio >= 1.08) %.2f%% (%d/%d)",
		100*ratio(cockedHit, cockedN), cockedHit, cockedN, 100*ratio(falseCocked, flatN), falseCocked, flatN,
		100*ratio(stackHit, stackN), stackHit, stackN)
	t.Logf("issue bar: value accuracy >= 99.9%%, no confidently wrong value, cocked recall >= 99%% with <= 0.5%% false cocked, stacked recall >= 95%%")
	restScenes(t, sess, n)
}

// restScenes reads the same at-rest frames the way the daemon does: with
// the at-rest reader (readAtRest), against the session's first frame (the
// empty table), around each die's place. The places are the truth's rest
// boxes, standing in for the tracker's at-rest candidates (the tracker is
// measured end to end in cmd/dicewatch). A cocked die counts as caught when
// the reader calls it not flat, and separately when the verdict would be a
// no-roll from its evidence (not flat, or a size ratio at rules' stacked
// cut, 1.12); a stacked die is caught at that size ratio.
func restScenes(t *testing.T, sess *scene.Session, n int) {
	cal := sess.Calibration()
	dieAt := func(x, y float64) float64 { return cal.DiePx(calibration.Point{X: x, Y: y}) }
	bg, frame := gocv.NewMat(), gocv.NewMat()
	defer bg.Close()
	defer frame.Close()
	if _, err := sess.Render(0, &bg); err != nil {
		t.Fatal(err)
	}
	const stackCut = 1.12 // rules.DefaultStackedSizeRatio
	var tl tally
	var flatN, falseCocked, cockedN, cockedFlagged, cockedNoRoll, stackN, stackHit, underN int
	for _, th := range sess.Truth() {
		if _, err := sess.Render(th.AtRestFrame, &frame); err != nil {
			t.Fatal(err)
		}
		var truth []gtDie
		var dt []scene.DieTruth
		ar := &motion.AtRest{}
		for _, d := range th.Dice {
			if d.Exited {
				continue
			}
			b := image.Rect(d.Box[0], d.Box[1], d.Box[2], d.Box[3])
			truth = append(truth, gtDie{value: d.Value, box: [4]float64{float64(b.Min.X), float64(b.Min.Y), float64(b.Max.X), float64(b.Max.Y)}})
			dt = append(dt, d)
			ar.Dice = append(ar.Dice, motion.Candidate{Box: b, CX: float64(b.Min.X+b.Max.X) / 2, CY: float64(b.Min.Y+b.Max.Y) / 2})
		}
		dets, err := readAtRest(nil, frame, bg, ar, dieAt)
		if err != nil {
			t.Fatal(err)
		}
		pairs := match(truth, dets)
		tl.images++
		tl.truth += len(truth)
		tl.found += len(dets)
		tl.matched += len(pairs)
		tl.centreMatched += centreMatches(truth, dets)
		under := map[int]bool{} // dice another die rests on: their top face is hidden
		for _, d := range dt {
			if d.OnDie != nil {
				under[*d.OnDie] = true
			}
		}
		for _, p := range pairs {
			g, d, tr := truth[p[0]], dets[p[1]], dt[p[0]]
			switch {
			case under[tr.Die]:
				underN++
			case tr.OnDie != nil:
				stackN++
				if d.SizeRatio >= stackCut {
					stackHit++
				}
			case !tr.Flat:
				cockedN++
				if !d.Flat {
					cockedFlagged++
				}
				if !d.Flat || d.SizeRatio >= stackCut {
					cockedNoRoll++
				}
			default:
				flatN++
				if !d.Flat || d.SizeRatio >= stackCut {
					falseCocked++
				}
				tl.confusion[g.value][d.Value]++
				if d.Value != 0 && d.Value != g.value {
					t.Logf("at-rest wrong: throw %d (%s) die %d: %d read as %d (confidence %.2f, flatness %.2f, size %.2f) at %v, zone %s",
						th.Throw, th.Kind, tr.Die, g.value, d.Value, d.Confidence, d.Flatness, d.SizeRatio, d.Box, tr.Zone)
					if d.Confidence >= 0.9 {
						tl.confidentWrong++
					}
				}
			}
		}
	}
	t.Logf("at-rest: %d matched dice lie under a stacked die (not scored)", underN)
	vt := tl
	vt.matched = flatN
	t.Logf("at-rest reader (the daemon's: empty-table frame, truth rest boxes as the tracker's places), %d throws\n%s", n, tl.detectionReport())
	t.Logf("at-rest values among detected flat, unstacked dice (%d):\n%s", flatN, vt.valueReport())
	t.Logf("at-rest cocked: called not flat %.2f%% (%d/%d), no-roll evidence (not flat or size >= %.2f) %.2f%% (%d/%d); flat dice with such evidence %.2f%% (%d/%d); stacked size >= %.2f %.2f%% (%d/%d)",
		100*ratio(cockedFlagged, cockedN), cockedFlagged, cockedN, stackCut, 100*ratio(cockedNoRoll, cockedN), cockedNoRoll, cockedN,
		100*ratio(falseCocked, flatN), falseCocked, flatN, stackCut, 100*ratio(stackHit, stackN), stackHit, stackN)
}

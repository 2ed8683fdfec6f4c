//go:build scenes

package vision

import (
	"os"
	"strconv"
	"testing"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/calibration"
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
	t.Logf("generated scenes (%d throws, at-rest frames, calibrated)\n%s", n, tl.report())
	for k, v := range kindN {
		t.Logf("throw kind %-10s detection recall %.2f%% (%d/%d)", k, 100*ratio(kindHit[k], v), kindHit[k], v)
	}
	vt := tl
	vt.matched = flatN
	t.Logf("values among detected flat, unstacked dice (%d): correct %.2f%%  wrong %.2f%%  unreadable %.2f%%  (confidently wrong: %d)",
		flatN, 100*ratio(vt.correct(), flatN), 100*ratio(vt.wrong(), flatN), 100*ratio(vt.unreadable(), flatN), vt.confidentWrong)
	t.Logf("cocked recall %.2f%% (%d/%d), false cocked %.2f%% (%d/%d); stacked recall (size ratio >= 1.08) %.2f%% (%d/%d)",
		100*ratio(cockedHit, cockedN), cockedHit, cockedN, 100*ratio(falseCocked, flatN), falseCocked, flatN,
		100*ratio(stackHit, stackN), stackHit, stackN)
	t.Logf("issue bar: value accuracy >= 99.9%%, no confidently wrong value, cocked recall >= 99%% with <= 0.5%% false cocked, stacked recall >= 95%%")
}

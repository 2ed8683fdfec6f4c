//go:build scenes

package vision

import (
	"fmt"
	"image"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/calibration"
	"github.com/dicewatch/dicewatch/rules"
	"github.com/dicewatch/dicewatch/vision/motion"
	"github.com/dicewatch/dicewatch/vision/scene"
)

// restCue is one of the at-rest reader's not-flat cues, each of which
// alone makes a die a no roll (not flat, or at the rules' stacked size).
type restCue struct {
	name string
	// calls reports whether the cue alone calls the die not flat.
	calls func(d Detection) bool
	// value is the cue's measure and margin how far a die lies on the
	// flat side of the cut (smaller is nearer): for flat dice, the
	// nearest to each cut are listed.
	value, margin func(d Detection) float64
}

// restCues are the at-rest not-flat cues as restFlat and the rules apply
// them, taken one at a time (a placed face read a value is flat whatever
// its measures; see restFlat). The squareness cut is the strict one
// (below DefaultMinFlatness) for an unread face and the loose one for a
// read face, whose loose pass also needs one die's size: a read face out
// of square past the strict cut and larger than one die is called by
// "square+size".
var restCues = []restCue{
	{"square", func(d Detection) bool {
		return d.Flatness < DefaultMinFlatness && (d.Value == 0 || d.Flatness < restLooseFlatness)
	}, func(d Detection) float64 { return d.Flatness }, func(d Detection) float64 {
		if d.Value == 0 {
			return d.Flatness - DefaultMinFlatness
		}
		return d.Flatness - restLooseFlatness
	}},
	{"square+size", func(d Detection) bool {
		return d.Value != 0 && d.Flatness < DefaultMinFlatness && d.SizeRatio > restOneDieSize
	}, func(d Detection) float64 { return d.SizeRatio }, func(d Detection) float64 {
		if d.Value == 0 || d.Flatness >= DefaultMinFlatness {
			return 1
		}
		return restOneDieSize - d.SizeRatio
	}},
	{"pip offset", func(d Detection) bool { return d.pipOff > restPipOffset && !d.regrown },
		func(d Detection) float64 { return d.pipOff }, func(d Detection) float64 {
			if d.regrown {
				return 1
			}
			return restPipOffset - d.pipOff
		}},
	{"side marks", func(d Detection) bool { return d.sideMarks > 0 },
		func(d Detection) float64 { return float64(d.sideMarks) }, func(d Detection) float64 { return -float64(d.sideMarks) }},
	{"side out", func(d Detection) bool { return d.Value == 0 && d.sideOut > restSideOut },
		func(d Detection) float64 { return d.sideOut }, func(d Detection) float64 {
			if d.Value != 0 {
				return 1
			}
			return restSideOut - d.sideOut
		}},
	{"stacked size", func(d Detection) bool { return d.SizeRatio >= rules.DefaultStackedSizeRatio },
		func(d Detection) float64 { return d.SizeRatio }, func(d Detection) float64 { return rules.DefaultStackedSizeRatio - d.SizeRatio }},
	// Not one of restFlat's cues: the outline's span (restDie.span) at
	// a trial cut, listed to see how far it parts flat dice from cocked.
	{"span (trial)", func(d Detection) bool { return d.Value != 0 && d.span > restSpanTrial },
		func(d Detection) float64 { return d.span }, func(d Detection) float64 {
			if d.Value == 0 || d.span == 0 {
				return 1
			}
			return restSpanTrial - d.span
		}},
}

// restCuesCalling lists the restCues that call d not flat, each alone,
// with the measures they read (placed faces read a value are flat
// whatever their measures: see restFlat).
func restCuesCalling(d Detection) string {
	var calls []string
	for _, c := range restCues {
		if c.calls(d) {
			calls = append(calls, c.name)
		}
	}
	return fmt.Sprintf("[%s] placed %v regrown %v off %.3f marks %d sideout %.3f span %.3f",
		strings.Join(calls, ", "), d.placed, d.regrown, d.pipOff, d.sideMarks, d.sideOut, d.span)
}

// restSpanTrial is the trial cut of the "span (trial)" row.
const restSpanTrial = 1.2

// TestRestCueMargins is a diagnostic of the at-rest reader's cocked call:
// for every cocked die of generated sessions it lists which cues call it
// not flat, each alone (restCues), and for the flat dice the nearest to
// each cue's cut. DICEWATCH_REST_CUES=SEED:THROWS[,SEED:THROWS...] names
// the sessions (the first THROWS throws of each; SEED:THROWS@T1;T2 only
// throws T1 and T2 of them); seeds 27 and up are the lead's. Skipped
// without it. Every frame and the empty table pass through JPEG at quality
// 80 first (4:2:0), as the daemon's Motion-JPEG video and the scenes
// harness's frames do; DICEWATCH_REST_CUES_JPEG=Q sets the quality, 0
// reads the rendered frames.
//
//	DICEWATCH_REST_CUES=1:300,2:300 go test -tags scenes -run RestCueMargins -v -timeout 170m ./vision/
func TestRestCueMargins(t *testing.T) {
	spec := os.Getenv("DICEWATCH_REST_CUES")
	if spec == "" {
		t.Skip("DICEWATCH_REST_CUES not set")
	}
	quality := sceneDefaultJPEG
	if v := os.Getenv("DICEWATCH_REST_CUES_JPEG"); v != "" {
		var err error
		if quality, err = strconv.Atoi(v); err != nil {
			t.Fatal(err)
		}
	}
	// throughJPEG replaces m with its JPEG round trip at that quality.
	throughJPEG := func(m *gocv.Mat) { sceneJPEG(t, m, quality) }
	type flatNear struct {
		where  string
		value  float64
		margin float64
	}
	nearest := make([][]flatNear, len(restCues))
	const keep = 6
	hist := map[int]int{} // cocked dice by how many cues call them
	var cockedN, flatN, flatCalled int
	byCue := make([]int, len(restCues))
	flatByCue := make([]int, len(restCues))
	for _, f := range strings.Split(spec, ",") {
		// SEED:THROWS@T1;T2: only throws T1, T2 of a session of THROWS.
		only := map[int]bool{}
		if i := strings.Index(f, "@"); i >= 0 {
			for _, v := range strings.Split(f[i+1:], ";") {
				k, err := strconv.Atoi(v)
				if err != nil {
					t.Fatal(err)
				}
				only[k] = true
			}
			f = f[:i]
		}
		parts := strings.SplitN(f, ":", 2)
		seed, err := strconv.ParseInt(parts[0], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		if seed >= 27 {
			t.Fatalf("seed %d: seeds 27 and up are reserved", seed)
		}
		n := 300
		if len(parts) == 2 {
			if n, err = strconv.Atoi(parts[1]); err != nil {
				t.Fatal(err)
			}
		}
		sess, err := scene.NewSession(scene.Config{Seed: seed, Throws: n})
		if err != nil {
			t.Fatal(err)
		}
		cal := sess.Calibration()
		dieAt := func(x, y float64) float64 { return cal.DiePx(calibration.Point{X: x, Y: y}) }
		frame, bg := gocv.NewMat(), gocv.NewMat()
		if _, err := sess.Render(0, &bg); err != nil {
			t.Fatal(err)
		}
		throughJPEG(&bg)
		var ruler pipRuler
		for _, th := range sess.Truth() {
			if len(only) > 0 && !only[th.Throw] {
				continue
			}
			if _, err := sess.Render(th.AtRestFrame, &frame); err != nil {
				t.Fatal(err)
			}
			throughJPEG(&frame)
			var truth []gtDie
			var dt []scene.DieTruth
			ar := &motion.AtRest{}
			for _, d := range th.Dice {
				if d.Exited {
					continue
				}
				truth = append(truth, gtDie{value: d.Value, box: [4]float64{float64(d.Box[0]), float64(d.Box[1]), float64(d.Box[2]), float64(d.Box[3])}})
				dt = append(dt, d)
				b := image.Rect(d.Box[0], d.Box[1], d.Box[2], d.Box[3])
				ar.Dice = append(ar.Dice, motion.Candidate{Box: b, CX: float64(b.Min.X+b.Max.X) / 2, CY: float64(b.Min.Y+b.Max.Y) / 2})
			}
			dets, err := readAtRestRuled(nil, frame, bg, ar, dieAt, &ruler)
			if err != nil {
				t.Fatal(err)
			}
			under := map[int]bool{}
			for _, d := range dt {
				if d.OnDie != nil {
					under[*d.OnDie] = true
				}
			}
			for _, p := range match(truth, dets) {
				d, tr := dets[p[1]], dt[p[0]]
				if under[tr.Die] || tr.OnDie != nil {
					continue
				}
				where := fmt.Sprintf("seed %d throw %d die %d", seed, th.Throw, tr.Die)
				measures := fmt.Sprintf("value %d read %d placed %v regrown %v flatness %.3f size %.3f off %.3f marks %d sideout %.3f span %.3f",
					tr.Value, d.Value, d.placed, d.regrown, d.Flatness, d.SizeRatio, d.pipOff, d.sideMarks, d.sideOut, d.span)
				if !tr.Flat {
					cockedN++
					var calls []string
					if !(d.placed && d.Value != 0) {
						for i, c := range restCues {
							if c.calls(d) {
								calls = append(calls, c.name)
								byCue[i]++
							}
						}
					}
					hist[len(calls)]++
					note := ""
					if d.Value == 0 {
						note = " (unread: a no roll as unreadable)"
					}
					t.Logf("cocked %s tilt %.1f chips %v wall %v style %s: %d cues [%s]%s; %s",
						where, tr.TiltDeg, tr.TouchesChips, tr.AgainstWall, tr.Style, len(calls), strings.Join(calls, ", "), note, measures)
					continue
				}
				flatN++
				if d.placed && d.Value != 0 {
					continue // flat by restFlat's first test, whatever its measures
				}
				called := false
				for i, c := range restCues {
					if c.calls(d) {
						called = true
						flatByCue[i]++
						t.Logf("flat called by %s: %s; %s", c.name, where, measures)
					}
					nearest[i] = append(nearest[i], flatNear{where + "; " + measures, c.value(d), c.margin(d)})
					sort.Slice(nearest[i], func(a, b int) bool { return nearest[i][a].margin < nearest[i][b].margin })
					if len(nearest[i]) > keep {
						nearest[i] = nearest[i][:keep]
					}
				}
				if called {
					flatCalled++
				}
			}
		}
		frame.Close()
		bg.Close()
		sess.Close()
	}
	t.Logf("cocked dice %d; by the number of cues that call them: 0: %d, 1: %d, 2: %d, 3 or more: %d", cockedN, hist[0], hist[1], hist[2], cockedN-hist[0]-hist[1]-hist[2])
	for i, c := range restCues {
		t.Logf("cue %-12s calls %d cocked dice, %d flat dice", c.name, byCue[i], flatByCue[i])
	}
	t.Logf("flat dice %d (placed faces read a value are flat whatever their measures), called not flat by some cue: %d", flatN, flatCalled)
	for i, c := range restCues {
		for _, f := range nearest[i] {
			t.Logf("nearest flat to %s cut: %.3f (margin %.3f): %s", c.name, f.value, f.margin, f.where)
		}
	}
}

package vision

import (
	"fmt"
	"image"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/dicewatch/dicewatch/vision/scene"
	"gocv.io/x/gocv"
)

// spotDiagRec is what the spot decoder read on one detection: on a
// square of the frame's median read-face edge and on the face's own
// rectangle, each on the five maps.
type spotDiagRec struct {
	ok       bool
	med, own [5]spotRead
}

// spotDiagCollect sets spotDiagHook to record, by detection centre, the
// spot decoder's reads of every die called flat.
func spotDiagCollect(recs map[[2]float64]spotDiagRec) func() {
	spotDiagHook = func(r *Reader, fr bgrImage, dets []Detection, roi image.Rectangle) {
		med, okMed := readEdgeMedian(dets)
		off := r.frameOffMedian(dets)
		for _, d := range dets {
			if !d.Flat {
				continue
			}
			key := [2]float64{d.CX, d.CY}
			var face candidate
			if d.Value == 0 {
				cs, ok := r.unreadFaces[key]
				if !ok {
					continue
				}
				face = cs[0]
			} else {
				face = r.checked[key].face
				if face.w == 0 {
					continue
				}
			}
			var rec spotDiagRec
			rec.ok = true
			own := face.square()
			fe := own.edge
			pitch := off
			if math.IsNaN(pitch) {
				pitch = 0.28 * fe
			}
			rec.own = r.face.spotMaps(fr, own, pitch*fe/ifElse(okMed, med, fe))
			if okMed {
				sq := face
				sq.w, sq.h, sq.edge = med, med, med
				rec.med = r.face.spotMaps(fr, sq, pitch)
			}
			recs[key] = rec
		}
	}
	return func() { spotDiagHook = nil }
}

func ifElse(c bool, a, b float64) float64 {
	if c {
		return a
	}
	return b
}

// The decision rules the table compares, each at a lead (see spotVote):
// the colour-distance map alone; any map whose spot pattern leads, with
// no map leading for another value; the landed vote (a hue map and a
// second map); the landed vote with the template agreeing (spotLook's
// rule). Each gives only 3 to 6.
var spotRules = []struct {
	name string
	f    func(rs [5]spotRead, lead float64) int
}{
	{"colour distance alone", func(rs [5]spotRead, lead float64) int {
		if sr := rs[0]; sr.value >= 3 && sr.clear() >= lead && sr.margin-max(sr.next, 0) >= spotAbsMin {
			return sr.value
		}
		return 0
	}},
	{"any map, none against", func(rs [5]spotRead, lead float64) int {
		val := 0
		for _, sr := range rs {
			if sr.value > 0 && sr.clear() >= lead && sr.margin-max(sr.next, 0) >= spotAbsMin {
				if val != 0 && val != sr.value {
					return 0
				}
				val = sr.value
			}
		}
		if val < 3 {
			return 0
		}
		return val
	}},
	{"a hue map and a second map", func(rs [5]spotRead, lead float64) int {
		return spotVote(rs, lead, spotAbsMin)
	}},
	{"the same and the template (spotLook)", func(rs [5]spotRead, lead float64) int {
		if v := spotVote(rs, lead, spotAbsMin); v > 0 && spotTemplateAgrees(rs, v) {
			return v
		}
		return 0
	}},
}

// spotTable tallies right / wrong / undecided at several leads, for dice
// read right and for unread ones, on the face's own rectangle (made
// square) and on a square of the frame's median read face.
type spotTable struct {
	// [variant][rule][lead][group: read, unread][right, wrong, undecided]
	n [2][4][len(spotClears)][2][3]int
	// wrongs lists each wrong decode at lead 0.4.
	wrongs []string
}

var spotClears = [...]float64{0.1, 0.2, 0.3, 0.4, 0.5}

func (tb *spotTable) add(name string, truth, read int, rec spotDiagRec) {
	if !rec.ok {
		return
	}
	g := 0
	if read == 0 {
		g = 1
		if os.Getenv("DICEWATCH_SPOTS_DUMP") != "" && truth >= 3 {
			line := fmt.Sprintf("UNREAD %s truth %d:", name, truth)
			for vi, rs := range [2][5]spotRead{rec.own, rec.med} {
				line += fmt.Sprintf(" |v%d", vi)
				for _, sr := range rs {
					line += fmt.Sprintf(" %d/%.2f/%.0f/t%d", sr.value, sr.clear(), sr.margin, sr.tv)
				}
			}
			tb.wrongs = append(tb.wrongs, line)
		}
	} else if read != truth {
		return
	}
	for vi, rs := range [2][5]spotRead{rec.own, rec.med} {
		if vi == 1 && rs[1].contrast == 0 && rs[0].contrast == 0 {
			continue // no frame median
		}
		for ri, rule := range spotRules {
			for ti, lead := range spotClears {
				v := rule.f(rs, lead)
				k := 2
				switch {
				case v == truth:
					k = 0
				case v != 0:
					k = 1
					if lead == 0.4 {
						tb.wrongs = append(tb.wrongs, fmt.Sprintf("%s square %d rule %d group %d truth %d spot %d", name, vi, ri, g, truth, v))
					}
				}
				tb.n[vi][ri][ti][g][k]++
			}
		}
	}
}

func (tb *spotTable) report() string {
	var b strings.Builder
	for vi, vn := range []string{"own rectangle", "frame-size square"} {
		for ri, rule := range spotRules {
			fmt.Fprintf(&b, "%s, %s:\n", vn, rule.name)
			for ti, lead := range spotClears {
				r, u := tb.n[vi][ri][ti][0], tb.n[vi][ri][ti][1]
				fmt.Fprintf(&b, "  lead %.1f: read right %d / wrong %d / undecided %d; unread right %d / wrong %d / undecided %d\n",
					lead, r[0], r[1], r[2], u[0], u[1], u[2])
			}
		}
	}
	return b.String()
}

// TestSpotsDiag measures the lattice-spot decoder on every matched byler
// die called flat (read right, and unread) and on generated stills (both
// modes, clean flat dice). A tuning tool: skipped without
// DICEWATCH_SPOTS_DIAG (byler, matteo, or stills).
func TestSpotsDiag(t *testing.T) {
	what := os.Getenv("DICEWATCH_SPOTS_DIAG")
	if what == "" {
		t.Skip("DICEWATCH_SPOTS_DIAG not set")
	}
	if what == "speed" {
		spotSpeed(t)
		return
	}
	recs := map[[2]float64]spotDiagRec{}
	defer spotDiagCollect(recs)()
	if os.Getenv("DICEWATCH_SPOTS_LIVE") == "" {
		// The table measures the decoder on the reader's own results.
		spotLookOff = true
		defer func() { spotLookOff = false }()
	}
	given := map[[2]float64]string{}
	spotTrace = func(d *Detection, rs [5]spotRead) {
		line := ""
		for _, sr := range rs {
			line += fmt.Sprintf(" %d/%.2f/%.0f/t%d:%.2f:%.2f", sr.value, sr.clear(), sr.margin-max(sr.next, 0), sr.tv, sr.tBest, sr.tBest-sr.tNext)
		}
		given[[2]float64{d.CX, d.CY}] = line
	}
	defer func() { spotTrace = nil }()
	if what == "stills" {
		n := stillCount(t, 600)
		for _, cal := range []bool{true, false} {
			opts := ReaderOptions{}
			if cal {
				opts = ReaderOptions{DiePx: 1, PipSpread: stillPipSpread}
			}
			r := NewReader(opts)
			var tb spotTable
			forEachStill(t, stillFirst(t), n, scene.StillOptions{}, func(seed int64, img gocv.Mat, tr scene.StillTruth) {
				if cal {
					r.opts.DiePx = tr.EdgePx
				}
				clear(recs)
				clear(given)
				dets, err := r.Read(img)
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range matchStill(tr.Dice, dets) {
					g, d := tr.Dice[p[0]], dets[p[1]]
					if l, ok := given[[2]float64{d.CX, d.CY}]; ok {
						t.Logf("GIVEN still %d die %d (%s, cal %v): truth %d, spot look %d:%s", seed, p[0], stillGroup(g), cal, g.Value, d.Value, l)
					}
					if stillGroup(g) != "clean" {
						continue
					}
					tb.add(fmt.Sprintf("still %d die %d", seed, p[0]), g.Value, d.Value, recs[[2]float64{d.CX, d.CY}])
				}
			})
			r.Close()
			t.Logf("stills calibrated=%v:\n%s", cal, tb.report())
			for _, w := range tb.wrongs {
				t.Log(w)
			}
		}
		return
	}
	ps := loadPhotoSet(t, what)
	r := NewReader(ReaderOptions{})
	defer r.Close()
	var tb spotTable
	for _, name := range ps.images {
		img := photoImage(t, ps, name)
		clear(recs)
		clear(given)
		dets, err := r.Read(img)
		img.Close()
		if err != nil {
			t.Fatal(err)
		}
		truth := ps.dice[name]
		for _, p := range matchBoxes(truth, dets, what == "matteo_webcam") {
			g, d := truth[p[0]], dets[p[1]]
			if l, ok := given[[2]float64{d.CX, d.CY}]; ok {
				t.Logf("GIVEN %s die %d: truth %d, spot look %d:%s", name, p[0], g.value, d.Value, l)
			}
			tb.add(fmt.Sprintf("%s die %d", name, p[0]), g.value, d.Value, recs[[2]float64{d.CX, d.CY}])
		}
	}
	t.Logf("%s:\n%s", what, tb.report())
	for _, w := range tb.wrongs {
		t.Log(w)
	}
}

// spotSpeed reads every byler_d6 photo with and without the spot look,
// the two reads of a photo side by side (5 rounds, the faster read of
// each kept), and logs the median and the mean of the photos' times.
func spotSpeed(t *testing.T) {
	ps := loadPhotoSet(t, "byler_d6")
	r := NewReader(ReaderOptions{})
	defer r.Close()
	var with, without, looks []float64
	mean := func(xs []float64) float64 {
		var s float64
		for _, x := range xs {
			s += x
		}
		return s / float64(len(xs))
	}
	for _, name := range ps.images {
		img := photoImage(t, ps, name)
		best := [2]float64{math.Inf(1), math.Inf(1)}
		for round := 0; round < 5; round++ {
			for k, off := range []bool{true, false} {
				spotLookOff = off
				t0 := time.Now()
				if _, err := r.Read(img); err != nil {
					t.Fatal(err)
				}
				best[k] = min(best[k], float64(time.Since(t0).Microseconds())/1000)
			}
		}
		// The look alone, on the reader's results without it.
		spotLookOff = true
		dets, err := r.Read(img)
		if err != nil {
			t.Fatal(err)
		}
		spotLookOff = false
		fr := readerFrame(t, r)
		own := math.Inf(1)
		for round := 0; round < 5; round++ {
			ds := append([]Detection(nil), dets...)
			t0 := time.Now()
			r.spotLook(fr, ds, image.Rect(0, 0, fr.w, fr.h))
			own = min(own, float64(time.Since(t0).Nanoseconds())/1e6)
		}
		looks = append(looks, own)
		img.Close()
		without = append(without, best[0])
		with = append(with, best[1])
	}
	t.Logf("the look alone: median %.3f ms, mean %.3f ms, most %.3f ms", sortedMedian(looks), mean(looks), looks[len(looks)-1])
	mw, mo := mean(with), mean(without)
	t.Logf("byler_d6, %d photos: median %.3f ms with the spot look, %.3f without; mean %.3f and %.3f",
		len(with), sortedMedian(with), sortedMedian(without), mw, mo)
}

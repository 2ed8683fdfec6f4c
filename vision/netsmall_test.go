package vision

import (
	"fmt"
	"image"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dicewatch/dicewatch/vision/scene"
	"gocv.io/x/gocv"
)

// netSmallCollect sets netSmallTrace to note every candidate
// netSmallLook weighs, by the detection's centre; the returned func
// clears it.
func netSmallCollect(notes map[[2]float64]string) func() {
	spotDiagHook = func(_ *Reader, _ bgrImage, dets []Detection, _ image.Rectangle) {
		netSmallDets = append(netSmallDets[:0], dets...)
	}
	netSmallTrace = func(r *Reader, fr bgrImage, edge float64, d *Detection, look string, f faceValue, v1 int, m1 float64, v2 int, m2, rel float64, why string) {
		if why == "" {
			why = "given"
		}
		extra := ""
		if why == "given" || why == "veto or check" {
			marks := ""
			smallMarks = func(b, p int) { marks += fmt.Sprintf(" %d/%d", b, p) }
			nb := r.face.nothingBeside(fr, f, edge)
			smallMarks = nil
			big := ""
			for _, g := range []float64{1.35, 1.7} {
				sq := f.c
				sq.w, sq.h, sq.edge = g*edge, g*edge, g*edge
				v, _, m := netTop2(r.ns.predict(r.net, fr, sq))
				big += fmt.Sprintf(" x%.2f %d/%.2f", g, v, m)
			}
			ur := r.unreadReads[[2]float64{d.CX, d.CY}]
			// The nearest other detection's centre, in edges, from the
			// look's centre (in the frame).
			ox, oy := d.CX-ur.fv.c.cx, d.CY-ur.fv.c.cy
			cx, cy := f.c.cx+ox, f.c.cy+oy
			near := math.Inf(1)
			for _, o := range netSmallDets {
				if o.CX == d.CX && o.CY == d.CY {
					continue
				}
				near = min(near, math.Hypot(o.CX-cx, o.CY-cy)/edge)
			}
			extra = fmt.Sprintf(" [beside %v%s; sil %v; big%s; ratio %.2f; first lv%d tv%d b%d; near %.2f]", nb, marks, ur.smallSil, big, d.SizeRatio, ur.fv.lv, ur.fv.tmpl, ur.fv.blobs, near)
		}
		notes[[2]float64{d.CX, d.CY}] += fmt.Sprintf("%s v%d ls%.2f n%.2f net %d/%.2f sq %d/%.2f rel%.2f: %s%s; ", look, f.lv, f.lscore, f.nccScore, v1, m1, v2, m2, rel, why, extra)
	}
	return func() { netSmallTrace, spotDiagHook = nil, nil }
}

// netSmallDets are the frame's detections as netSmallLook starts (diag).
var netSmallDets []Detection

// TestNetSmallDiag lists every 1 or 2 netSmallLook weighs on byler_d6 (read
// with the fold nets, as the accuracy test reads it) and, with
// DICEWATCH_STILLS, on the stills DICEWATCH_STILL_FIRST.. in both modes,
// with the die's truth. A tuning tool: DICEWATCH_NETSMALL_DIAG=1 runs it.
func TestNetSmallDiag(t *testing.T) {
	if os.Getenv("DICEWATCH_NETSMALL_DIAG") == "" {
		t.Skip("DICEWATCH_NETSMALL_DIAG not set")
	}
	notes := map[[2]float64]string{}
	defer netSmallCollect(notes)()
	if os.Getenv("DICEWATCH_STILLS") == "" {
		ps := loadPhotoSet(t, "byler_d6")
		r := NewReader(ReaderOptions{})
		defer r.Close()
		readPhotos(t, ps, r, func(string) { clear(notes) }, func(_ int, name string, _ gocv.Mat, dets []Detection) {
			matched := map[int]int{}
			truth := ps.dice[name]
			for _, p := range matchBoxes(truth, dets, false) {
				matched[p[1]] = truth[p[0]].value
			}
			for i, d := range dets {
				if n, ok := notes[[2]float64{d.CX, d.CY}]; ok {
					g, m := matched[i]
					t.Logf("%s at %.0f,%.0f truth %d (matched %v) read %d: %s", name, d.CX, d.CY, g, m, d.Value, n)
				}
			}
		})
		return
	}
	visit := func(seed int64, mode string, _ gocv.Mat, tr scene.StillTruth, dets []Detection) {
		matched := map[int]scene.StillDie{}
		for _, p := range matchStill(tr.Dice, dets) {
			matched[p[1]] = tr.Dice[p[0]]
		}
		for i, d := range dets {
			n, ok := notes[[2]float64{d.CX, d.CY}]
			if !ok {
				continue
			}
			g, m := matched[i]
			grp := "no die"
			if m {
				grp = stillGroup(g)
			}
			t.Logf("still %d %s at %.0f,%.0f %s truth %d read %d: %s", seed, mode, d.CX, d.CY, grp, g.Value, d.Value, n)
		}
	}
	list := os.Getenv("DICEWATCH_NETSMALL_SEEDS")
	if list == "" {
		readStills(t, func() { clear(notes) }, visit)
		return
	}
	for _, f := range strings.Split(list, ",") {
		seed, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		img, tr, err := scene.Still(seed, scene.StillOptions{})
		if err != nil {
			t.Fatal(err)
		}
		coverByStacked(tr.Dice)
		for _, mode := range []string{"cal", "plain"} {
			opts := ReaderOptions{}
			if mode == "cal" {
				opts.DiePx = tr.EdgePx
			}
			r := NewReader(opts)
			clear(notes)
			dets, err := r.Read(img)
			r.Close()
			if err != nil {
				t.Fatal(err)
			}
			visit(seed, mode, img, tr, dets)
		}
		img.Close()
	}
}

// TestNetSmallPhotos reads byler_d6 photos where netSmallLook gives a 1 the
// other looks leave unread (a dark or marbled die's lone red pip), each
// with the fold net that never saw it: every value the look gives must be
// its die's label, it must give at least one on each photo marked so,
// and on the others the test named must be what holds a candidate. On the
// last, the six-output fold net gave a dark red 5 a 1 without the
// template score test; the seven-output one would hold it too (margin
// 0.45), so that test is checked by its reason, not by the label alone.
func TestNetSmallPhotos(t *testing.T) {
	ps := loadPhotoSet(t, "byler_d6")
	r := NewReader(ReaderOptions{})
	defer r.Close()
	if r.net == nil {
		t.Skip("no face net")
	}
	netOf := heldOutNets(t, ps.name, r)
	gave, whys := traceNetSmall()
	defer func() { netSmallTrace = nil }()
	for _, tc := range []struct {
		name string
		give bool
		held string // a reason some candidate must be held for
	}{
		{"IMG_20191208_112010.jpg", true, ""}, {"IMG_20191208_112353.jpg", true, ""},
		// Given with session 11's six-output net; the seven-output
		// net's margin on its face is 0.58, under netSmallMargin.
		{"IMG_20191208_112951.jpg", false, "net on the face"},
		// A dark red 5 whose pips merged into one blob, read as a 1
		// by a later look's layout and the net: its template's score
		// is low.
		{"IMG_20191209_095849.jpg", false, "template score"},
	} {
		name := tc.name
		r.net = netOf[name]
		img := gocv.IMRead(filepath.Join(photoRoot, ps.name, "images", name), gocv.IMReadColor)
		clear(gave)
		clear(whys)
		dets, err := r.Read(img)
		img.Close()
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		truth := ps.dice[name]
		for _, p := range matchBoxes(truth, dets, false) {
			d := dets[p[1]]
			if !gave[[2]float64{d.CX, d.CY}] {
				continue
			}
			n++
			if g := truth[p[0]].value; d.Value != g {
				t.Errorf("%s: label %d read %d", name, g, d.Value)
			}
		}
		if n != len(gave) {
			t.Errorf("%s: %d values given on no labelled die", name, len(gave)-n)
		}
		if n == 0 && tc.give {
			t.Errorf("%s: no 1 or 2 given", name)
		}
		if tc.held != "" && !whys[tc.held] {
			t.Errorf("%s: no candidate held for %q", name, tc.held)
		}
	}
}

// TestNetSmallStills reads the generated stills where netSmallLook without
// one of its tests gave a wrong value, the net agreeing at full margin on
// the face and the frame-size square: a calibrated clean 4 read as 1 on a
// tilted camera (still 96) and a 2 half under a neighbour read as 1
// (uncalibrated still 2095), both with marks beside and no outline; a 4
// half hidden by the die stacked on it read as 2 (uncalibrated still 174,
// the 2's spacing); blurred 2s read as 1 by a later look, the first
// look's template a 2 (uncalibrated stills 118 and 1098). No value the
// look gives there may be wrong. With session 12's seven-output net most
// of these are held by the net itself (96 by its margin on the face, 118
// and 1098's 1s not weighed at all), so a wrong value alone would no
// longer show a test gone: where the test that caught a still still
// holds a candidate there (174's spacing, 2095's marks beside), that
// reason must be seen.
func TestNetSmallStills(t *testing.T) {
	gave, whys := traceNetSmall()
	defer func() { netSmallTrace = nil }()
	// With a known die size the look does not run: let it, for still 96.
	was := netSmallKnownSize
	defer func() { netSmallKnownSize = was }()
	netSmallKnownSize = true
	for _, tc := range []struct {
		seed       int64
		calibrated bool
		held       string // a reason some candidate must be held for
	}{{96, true, ""}, {174, false, "pip spacing"}, {118, false, ""}, {1098, false, ""}, {2095, false, "marks beside, no outline"}} {
		img, tr, err := scene.Still(tc.seed, scene.StillOptions{})
		if err != nil {
			t.Fatal(err)
		}
		coverByStacked(tr.Dice)
		opts := ReaderOptions{}
		if tc.calibrated {
			opts.DiePx = tr.EdgePx
		}
		r := NewReader(opts)
		clear(gave)
		clear(whys)
		dets, err := r.Read(img)
		r.Close()
		img.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range matchStill(tr.Dice, dets) {
			g, d := tr.Dice[p[0]], dets[p[1]]
			if gave[[2]float64{d.CX, d.CY}] && d.Value != g.Value {
				t.Errorf("still %d (calibrated %v) die %d: given %d, true face %d", tc.seed, tc.calibrated, p[0], d.Value, g.Value)
			}
		}
		if tc.held != "" && !whys[tc.held] {
			t.Errorf("still %d: no candidate held for %q", tc.seed, tc.held)
		}
	}
}

// TestNetSmallKnownSize: with a known die size netSmallLook weighs
// nothing (still 682, where it gave a calibrated 1 before it was kept to
// reads without one).
func TestNetSmallKnownSize(t *testing.T) {
	n := 0
	netSmallTrace = func(_ *Reader, _ bgrImage, _ float64, _ *Detection, _ string, _ faceValue, _ int, _ float64, _ int, _, _ float64, _ string) {
		n++
	}
	defer func() { netSmallTrace = nil }()
	img, tr, err := scene.Still(682, scene.StillOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer img.Close()
	r := NewReader(ReaderOptions{DiePx: tr.EdgePx})
	defer r.Close()
	if _, err := r.Read(img); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("calibrated: %d candidates weighed, want none", n)
	}
}

// traceNetSmall sets netSmallTrace to note the dice netSmallLook gives a
// value (by centre) and every reason it held a candidate for ("" for a
// value given); the caller sets the trace back to nil.
func traceNetSmall() (gave map[[2]float64]bool, whys map[string]bool) {
	gave, whys = map[[2]float64]bool{}, map[string]bool{}
	netSmallTrace = func(_ *Reader, _ bgrImage, _ float64, d *Detection, _ string, _ faceValue, _ int, _ float64, _ int, _, _ float64, why string) {
		if why == "" {
			gave[[2]float64{d.CX, d.CY}] = true
		}
		whys[why] = true
	}
	return gave, whys
}

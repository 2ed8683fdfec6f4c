package vision

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/dicewatch/dicewatch/vision/scene"
	"gocv.io/x/gocv"
)

// DICEWATCH_NO_VETO (any value) turns the value veto off in every test,
// for before-and-after figures.
// DICEWATCH_VETO_LOG (any value) prints what the veto measured on every
// value it looked at.
func init() {
	vetoOff = os.Getenv("DICEWATCH_NO_VETO") != ""
	if os.Getenv("DICEWATCH_VETO_LOG") != "" {
		vetoTrace = func(d *Detection, vi vetoInfo) {
			fmt.Fprintf(os.Stderr, "VETO\t%d\t%.3f\t%d\t%d\t%d\t%.2f\t%q\t%.3f\n", vi.value, vi.conf, vi.blobs, vi.peaks, vi.lv, vi.ls, vi.reason, d.Flatness)
		}
	}
}

// stillFirst is the first still seed the still harness reads:
// DICEWATCH_STILL_FIRST, or 0. A held-out range of seeds checks what was
// tuned on others.
func stillFirst(t *testing.T) int64 {
	v := os.Getenv("DICEWATCH_STILL_FIRST")
	if v == "" {
		return 0
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		t.Fatalf("DICEWATCH_STILL_FIRST=%q: want a seed >= 0", v)
	}
	return n
}

// stillOptions is the still generator's options for the harnesses that
// read generated stills: the historical draw, or with
// DICEWATCH_STILL_CAMERA_H=H (mm) or =A-B (a height drawn for each still
// from A..B mm) a camera that high over the table, which draws each
// stacked die at the scale and place a pinhole camera there sees
// (scene.StillOptions.CameraHeightMM); every other die is drawn as
// without it.
func stillOptions(t testing.TB) scene.StillOptions {
	if o, ok := stillPinholeOptions(t); ok {
		return scene.StillOptions{Pinhole: o}
	}
	v := os.Getenv("DICEWATCH_STILL_CAMERA_H")
	if v == "" {
		return scene.StillOptions{}
	}
	return scene.StillOptions{CameraHeightMM: parseHeightRange(t, v)}
}

// parseHeightRange reads DICEWATCH_STILL_CAMERA_H's value v: a height in
// mm or a range A-B.
func parseHeightRange(t testing.TB, v string) scene.HeightRange {
	a, b, rng := strings.Cut(v, "-")
	lo, err1 := strconv.ParseFloat(a, 64)
	hi := lo
	var err2 error
	if rng {
		hi, err2 = strconv.ParseFloat(b, 64)
	}
	if err1 != nil || err2 != nil || lo < 100 || hi < lo {
		t.Fatalf("DICEWATCH_STILL_CAMERA_H=%q: want a height in mm (100 or more) or a range A-B", v)
	}
	return scene.HeightRange{Min: lo, Max: hi}
}

// readStills reads the stills DICEWATCH_STILL_FIRST.. (DICEWATCH_STILLS
// of them, defaultStills unless set), each calibrated ("cal": the die edge
// known) and not ("plain"), covering the dice under a stacked die first.
// It calls before ahead of each read (to clear what a trace gathers during
// it) and visit with what was read, and returns the first seed and the
// count. DICEWATCH_STILL_MODE=cal (or plain) reads in that mode only.
func readStills(t *testing.T, before func(), visit func(seed int64, mode string, img gocv.Mat, tr scene.StillTruth, dets []Detection)) (first int64, n int) {
	t.Helper()
	return readStillsR(t, before, func(_ *Reader, seed int64, mode string, img gocv.Mat, tr scene.StillTruth, dets []Detection) {
		visit(seed, mode, img, tr, dets)
	})
}

// forEachStill generates the stills first..first+n-1 with opts, marks
// the dice that stacked dice cover (coverByStacked) and gives each to
// visit; the picture is closed when visit returns (or fails the test).
func forEachStill(t *testing.T, first int64, n int, opts scene.StillOptions, visit func(seed int64, img gocv.Mat, tr scene.StillTruth)) {
	t.Helper()
	for seed := first; seed < first+int64(n); seed++ {
		img, tr, err := scene.Still(seed, opts)
		if err != nil {
			t.Fatal(err)
		}
		coverByStacked(tr.Dice)
		func() {
			defer img.Close()
			visit(seed, img, tr)
		}()
	}
}

// readerFrame is the frame r's last read worked on (its pixels, BGR).
func readerFrame(t testing.TB, r *Reader) bgrImage {
	t.Helper()
	pix, err := r.frame.DataPtrUint8()
	if err != nil {
		t.Fatal(err)
	}
	return bgrImage{pix: pix, w: r.frame.Cols(), h: r.frame.Rows()}
}

// readStillsR is readStills that also gives visit the Reader that read
// the still (its frame and scratch as the read left them).
func readStillsR(t *testing.T, before func(), visit func(r *Reader, seed int64, mode string, img gocv.Mat, tr scene.StillTruth, dets []Detection)) (first int64, n int) {
	t.Helper()
	plain := NewReader(ReaderOptions{})
	defer plain.Close()
	// The calibrated read is given what evalStills gives it (the figures'
	// read): the dice's pip spread and the die edge at each place, or
	// with DICEWATCH_STILL_EDGE=nominal the nominal edge only. Before
	// session 19 it had the nominal edge and no pip spread, so the wrong
	// values dumped were not those the calibrated figures count.
	cal := NewReader(ReaderOptions{DiePx: 1, PipSpread: stillPipSpread})
	defer cal.Close()
	localEdge := stillLocalEdge(t)
	n = stillCount(t, defaultStills)
	first = stillFirst(t)
	forEachStill(t, first, n, stillOptions(t), func(seed int64, img gocv.Mat, tr scene.StillTruth) {
		for _, mode := range []string{"cal", "plain"} {
			if only := os.Getenv("DICEWATCH_STILL_MODE"); only != "" && only != mode {
				continue
			}
			r := plain
			if mode == "cal" {
				cal.opts.DiePx, cal.opts.ExpectedEdgePx = tr.EdgePx, nil
				if localEdge {
					cal.opts.ExpectedEdgePx = stillEdgeAt(tr)
				}
				stillPinholeView(tr, &cal.opts)
				r = cal
			}
			before()
			dets, err := r.Read(img)
			if err != nil {
				t.Fatal(err)
			}
			visit(r, seed, mode, img, tr, dets)
		}
	})
	return first, n
}

// TestVetoDump writes, for every detected die in the stills
// DICEWATCH_STILL_FIRST.. (DICEWATCH_STILLS of them), its truth, its read
// and what the veto measured, as tab-separated lines to the file
// DICEWATCH_VETO_DUMP. It is a tuning tool: skipped without that variable.
func TestVetoDump(t *testing.T) {
	f := diagFile(t, "DICEWATCH_VETO_DUMP")
	fmt.Fprintln(f, "seed\tmode\tgroup\tstyle\tbg\ttilt\tedge\ttruth\tread\tconf\tvvalue\tflatness\tsizeRatio\tblobs\tpeaks\tlv\tls\tcover\tdie\ttopv\treason")
	type key struct{ x, y float64 }
	seen := map[key]vetoInfo{}
	vetoTrace = func(d *Detection, vi vetoInfo) { seen[key{d.CX, d.CY}] = vi }
	defer func() { vetoTrace = nil }()
	readStills(t, func() { clear(seen) }, func(seed int64, mode string, img gocv.Mat, tr scene.StillTruth, dets []Detection) {
		for _, p := range matchStill(tr.Dice, dets) {
			g, d := tr.Dice[p[0]], dets[p[1]]
			vi, ok := seen[key{d.CX, d.CY}]
			if !ok && d.Value == 0 {
				continue // no value to veto
			}
			fmt.Fprintf(f, "%d\t%s\t%s\t%s\t%s\t%.1f\t%.1f\t%d\t%d\t%.3f\t%d\t%.3f\t%.3f\t%d\t%d\t%d\t%.2f\t%.3f\t%d\t%d\t%q\n",
				seed, mode, stillGroup(g), g.Style, tr.Background, tr.CameraTiltDeg, tr.EdgePx, g.Value, d.Value, d.Confidence,
				vi.value, d.Flatness, d.SizeRatio, vi.blobs, vi.peaks, vi.lv, vi.ls, coverBy(dets, p[1]), p[0], topValue(tr.Dice, p[0]), vi.reason)
		}
	})
}

// coverBy is the share of detection j's box covered by the other
// detections' boxes (the largest single one).
func coverBy(dets []Detection, j int) float64 {
	b := dets[j].Box
	a := float64(b.Dx() * b.Dy())
	best := 0.0
	for i, o := range dets {
		if i == j || a == 0 {
			continue
		}
		in := b.Intersect(o.Box)
		best = max(best, float64(in.Dx()*in.Dy())/a)
	}
	return best
}

// topValue is the value of a die resting on die i, or 0.
func topValue(dice []scene.StillDie, i int) int {
	for _, d := range dice {
		if d.OnDie == i {
			return d.Value
		}
	}
	return 0
}

// TestVetoBylerHalves prints the byler_d6 value figures of the
// even-indexed and the odd-indexed images (sorted order) apart, to see a
// change's effect on both halves (run it with and without
// DICEWATCH_NO_VETO). It is a measuring tool that only reports, so it
// runs only with DICEWATCH_HALVES set.
func TestVetoBylerHalves(t *testing.T) {
	if os.Getenv("DICEWATCH_HALVES") == "" {
		t.Skip("DICEWATCH_HALVES not set")
	}
	ps := loadPhotoSet(t, "byler_d6")
	r := NewReader(ReaderOptions{})
	defer r.Close()
	for h, name := range []string{"even", "odd"} {
		half := ps
		half.images = nil
		for i, im := range ps.images {
			if i%2 == h {
				half.images = append(half.images, im)
			}
		}
		tl := evalPhotoSet(t, half, r, false)
		t.Logf("byler_d6 %s half: %d images, %d matched; %s", name, len(half.images), tl.matched, tl.valueReport())
	}
}

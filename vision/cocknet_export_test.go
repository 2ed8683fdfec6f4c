package vision

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/vision/scene"
)

// A row of TestCockNetExport is the net's input (grid and scalars), then label (1 cocked), mode (1
// calibrated), group (0 clean, 1 cocked, 2 stacked, 3 under a stack, 4
// blurred, 5 a real photo's die, 6 a detection matching no die), seed,
// die index, the die's tilt, the footprint's flat call (as the net
// saw the die), value, true value, confidence: ten meta columns.
const cockMeta = 10

// TestCockNetExport writes the cocked net's inputs for every detection
// of the generated stills (both modes) and, with
// DICEWATCH_COCK_EXPORT_PHOTOS=1, of the two photo sets, for
// tools/cocknet/train.py:
//
//	DICEWATCH_COCK_EXPORT=/tmp/ck.bin DICEWATCH_STILLS=2000 DICEWATCH_STILL_FIRST=22000 go test -count=1 -run CockNetExport -v -timeout 60m ./vision/
//
// cockSeen is a detection's input to the cocked net and its flat call
// before the net's, as cockLook saw them.
type cockSeen struct {
	x    []float32
	flat bool
}

// readCockInputs reads img with r and returns the detections and, by
// centre, what the cocked net saw of each it ran on. The inputs are taken
// inside Read: rules after cockLook (relativeSize, without a known size)
// change a detection's SizeRatio, and a row rebuilt from the detection
// Read returns is not the net's input.
func readCockInputs(r *Reader, img gocv.Mat) ([]Detection, map[[2]float64]cockSeen, error) {
	seen := map[[2]float64]cockSeen{}
	cockTrace = func(d Detection, x []float32) {
		c := cockSeen{x: slices.Clone(x), flat: d.Flat}
		seen[[2]float64{d.CX, d.CY}] = c
	}
	defer func() { cockTrace = nil }()
	dets, err := r.Read(img)
	return dets, seen, err
}

func TestCockNetExport(t *testing.T) {
	b2f := func(b bool) float32 {
		if b {
			return 1
		}
		return 0
	}
	f := diagFile(t, "DICEWATCH_COCK_EXPORT")
	w := bufio.NewWriter(f)
	defer w.Flush()
	put := func(seen map[[2]float64]cockSeen, d Detection, meta [cockMeta]float32) {
		c, ok := seen[[2]float64{d.CX, d.CY}]
		if !ok {
			return // the net did not run on it
		}
		meta[6] = b2f(c.flat)
		if err := binary.Write(w, binary.LittleEndian, c.x); err != nil {
			t.Fatal(err)
		}
		if err := binary.Write(w, binary.LittleEndian, meta[:]); err != nil {
			t.Fatal(err)
		}
	}
	var cur map[[2]float64]cockSeen
	if os.Getenv("DICEWATCH_COCK_EXPORT_PHOTOS") == "1" {
		for _, set := range []string{"byler_d6", "matteo_webcam"} {
			ps := loadPhotoSet(t, set)
			r := NewReader(ReaderOptions{})
			for _, name := range ps.images {
				img := gocv.IMRead(filepath.Join(photoRoot, ps.name, "images", name), gocv.IMReadColor)
				dets, seen, err := readCockInputs(r, img)
				if err != nil {
					t.Fatal(err)
				}
				for _, d := range dets {
					put(seen, d, [cockMeta]float32{0, 0, 5, 0, 0, 0, b2f(d.Flat), float32(d.Value), 0, float32(d.Confidence)})
				}
				img.Close()
			}
			r.Close()
		}
	}
	cockExportStills(t, func(r *Reader, img gocv.Mat) ([]Detection, error) {
		dets, seen, err := readCockInputs(r, img)
		cur = seen
		return dets, err
	}, func(d Detection, meta [cockMeta]float32) {
		put(cur, d, meta)
	})
}

// cockExportStills reads stills DICEWATCH_STILL_FIRST onwards
// (DICEWATCH_STILLS of them) in both modes with read, matches each
// detection to the truth as the stills harness does, and gives each to
// row with its meta columns (the flat column the final call's: row may
// put the one the net saw).
func cockExportStills(t *testing.T, read func(r *Reader, img gocv.Mat) ([]Detection, error), row func(d Detection, meta [cockMeta]float32)) {
	b2f := func(b bool) float32 {
		if b {
			return 1
		}
		return 0
	}
	n := stillCount(t, 0)
	plain := NewReader(ReaderOptions{})
	defer plain.Close()
	cal := NewReader(ReaderOptions{DiePx: 1, PipSpread: stillPipSpread})
	defer cal.Close()
	groupCode := map[string]float32{"clean": 0, "cocked": 1, "stacked": 2, "under-stack": 3, "blurred": 4}
	// DICEWATCH_COCK_EXPORT_TILTS=PATH: each still's camera tilt, one
	// "seed tilt" line each (train.py --tilts).
	var tilts *os.File
	if p := os.Getenv("DICEWATCH_COCK_EXPORT_TILTS"); p != "" {
		var err error
		if tilts, err = os.Create(p); err != nil {
			t.Fatal(err)
		}
		defer tilts.Close()
	}
	// DICEWATCH_COCK_EXPORT_VIEW=1: the calibrated read only, as a table
	// calibration with a known view reads (the stills harness's
	// DICEWATCH_STILL_VIEW=tilt): the die edge at each place
	// (stillEdgeAt) and the camera's tilt (ReaderOptions.ViewTiltDeg),
	// the rows a net for a known view (cockTiltNet) learns from. Without
	// it both modes, the calibrated one with the nominal edge alone and no
	// view, as the shipped nets' rows were read.
	// The rows are read with the nets that take no view (cockTiltOff),
	// as the tilt nets' rows were before there were tilt nets: with
	// them, earlyCockLook's calls and so the later looks' reads differ.
	viewRows := os.Getenv("DICEWATCH_COCK_EXPORT_VIEW") == "1"
	modes := []bool{true, false}
	if viewRows {
		modes = []bool{true}
		cockTiltOff = true
		defer func() { cockTiltOff = false }()
	}
	for seed := stillFirst(t); seed < stillFirst(t)+int64(n); seed++ {
		img, tr, err := scene.Still(seed, scene.StillOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if tilts != nil {
			fmt.Fprintf(tilts, "%d %.6f\n", seed, tr.CameraTiltDeg)
		}
		coverByStacked(tr.Dice)
		for _, calib := range modes {
			r := plain
			if calib {
				cal.opts.DiePx = tr.EdgePx
				if viewRows {
					tilt := tr.CameraTiltDeg
					cal.opts.ExpectedEdgePx = stillEdgeAt(tr)
					cal.opts.ViewTiltDeg = func(x, y float64) float64 { return tilt }
				}
				r = cal
			}
			dets, err := read(r, img)
			if err != nil {
				t.Fatal(err)
			}
			of := make([]int, len(dets))
			for i := range of {
				of[i] = -1
			}
			for _, p := range matchStill(tr.Dice, dets) {
				of[p[1]] = p[0]
			}
			for j, d := range dets {
				meta := [cockMeta]float32{0, b2f(calib), 6, float32(seed), -1, 0, b2f(d.Flat), float32(d.Value), 0, float32(d.Confidence)}
				if i := of[j]; i >= 0 {
					g := tr.Dice[i]
					grp := groupCode[stillGroup(g)]
					meta[0] = b2f(grp == 1)
					meta[2], meta[4], meta[5], meta[8] = grp, float32(i), float32(g.TiltDeg), float32(g.Value)
				}
				row(d, meta)
			}
		}
		img.Close()
	}
}

// TestCockExportInputs: the export's rows are the net's inputs in Read.
// On uncalibrated stills the net's output on each row must be the die's
// cockP; a row rebuilt from the detection Read returns (as the export
// did) is not, for dice relativeSize sized after the net ran.
func TestCockExportInputs(t *testing.T) {
	if testing.Short() {
		t.Skip("reads generated stills")
	}
	n, err := builtinCockNet()
	if err != nil {
		t.Fatal(err)
	}
	r := NewReader(ReaderOptions{})
	defer r.Close()
	var sc cockScratch
	checked, rebuiltOff := 0, 0
	for seed := int64(0); seed < 6; seed++ {
		img, _, err := scene.Still(seed, scene.StillOptions{})
		if err != nil {
			t.Fatal(err)
		}
		dets, seen, err := readCockInputs(r, img)
		img.Close()
		if err != nil {
			t.Fatal(err)
		}
		fr := readerFrame(t, r)
		for _, d := range dets {
			c, ok := seen[[2]float64{d.CX, d.CY}]
			if !ok {
				continue
			}
			checked++
			if p := sc.forwardAll(n, c.x); math.Abs(p-d.cockP) > 1e-9 {
				t.Errorf("still %d die at %.0f,%.0f: net on the exported row %.4f, in Read %.4f", seed, d.CX, d.CY, p, d.cockP)
			}
			in := n[0].in()
			y := make([]float32, in+cockExtra)
			sc.cockInput(n[0].cockShape, fr, d.CX, d.CY, r.cockEdge(d), y[:in])
			y[in], y[in+1] = cockScalars(d)
			if p := sc.forwardAll(n, y); math.Abs(p-d.cockP) > 1e-6 {
				rebuiltOff++
			}
		}
	}
	if checked == 0 {
		t.Fatal("the net ran on no detection")
	}
	t.Logf("%d detections; a row rebuilt after Read is off for %d", checked, rebuiltOff)
}

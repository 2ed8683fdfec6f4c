package vision

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/vision/scene"
)

// TestDetectionDump writes every detection (box, pip box, centre, value,
// confidence, flatness, size ratio, edge) the reader makes on both photo
// sets and on generated stills (calibrated and not) to the file named by
// DICEWATCH_DETDUMP, one line per detection at full float precision, so
// that two versions of the reader can be diffed for a change meant to be
// bit-identical. DICEWATCH_DETDUMP_STILLS sets the still count (80).
// The stills are read plain, calibrated with the nominal edge (cal), as
// the stills harness reads them by default (edge: the edge at each place
// and the dice's pip spread, evalStills), as it reads them with
// DICEWATCH_STILL_VIEW=tilt (tilt: edge with the camera's tilt and
// stillViewUp) and with a view that varies over the picture (nadir:
// edge with dumpNadirTilt, no ViewUp), which the stills' one tilt per
// picture never gives (sidesFrom's view rule).
func TestDetectionDump(t *testing.T) {
	path := os.Getenv("DICEWATCH_DETDUMP")
	if path == "" {
		t.Skip("set DICEWATCH_DETDUMP=file to dump every detection")
	}
	n := 80
	if v := os.Getenv("DICEWATCH_DETDUMP_STILLS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	defer w.Flush()
	put := func(tag string, dets []Detection) {
		fmt.Fprintf(w, "%s %d\n%s", tag, len(dets), detLines(dets))
	}
	r := NewReader(ReaderOptions{})
	defer r.Close()
	for _, set := range []string{"byler_d6", "matteo_webcam"} {
		ps := loadPhotoSet(t, set)
		for _, name := range ps.images {
			img := gocv.IMRead(filepath.Join(photoRoot, set, "images", name), gocv.IMReadColor)
			dets, err := r.Read(img)
			img.Close()
			if err != nil {
				t.Fatal(err)
			}
			put(set+"/"+name, dets)
		}
	}
	cal := NewReader(ReaderOptions{DiePx: 1})
	defer cal.Close()
	loc := NewReader(ReaderOptions{DiePx: 1, PipSpread: stillPipSpread})
	defer loc.Close()
	view := NewReader(ReaderOptions{DiePx: 1, PipSpread: stillPipSpread})
	defer view.Close()
	for seed := int64(0); seed < int64(n); seed++ {
		img, tr, err := scene.Still(seed, scene.StillOptions{})
		if err != nil {
			t.Fatal(err)
		}
		dets, err := r.Read(img)
		if err != nil {
			t.Fatal(err)
		}
		put(fmt.Sprintf("still%d/plain", seed), dets)
		cal.opts.DiePx = tr.EdgePx
		dets, err = cal.Read(img)
		if err != nil {
			t.Fatal(err)
		}
		put(fmt.Sprintf("still%d/cal", seed), dets)
		loc.opts.DiePx, loc.opts.ExpectedEdgePx = tr.EdgePx, stillEdgeAt(tr)
		dets, err = loc.Read(img)
		if err != nil {
			t.Fatal(err)
		}
		put(fmt.Sprintf("still%d/edge", seed), dets)
		tilt := tr.CameraTiltDeg
		view.opts.DiePx, view.opts.ExpectedEdgePx = tr.EdgePx, stillEdgeAt(tr)
		view.opts.ViewTiltDeg = func(x, y float64) float64 { return tilt }
		view.opts.ViewUp = stillViewUp(tr)
		dets, err = view.Read(img)
		if err != nil {
			t.Fatal(err)
		}
		put(fmt.Sprintf("still%d/tilt", seed), dets)
		view.opts.ViewTiltDeg = dumpNadirTilt(img.Cols(), img.Rows())
		view.opts.ViewUp = nil
		dets, err = view.Read(img)
		img.Close()
		if err != nil {
			t.Fatal(err)
		}
		put(fmt.Sprintf("still%d/nadir", seed), dets)
	}
}

// dumpNadirTilt is a view that varies over a w by h picture as a
// pinhole camera's does: the angle off vertical to a point r pixels from
// the nadir (a little above the picture's top, at its middle) is
// atan(r/height), the camera 2w pixels above the table. Over a die edge
// of 40 pixels it changes by about 0.5 to 0.9 degrees, past
// minViewSlope.
func dumpNadirTilt(w, h int) func(x, y float64) float64 {
	nx, ny, height := float64(w)/2, -0.3*float64(h), 2*float64(w)
	return func(x, y float64) float64 {
		return math.Atan(math.Hypot(x-nx, y-ny)/height) * 180 / math.Pi
	}
}

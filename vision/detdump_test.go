package vision

import (
	"bufio"
	"fmt"
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
// The stills are read plain, calibrated with the nominal edge (cal) and
// as the stills harness reads them by default (edge: the edge at each
// place and the dice's pip spread, evalStills).
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
		img.Close()
		if err != nil {
			t.Fatal(err)
		}
		put(fmt.Sprintf("still%d/edge", seed), dets)
	}
}

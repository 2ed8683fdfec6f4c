package vision

import (
	"crypto/sha256"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/vision/scene"
)

// TestOrderDiag reads stills (DICEWATCH_ORDER_DIAG_FIRST..+N, both
// modes, the harness's options) and both photo sets with one Reader in
// order and with a fresh Reader for each, and reports every image whose
// detections differ. Diagnostic: runs only with DICEWATCH_ORDER_DIAG.
func TestOrderDiag(t *testing.T) {
	what := os.Getenv("DICEWATCH_ORDER_DIAG")
	if what == "" {
		t.Skip("DICEWATCH_ORDER_DIAG not set")
	}
	first, _ := strconv.Atoi(os.Getenv("DICEWATCH_ORDER_DIAG_FIRST"))
	n := 200
	if v := os.Getenv("DICEWATCH_ORDER_DIAG_N"); v != "" {
		n, _ = strconv.Atoi(v)
	}
	diffs := 0
	report := func(tag, a, b string) {
		if a != b {
			diffs++
			t.Logf("%s differs:\nshared:\n%sfresh:\n%s", tag, a, b)
		}
	}
	if strings.Contains(what, "stills") {
		plain := NewReader(ReaderOptions{})
		defer plain.Close()
		// DICEWATCH_ORDER_DIAG_OPTS=nominal: readStillsR's calibrated
		// options (the nominal edge, no pip spread).
		nominal := os.Getenv("DICEWATCH_ORDER_DIAG_OPTS") == "nominal"
		spread := stillPipSpread
		if nominal {
			spread = 0
		}
		cal := NewReader(ReaderOptions{DiePx: 1, PipSpread: spread})
		if os.Getenv("DICEWATCH_ORDER_DIAG_ZERO") != "" {
			// Built without a size, the size set for each still.
			cal.Close()
			cal = NewReader(ReaderOptions{PipSpread: spread})
		}
		defer cal.Close()
		only := os.Getenv("DICEWATCH_STILL_MODE")
		// DICEWATCH_ORDER_DIAG_HASH=file: each still's picture and
		// detections hashed, to compare runs over different ranges.
		var hashes *os.File
		if p := os.Getenv("DICEWATCH_ORDER_DIAG_HASH"); p != "" {
			var err error
			if hashes, err = os.Create(p); err != nil {
				t.Fatal(err)
			}
			defer hashes.Close()
		}
		for seed := int64(first); seed < int64(first+n); seed++ {
			img, tr, err := scene.Still(seed, scene.StillOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, mode := range []string{"cal", "plain"} {
				if only != "" && only != mode {
					continue
				}
				r := plain
				opts := ReaderOptions{}
				if mode == "cal" {
					opts = ReaderOptions{DiePx: tr.EdgePx, PipSpread: spread}
					if !nominal {
						opts.ExpectedEdgePx = stillEdgeAt(tr)
					}
					cal.opts.DiePx = tr.EdgePx
					cal.opts.ExpectedEdgePx = opts.ExpectedEdgePx
					r = cal
				}
				d1, err := r.Read(img)
				if err != nil {
					t.Fatal(err)
				}
				fr := NewReader(opts)
				d2, err := fr.Read(img)
				fr.Close()
				if err != nil {
					t.Fatal(err)
				}
				report(fmt.Sprintf("still %d %s", seed, mode), detLines(d1), detLines(d2))
				if hashes != nil {
					b := img.ToBytes()
					fmt.Fprintf(hashes, "%d %s img %x dets %x\n", seed, mode, sha256.Sum256(b), sha256.Sum256([]byte(detLines(d1))))
				}
			}
			img.Close()
		}
	}
	if strings.Contains(what, "photos") {
		// Read with one Reader in order, in reverse, through ReadFile
		// (dicewatch read's path), each against a fresh Reader; byler
		// with the fold net that never saw the image, as
		// TestAccuracyPhotos reads it.
		r := NewReader(ReaderOptions{})
		defer r.Close()
		rf := NewReader(ReaderOptions{})
		defer rf.Close()
		shipped := r.net
		for _, set := range []string{"byler_d6", "matteo_webcam"} {
			ps := loadPhotoSet(t, set)
			netOf := heldOutNets(t, set, r)
			fresh := map[string]string{}
			read := func(rd *Reader, name string, file bool) string {
				rd.net = shipped
				if netOf != nil {
					rd.net = netOf[name]
				}
				path := filepath.Join(photoRoot, set, "images", name)
				var dets []Detection
				var err error
				if file {
					dets, err = rd.ReadFile(path)
				} else {
					img := gocv.IMRead(path, gocv.IMReadColor)
					dets, err = rd.Read(img)
					img.Close()
				}
				if err != nil {
					t.Fatal(err)
				}
				return detLines(dets)
			}
			for _, name := range ps.images {
				fr := NewReader(ReaderOptions{})
				fresh[name] = read(fr, name, false)
				fr.Close()
				report(set+"/"+name+" in order", read(r, name, false), fresh[name])
				report(set+"/"+name+" ReadFile", read(rf, name, true), fresh[name])
			}
			for i := len(ps.images) - 1; i >= 0; i-- {
				name := ps.images[i]
				report(set+"/"+name+" reversed", read(r, name, false), fresh[name])
			}
		}
	}
	if strings.Contains(what, "regions") {
		// The daemon's reads: regions around each die (as readAtRest
		// pads them), calibrated with the edge at each place and the
		// camera's tilt, one Reader against a fresh one per region.
		r := NewReader(ReaderOptions{DiePx: 1, PipSpread: stillPipSpread})
		defer r.Close()
		for seed := int64(first); seed < int64(first+n); seed++ {
			img, tr, err := scene.Still(seed, scene.StillOptions{})
			if err != nil {
				t.Fatal(err)
			}
			tilt := tr.CameraTiltDeg
			opts := ReaderOptions{DiePx: tr.EdgePx, PipSpread: stillPipSpread, ExpectedEdgePx: stillEdgeAt(tr),
				ViewTiltDeg: func(x, y float64) float64 { return tilt }}
			r.opts.DiePx, r.opts.ExpectedEdgePx, r.opts.ViewTiltDeg = opts.DiePx, opts.ExpectedEdgePx, opts.ViewTiltDeg
			for i, g := range tr.Dice {
				pad := int(1.5 * tr.EdgePx)
				roi := image.Rect(g.Box[0], g.Box[1], g.Box[2], g.Box[3]).Inset(-pad)
				d1, err1 := r.ReadRegion(img, roi)
				fr := NewReader(opts)
				d2, err2 := fr.ReadRegion(img, roi)
				fr.Close()
				if (err1 == nil) != (err2 == nil) {
					t.Fatalf("still %d die %d: errors %v, %v", seed, i, err1, err2)
				}
				report(fmt.Sprintf("still %d die %d region %v", seed, i, roi), detLines(d1), detLines(d2))
			}
			img.Close()
		}
	}
	if strings.Contains(what, "show") {
		// The detections of still FIRST, calibrated, read alone with
		// each option set the harnesses have used, and its truth.
		img, tr, err := scene.Still(int64(first), scene.StillOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer img.Close()
		for i, g := range tr.Dice {
			t.Logf("truth die %d value %d box %v group %s", i, g.Value, g.Box, stillGroup(g))
		}
		for _, o := range []struct {
			name string
			opts ReaderOptions
		}{
			{"nominal edge", ReaderOptions{DiePx: tr.EdgePx}},
			{"nominal edge, pip spread", ReaderOptions{DiePx: tr.EdgePx, PipSpread: stillPipSpread}},
			{"edge at each place, pip spread", ReaderOptions{DiePx: tr.EdgePx, PipSpread: stillPipSpread, ExpectedEdgePx: stillEdgeAt(tr)}},
		} {
			r := NewReader(o.opts)
			dets, err := r.Read(img)
			r.Close()
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s:\n%s", o.name, detLines(dets))
		}
	}
	t.Logf("%d images differ", diffs)
}

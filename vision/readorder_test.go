package vision

import (
	"fmt"
	"image"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dicewatch/dicewatch/vision/scene"
)

// orderJob is one read of TestReadOrderIndependent: the options it is read
// with and the read itself on a Reader that has them.
type orderJob struct {
	name string
	opts ReaderOptions
	cal  bool // read by the calibrated Reader (else the plain one)
	read func(r *Reader) ([]Detection, error)
}

// TestReadOrderIndependent reads generated stills (uncalibrated;
// calibrated with the edge at each place, as the stills harness does;
// with the camera's tilt too; and regions around dice, as the daemon reads
// a frame at rest) and photos of both sets (through ReadFile, as
// dicewatch read does) three ways: each with a fresh Reader; in order with
// a plain and a calibrated Reader, as the stills harnesses read; and in
// reverse order with one Reader for every job, its options set for each.
// It requires the same detections all three ways, bit for bit (box, pip
// box, centre, value, confidence, flat call and flatness, size ratio,
// edge): a read must depend only on its own image and options, never on
// what the Reader read before or the options it was built with (its
// scratch Mats, maps and last-read fields are kept between reads for
// speed).
func TestReadOrderIndependent(t *testing.T) {
	var jobs []orderJob
	for _, seed := range readOrderStills {
		img, tr, err := scene.Still(seed, scene.StillOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer img.Close()
		read := func(r *Reader) ([]Detection, error) { return r.Read(img) }
		cal := ReaderOptions{DiePx: tr.EdgePx, PipSpread: stillPipSpread, ExpectedEdgePx: stillEdgeAt(tr)}
		tilt := tr.CameraTiltDeg
		tilted := cal
		tilted.ViewTiltDeg = func(x, y float64) float64 { return tilt }
		jobs = append(jobs,
			orderJob{fmt.Sprintf("still %d plain", seed), ReaderOptions{}, false, read},
			orderJob{fmt.Sprintf("still %d calibrated", seed), cal, true, read},
			orderJob{fmt.Sprintf("still %d calibrated, tilt", seed), tilted, true, read})
		// A region around each of two dice, padded as readAtRest pads
		// them.
		for i := 0; i < min(2, len(tr.Dice)); i++ {
			g := tr.Dice[i]
			roi := image.Rect(g.Box[0], g.Box[1], g.Box[2], g.Box[3]).Inset(-int(1.5 * tr.EdgePx))
			jobs = append(jobs, orderJob{fmt.Sprintf("still %d region %v", seed, roi), tilted, true,
				func(r *Reader) ([]Detection, error) { return r.ReadRegion(img, roi) }})
		}
	}
	for _, p := range readOrderPhotos {
		path := filepath.Join(photoRoot, p)
		jobs = append(jobs, orderJob{p, ReaderOptions{}, false, func(r *Reader) ([]Detection, error) { return r.ReadFile(path) }})
	}

	fresh := make([]string, len(jobs))
	for i, j := range jobs {
		r := NewReader(j.opts)
		fresh[i] = orderRead(t, r, j)
		r.Close()
	}
	// pass reads the jobs in the order given, each with one Reader
	// (built with the options given) whose options are set for the job
	// as the stills harnesses set them; with two, plain jobs go to a
	// plain Reader, as in the harnesses.
	pass := func(order []int, how string, two bool) {
		one := NewReader(ReaderOptions{})
		defer one.Close()
		cal := NewReader(ReaderOptions{DiePx: 1, PipSpread: stillPipSpread})
		defer cal.Close()
		for _, i := range order {
			j := jobs[i]
			r := one
			if two && j.cal {
				r = cal
			}
			if !two || j.cal {
				r.opts.DiePx, r.opts.ExpectedEdgePx, r.opts.ViewTiltDeg, r.opts.PipSpread = j.opts.DiePx, j.opts.ExpectedEdgePx, j.opts.ViewTiltDeg, j.opts.PipSpread
			}
			if got := orderRead(t, r, j); got != fresh[i] {
				t.Errorf("%s, read %s: not as a fresh Reader reads it\nfresh:\n%sread %s:\n%s", j.name, how, fresh[i], how, got)
			}
		}
	}
	fwd, rev := make([]int, len(jobs)), make([]int, len(jobs))
	for i := range jobs {
		fwd[i], rev[i] = i, len(jobs)-1-i
	}
	pass(fwd, "in order, a plain and a calibrated Reader", true)
	pass(rev, "in reverse order, one Reader for every job", false)
}

// readOrderStills and readOrderPhotos are TestReadOrderIndependent's
// images. On still 267, calibrated, the colour cluster look (which runs
// only without a known die size) reads a blurred 5 a fresh calibrated
// Reader leaves unread: a Reader made without a size and given one for
// the picture read it so until each read took the size from its options.
var (
	readOrderStills = []int64{0, 1, 2, 3, 4, 5, 6, 7, 267}
	readOrderPhotos = []string{
		"byler_d6/images/IMG_20191208_111228.jpg", "byler_d6/images/IMG_20191208_111246.jpg",
		"matteo_webcam/images/dice_1.jpg", "matteo_webcam/images/dice_10.jpg",
	}
)

// orderRead is job j read by r, its detections as text at full
// precision (detLines).
func orderRead(t *testing.T, r *Reader, j orderJob) string {
	t.Helper()
	dets, err := j.read(r)
	if err != nil {
		t.Fatalf("%s: %v", j.name, err)
	}
	return detLines(dets)
}

// detLines formats detections at full precision, one line each (as
// TestDetectionDump writes them).
func detLines(dets []Detection) string {
	var b strings.Builder
	for _, d := range dets {
		fmt.Fprintf(&b, "  %v %v %s %s v%d c%s f%v %s r%s e%s\n", d.Box, d.PipBox,
			strconv.FormatFloat(d.CX, 'g', -1, 64), strconv.FormatFloat(d.CY, 'g', -1, 64),
			d.Value, strconv.FormatFloat(d.Confidence, 'g', -1, 64), d.Flat,
			strconv.FormatFloat(d.Flatness, 'g', -1, 64), strconv.FormatFloat(d.SizeRatio, 'g', -1, 64),
			strconv.FormatFloat(d.EdgePx, 'g', -1, 64))
	}
	return b.String()
}

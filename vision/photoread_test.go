package vision

import (
	"os"
	"path/filepath"
	"testing"

	"gocv.io/x/gocv"
)

// readPhotos reads every image of ps with r, in the set's order, as
// TestAccuracyPhotos reads them: byler_d6's each with the fold net that
// never saw it (heldOutNets), r's own net put back at the end. before,
// when not nil, is called ahead of each read (to clear what a trace
// gathers); each gets the image's index and name, the image (closed when
// each returns) and what Read found. An image that cannot be read, or an
// error from Read, is fatal.
func readPhotos(t testing.TB, ps photoSet, r *Reader, before func(name string), each func(i int, name string, img gocv.Mat, dets []Detection)) {
	t.Helper()
	netOf := heldOutNets(t, ps.name, r)
	defer func(n *faceNet) { r.net = n }(r.net)
	for i, name := range ps.images {
		if netOf != nil {
			// The shipped face net learnt from every image of this
			// set: each is read with the fold net that never saw it.
			r.net = netOf[name]
		}
		func() {
			img := gocv.IMRead(filepath.Join(photoRoot, ps.name, "images", name), gocv.IMReadColor)
			defer img.Close()
			if img.Empty() {
				t.Fatalf("%s/%s: cannot read", ps.name, name)
			}
			if before != nil {
				before(name)
			}
			dets, err := r.Read(img)
			if err != nil {
				t.Fatalf("%s/%s: %v", ps.name, name, err)
			}
			each(i, name, img, dets)
		}()
	}
}

// readPhoto reads one image of ps with r as it stands (its own net) and
// returns what Read found; an image that cannot be read, or an error
// from Read, is fatal.
func readPhoto(t testing.TB, r *Reader, ps photoSet, name string) []Detection {
	t.Helper()
	img := gocv.IMRead(filepath.Join(photoRoot, ps.name, "images", name), gocv.IMReadColor)
	defer img.Close()
	if img.Empty() {
		t.Fatalf("%s/%s: cannot read", ps.name, name)
	}
	dets, err := r.Read(img)
	if err != nil {
		t.Fatalf("%s/%s: %v", ps.name, name, err)
	}
	return dets
}

// diagFile creates the file the environment variable env names, for a
// diagnosis test's lines, closed when the test ends; with env unset the
// test is skipped.
func diagFile(t *testing.T, env string) *os.File {
	t.Helper()
	path := os.Getenv(env)
	if path == "" {
		t.Skip(env + " not set")
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// diagDirFile makes the directory the environment variable env names
// and creates the file name in it, closed when the test ends; it skips
// the test without env. For the diagnostics that also write crops there.
func diagDirFile(t *testing.T, env, name string) (string, *os.File) {
	t.Helper()
	dir := os.Getenv(env)
	if dir == "" {
		t.Skip(env + " not set")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return dir, f
}

// readTraced is what a read traced (readTrace) of a detection: the face
// value the first look settled on and whether its face was shrunk.
type readTraced struct {
	fv     faceValue
	shrunk bool
}

// traceReads points readTrace at a map, returned, of what each read
// traced, keyed by the detection's centre; the func returned unsets
// readTrace.
func traceReads() (map[[2]float64]readTraced, func()) {
	seen := map[[2]float64]readTraced{}
	readTrace = func(d *Detection, fv faceValue, shrunk bool) { seen[[2]float64{d.CX, d.CY}] = readTraced{fv, shrunk} }
	return seen, func() { readTrace = nil }
}

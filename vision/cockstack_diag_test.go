package vision

import (
	"bufio"
	"fmt"
	"image"
	"math"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/dicewatch/dicewatch/vision/scene"
)

// TestCockStackDiag writes one line per true die of the generated stills
// read calibrated (the nominal edge, as TestAccuracyStills does), for
// studying the flatness and stacking evidence against the truth:
//
//	DICEWATCH_COCKSTACK_DIAG=/tmp/cs.tsv DICEWATCH_STILLS=600 go test -count=1 -run CockStackDiag -v -timeout 60m ./vision/
//
// Columns: seed, camera tilt, group, die tilt, true size ratio, nominal
// edge, the flat die's edge at the die's place (from the generator's
// table-to-picture map), then for the matched detection (or "-"): IoU
// with the top face and with the hull, box width and height, EdgePx,
// SizeRatio, Flatness, Flat, value, true value, the face rectangle's
// width and height and its pip count, and whether the detection is the
// one of the die under it.
func TestCockStackDiag(t *testing.T) {
	f := diagFile(t, "DICEWATCH_COCKSTACK_DIAG")
	n := stillCount(t, 600)
	w := bufio.NewWriter(f)
	defer w.Flush()
	type tr struct{ fw, fh, blobs, ls, lmaj, lmin, lang, ox, oy, lv float64 }
	seen := map[[2]float64]tr{}
	var blobCX, blobCY float64
	candTrace = func(blob image.Rectangle, fv faceValue, shrunk bool) {
		blobCX, blobCY = float64(blob.Min.X+blob.Max.X)/2, float64(blob.Min.Y+blob.Max.Y)/2
	}
	defer func() { candTrace = nil }()
	readTrace = func(d *Detection, fv faceValue, shrunk bool) {
		if fv.lat.cx == 0 {
			blobCX, blobCY = math.NaN(), math.NaN()
		}
		seen[[2]float64{d.CX, d.CY}] = tr{fv.c.w, fv.c.h, float64(fv.blobs), fv.lat.scale, fv.lat.major, fv.lat.minor, math.Remainder(fv.lat.minorAng+fv.c.angle, math.Pi), blobCX - fv.lat.cx, blobCY - fv.lat.cy, float64(fv.lv)}
	}
	defer func() { readTrace = nil }()
	cal := NewReader(ReaderOptions{DiePx: 1, PipSpread: stillPipSpread})
	defer cal.Close()
	fmt.Fprintln(w, "seed\tcam\tgroup\ttilt\ttsr\tnom\tlocal\tiouTop\tiouHull\tbw\tbh\tedge\tsr\tflatness\tflat\tval\ttval\tfw\tfh\tblobs\tls\tlmaj\tlmin\tlang\tox\toy\tlv")
	for seed := int64(0); seed < int64(n); seed++ {
		img, truth, err := scene.Still(seed, scene.StillOptions{})
		if err != nil {
			t.Fatal(err)
		}
		coverByStacked(truth.Dice)
		cal.opts.DiePx = truth.EdgePx
		clear(seen)
		dets, err := cal.Read(img)
		img.Close()
		if err != nil {
			t.Fatal(err)
		}
		loc := stillEdgeAt(truth)
		pairs := matchStill(truth.Dice, dets)
		m := map[int]int{}
		for _, p := range pairs {
			m[p[0]] = p[1]
		}
		for i, g := range truth.Dice {
			line := fmt.Sprintf("%d\t%.1f\t%s\t%.1f\t%.3f\t%.1f\t%.2f", seed, truth.CameraTiltDeg, stillGroup(g), g.TiltDeg, g.SizeRatio, truth.EdgePx, loc(g.CX, g.CY))
			j, ok := m[i]
			if !ok {
				fmt.Fprintln(w, line+"\t-")
				continue
			}
			d := dets[j]
			top := [4]float64{float64(g.Box[0]), float64(g.Box[1]), float64(g.Box[2]), float64(g.Box[3])}
			hull := [4]float64{float64(g.Hull[0]), float64(g.Hull[1]), float64(g.Hull[2]), float64(g.Hull[3])}
			tc := seen[[2]float64{d.CX, d.CY}]
			fmt.Fprintf(w, "%s\t%.2f\t%.2f\t%d\t%d\t%.2f\t%.3f\t%.3f\t%v\t%d\t%d\t%.2f\t%.2f\t%.0f\t%.2f\t%.2f\t%.2f\t%.3f\t%.2f\t%.2f\t%.0f\n", line, iou(top, d.Box), iou(hull, d.Box),
				d.Box.Dx(), d.Box.Dy(), d.EdgePx, d.SizeRatio, d.Flatness, d.Flat, d.Value, g.Value, tc.fw, tc.fh, tc.blobs, tc.ls, tc.lmaj, tc.lmin, tc.lang, tc.ox, tc.oy, tc.lv)
		}
	}
	t.Logf("wrote %s", f.Name())
}

// stillEdgeAt returns the edge in pixels of a flat die at an image point
// of a generated still, from its truth: the generator maps the table to
// the picture through a homography fixed by the nominal edge and the
// camera's tilt (vision/scene/still.go), and draws a die at the scale of
// that map's x direction at the die's place. A table calibration knows
// the same map.
func stillEdgeAt(tr scene.StillTruth) func(x, y float64) float64 {
	if tr.FocalPx > 0 {
		return stillPinholeEdgeAt(tr) // a pinhole still: its calibration's
	}
	const edgeMM = 19.0
	pxmm := tr.EdgePx / edgeMM
	spanX, spanY := float64(tr.Width)/pxmm, float64(tr.Height)/pxmm
	k := math.Tan(tr.CameraTiltDeg*math.Pi/180) * 0.5
	src := [4][2]float64{{-spanX / 2 * (1 + k), -spanY / 2}, {spanX / 2 * (1 + k), -spanY / 2}, {spanX / 2 * (1 - k/2), spanY / 2}, {-spanX / 2 * (1 - k/2), spanY / 2}}
	w, h := float64(tr.Width), float64(tr.Height)
	dst := [4][2]float64{{0, 0}, {w, 0}, {w, h}, {0, h}}
	toImg := solveH4(src, dst)
	toTab := solveH4(dst, src)
	ap := func(m [9]float64, x, y float64) (float64, float64) {
		z := m[6]*x + m[7]*y + m[8]
		return (m[0]*x + m[1]*y + m[2]) / z, (m[3]*x + m[4]*y + m[5]) / z
	}
	return func(x, y float64) float64 {
		tx, ty := ap(toTab, x, y)
		x0, y0 := ap(toImg, tx-1, ty)
		x1, y1 := ap(toImg, tx+1, ty)
		return math.Hypot(x1-x0, y1-y0) / 2 * edgeMM
	}
}

// solveH4 solves the homography (h[8] = 1) taking src[i] to dst[i].
func solveH4(src, dst [4][2]float64) [9]float64 {
	var a [8][9]float64
	for i := 0; i < 4; i++ {
		x, y, u, v := src[i][0], src[i][1], dst[i][0], dst[i][1]
		a[2*i] = [9]float64{x, y, 1, 0, 0, 0, -u * x, -u * y, u}
		a[2*i+1] = [9]float64{0, 0, 0, x, y, 1, -v * x, -v * y, v}
	}
	for c := 0; c < 8; c++ {
		p := c
		for r := c + 1; r < 8; r++ {
			if math.Abs(a[r][c]) > math.Abs(a[p][c]) {
				p = r
			}
		}
		a[c], a[p] = a[p], a[c]
		for r := 0; r < 8; r++ {
			if r == c || a[c][c] == 0 {
				continue
			}
			q := a[r][c] / a[c][c]
			for k := c; k < 9; k++ {
				a[r][k] -= q * a[c][k]
			}
		}
	}
	var h [9]float64
	for i := 0; i < 8; i++ {
		h[i] = a[i][8] / a[i][i]
	}
	h[8] = 1
	return h
}

// TestCockStackPhotoDiag prints, for the real photo sets, how the pip
// lattice of the detected dice (all flat on a tray) measures: its
// aspect (minor over major reach) and its reach over the face edge.
//
//	DICEWATCH_COCKSTACK_PHOTOS=1 go test -count=1 -run CockStackPhotoDiag -v ./vision/
func TestCockStackPhotoDiag(t *testing.T) {
	if os.Getenv("DICEWATCH_COCKSTACK_PHOTOS") == "" {
		t.Skip("DICEWATCH_COCKSTACK_PHOTOS not set")
	}
	var asp, rel, rels []float64
	var aspV [7][]float64
	readTrace = func(d *Detection, fv faceValue, shrunk bool) {
		if d.Value == 0 || fv.lat.scale == 0 {
			return
		}
		rels = append(rels, fv.lat.scale/d.EdgePx)
		if fv.lat.major > 0 {
			asp = append(asp, fv.lat.minor/fv.lat.major)
			aspV[d.Value] = append(aspV[d.Value], fv.lat.minor/fv.lat.major)
			rel = append(rel, fv.lat.major/d.EdgePx)
		}
	}
	defer func() { readTrace = nil }()
	qs := func(xs []float64) string {
		xs = append([]float64(nil), xs...)
		sort.Float64s(xs)
		if len(xs) == 0 {
			return "-"
		}
		var b strings.Builder
		for _, p := range []float64{0.005, 0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99} {
			fmt.Fprintf(&b, " %.3f", xs[min(len(xs)-1, int(p*float64(len(xs))))])
		}
		return b.String()
	}
	for _, set := range []string{"byler_d6", "matteo_webcam"} {
		asp, rel, rels = asp[:0], rel[:0], rels[:0]
		ps := loadPhotoSet(t, set)
		r := NewReader(ReaderOptions{})
		evalPhotoSet(t, ps, r, set == "matteo_webcam")
		r.Close()
		t.Logf("%s: %d read dice with a lattice, %d with an affine one (quantiles 0.5 1 5 25 50 75 95 99%%)\n minor/major:%s\n major/edge:%s\n scale/edge:%s",
			set, len(rels), len(asp), qs(asp), qs(rel), qs(rels))
		for v := 4; v <= 6; v++ {
			t.Logf("  value %d minor/major:%s", v, qs(aspV[v]))
			aspV[v] = aspV[v][:0]
		}
	}
}

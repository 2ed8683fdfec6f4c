package vision

import (
	"bufio"
	"fmt"
	"image"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/dicewatch/dicewatch/vision/scene"
	"gocv.io/x/gocv"
)

// stillLean names what a generated still's die leans on, from its truth:
// chips, a wall, another die (the generator draws a die cocked against a
// die 1.03 times larger and flags it neither way), or something off the
// picture ("seam"); "-" for a flat die.
func stillLean(g scene.StillDie) string {
	switch {
	case g.Flat:
		return "-"
	case g.TouchesChips:
		return "chips"
	case g.AgainstWall:
		return "wall"
	case math.Abs(g.SizeRatio-1.03) < 0.0005:
		return "die"
	default:
		return "seam"
	}
}

// TestCockDiag writes one line per clean or cocked die of the generated
// stills, read in both modes, for studying the cocked call against the
// truth (tilt, what the die leans on, the side face's width in pixels):
//
//	DICEWATCH_COCK_DIAG=/tmp/cd.tsv DICEWATCH_STILLS=600 DICEWATCH_STILL_FIRST=N go test -count=1 -run CockDiag -v -timeout 60m ./vision/
//
// Columns: seed, mode, camera tilt, group, lean, die tilt, nominal edge,
// the flat die's edge at the die's place, the side face's width
// (sin(tilt) times that edge), the die's offset from the picture's centre
// over its half width and height, then for the matched detection (or
// "-"): the nets' probability, Flat, Flatness, SizeRatio, EdgePx, box
// width and height, value, true value, the face rectangle's sides.
func TestCockDiag(t *testing.T) {
	f := diagFile(t, "DICEWATCH_COCK_DIAG")
	n := stillCount(t, 600)
	w := bufio.NewWriter(f)
	defer w.Flush()
	type rect struct{ fw, fh, bx, by, ang float64 }
	seen := map[[2]float64]rect{}
	var blob image.Rectangle
	candTrace = func(b image.Rectangle, fv faceValue, shrunk bool) { blob = b }
	defer func() { candTrace = nil }()
	readTrace = func(d *Detection, fv faceValue, shrunk bool) {
		seen[[2]float64{d.CX, d.CY}] = rect{fv.c.w, fv.c.h, float64(blob.Min.X+blob.Max.X) / 2, float64(blob.Min.Y+blob.Max.Y) / 2, fv.c.angle}
		blob = image.Rectangle{}
	}
	defer func() { readTrace = nil }()
	bands := map[[2]float64][4]float64{}
	cockTraceFrame = func(d Detection, x []float32, fr bgrImage, off image.Point, edge float64) {
		k := [2]float64{d.CX, d.CY}
		fb, vx, vy := faceBands(fr, d, off, edge, seen[k].ang)
		bands[k] = [4]float64{max(fb[0], fb[1], fb[2], fb[3]), vx, vy, 0}
	}
	defer func() { cockTraceFrame = nil }()
	plain := NewReader(ReaderOptions{})
	defer plain.Close()
	cal := NewReader(ReaderOptions{DiePx: 1, PipSpread: stillPipSpread})
	defer cal.Close()
	fmt.Fprintln(w, "seed\tmode\tcam\tgroup\tlean\ttilt\tnom\tlocal\tside\tdx\tdy\tp\tflat\tflatness\tsr\tedge\tbw\tbh\tval\ttval\tfw\tfh\tox\toy\tnear\tb0\tb1\tb2\tb3\tstyle")
	first := stillFirst(t)
	forEachStill(t, first, n, scene.StillOptions{}, func(seed int64, img gocv.Mat, truth scene.StillTruth) {
		if dir := os.Getenv("DICEWATCH_COCK_DIAG_PNG"); dir != "" {
			gocv.IMWrite(fmt.Sprintf("%s/still_%d.png", dir, seed), img)
		}
		loc := stillEdgeAt(truth)
		for _, mode := range []string{"cal", "unc"} {
			if only := os.Getenv("DICEWATCH_STILL_MODE"); only != "" && only != mode {
				continue
			}
			r := plain
			if mode == "cal" {
				cal.opts.DiePx = truth.EdgePx
				r = cal
			}
			clear(seen)
			clear(bands)
			dets, err := r.Read(img)
			if err != nil {
				t.Fatal(err)
			}
			m := map[int]int{}
			for _, p := range matchStill(truth.Dice, dets) {
				m[p[0]] = p[1]
			}
			for i, g := range truth.Dice {
				grp := stillGroup(g)
				if grp != "clean" && grp != "cocked" {
					continue
				}
				le := loc(g.CX, g.CY)
				line := fmt.Sprintf("%d\t%s\t%.1f\t%s\t%s\t%.1f\t%.1f\t%.2f\t%.2f\t%.3f\t%.3f", seed, mode, truth.CameraTiltDeg, grp, stillLean(g), g.TiltDeg,
					truth.EdgePx, le, math.Sin(g.TiltDeg*math.Pi/180)*le, (g.CX-float64(truth.Width)/2)/(float64(truth.Width)/2), (g.CY-float64(truth.Height)/2)/(float64(truth.Height)/2))
				j, ok := m[i]
				if !ok {
					fmt.Fprintln(w, line+"\t-"+strings.Repeat("\t-", 17)+"\t"+g.Style)
					continue
				}
				d := dets[j]
				fr := seen[[2]float64{d.CX, d.CY}]
				bd, ok := bands[[2]float64{d.CX, d.CY}]
				if !ok {
					bd = [4]float64{math.NaN(), math.NaN(), math.NaN(), math.NaN()}
				}
				e := d.EdgePx
				if mode == "cal" {
					e = le
				}
				ox := (fr.bx - d.CX) / e
				oy := (fr.by - d.CY) / e
				// the nearest other detection, in edges
				near := math.Inf(1)
				for k, o := range dets {
					if k != j {
						near = math.Min(near, math.Hypot(o.CX-d.CX, o.CY-d.CY)/e)
					}
				}
				fmt.Fprintf(w, "%s\t%.3f\t%v\t%.3f\t%.3f\t%.2f\t%d\t%d\t%d\t%d\t%.2f\t%.2f\t%.3f\t%.3f\t%.2f\t%.3f\t%.3f\t%.3f\t%.3f\t%s\n", line, d.cockP, d.Flat, d.Flatness, d.SizeRatio, d.EdgePx,
					d.Box.Dx(), d.Box.Dy(), d.Value, g.Value, fr.fw, fr.fh, ox, oy, near, bd[0], bd[1], bd[2], bd[3], g.Style)
			}
		}
	})
	t.Logf("wrote %s", f.Name())
}

// TestStillLean checks stillLean against the generator's placement on
// the default stills: every cocked die leans on chips, a wall, another
// die or something off the picture, and one said to lean on a die has a
// die beside it (centres within 1.5 of the nominal edge, a cocked die
// standing half an edge or more off the die it leans on).
func TestStillLean(t *testing.T) {
	seen := map[string]int{}
	for seed := int64(0); seed < 80; seed++ {
		img, truth, err := scene.Still(seed, scene.StillOptions{})
		if err != nil {
			t.Fatal(err)
		}
		img.Close()
		for i, g := range truth.Dice {
			l := stillLean(g)
			seen[l]++
			if g.Flat != (l == "-") {
				t.Errorf("still %d die %d: flat %v, lean %q", seed, i, g.Flat, l)
			}
			if l != "die" {
				continue
			}
			near := false
			for j, o := range truth.Dice {
				if j != i && math.Hypot(o.CX-g.CX, o.CY-g.CY) < 1.5*truth.EdgePx {
					near = true
				}
			}
			if !near {
				t.Errorf("still %d die %d: leans on a die, none beside it", seed, i)
			}
		}
	}
	for _, l := range []string{"-", "chips", "wall", "die", "seam"} {
		if seen[l] == 0 {
			t.Errorf("no die with lean %q in 80 stills", l)
		}
	}
	t.Logf("leans: %v", seen)
}

// TestCockCrops writes a square crop round each die a list names, for
// looking at the cocked call's misses and false calls by eye:
//
//	DICEWATCH_COCK_CROPS=list.txt DICEWATCH_COCK_CROPS_DIR=/tmp/crops go test -count=1 -run TestCockCrops ./vision/
//
// Each line of the list is "seed dx dy edge tag": the still, the die's
// offset from the picture's centre over its half width and height and
// its edge in pixels (TestCockDiag's seed, dx, dy and local columns),
// and a name (no spaces) for the file. tools/cocknet/breakdown.py
// --crops writes such lists. Each crop spans 3.2 edges, scaled to
// 128x128, as DIR/NNN_TAG_SEED.png.
func TestCockCrops(t *testing.T) {
	list := os.Getenv("DICEWATCH_COCK_CROPS")
	if list == "" {
		t.Skip("DICEWATCH_COCK_CROPS not set")
	}
	dir := os.Getenv("DICEWATCH_COCK_CROPS_DIR")
	if dir == "" {
		t.Fatal("DICEWATCH_COCK_CROPS_DIR not set")
	}
	data, err := os.ReadFile(list)
	if err != nil {
		t.Fatal(err)
	}
	k := 0
	for _, line := range strings.Split(string(data), "\n") {
		var seed int64
		var dx, dy, edge float64
		var tag string
		if n, _ := fmt.Sscan(line, &seed, &dx, &dy, &edge, &tag); n != 5 {
			continue
		}
		img, tr, err := scene.Still(seed, scene.StillOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cx, cy := (dx+1)*float64(tr.Width)/2, (dy+1)*float64(tr.Height)/2
		h := 1.6 * edge
		r := image.Rect(int(cx-h), int(cy-h), int(cx+h), int(cy+h)).Intersect(image.Rect(0, 0, img.Cols(), img.Rows()))
		if r.Empty() {
			img.Close()
			continue
		}
		sub := img.Region(r)
		big := gocv.NewMat()
		gocv.Resize(sub, &big, image.Pt(128, 128), 0, 0, gocv.InterpolationLinear)
		if !gocv.IMWrite(fmt.Sprintf("%s/%03d_%s_%d.png", dir, k, tag, seed), big) {
			t.Errorf("could not write crop %d", k)
		}
		big.Close()
		sub.Close()
		img.Close()
		k++
	}
	t.Logf("wrote %d crops to %s", k, dir)
}

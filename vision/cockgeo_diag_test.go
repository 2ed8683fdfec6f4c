package vision

import (
	"bufio"
	"fmt"
	"image"
	"math"
	"sort"
	"testing"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/vision/scene"
)

// geoRow is one clean or cocked die of a generated still as
// TestCockGeoDiag measures it: its truth and each geometric cue.
type geoRow struct {
	cocked bool
	// flat is the read's call (the view's tilt given); geo whether
	// viewCocked, the view's vertical given, calls the die cocked.
	flat, geo bool
	// flatUp is the call of the read given the view's vertical too.
	flatUp bool
	cam    float64
	lean   string
	tilt   float64
	cues   []float64
}

// geoCueNames are the cues TestCockGeoDiag ranks, in its columns' order
// (see there).
var geoCueNames = []string{"p", "foot", "footRaw", "square", "size", "blob", "pipfoot", "latRaw", "lat"}

// TestCockGeoDiag reads generated stills as a calibrated table would
// (the die edge at each place, the camera's tilt, and the picture of a
// die's vertical edge at each place, stillViewUp) and writes, for each
// clean or cocked die, its truth and the geometric cocked cues the
// at-rest reader uses, each with the view undone:
//
//	DICEWATCH_COCKGEO_DIAG=/tmp/cg.tsv DICEWATCH_STILLS=2000 DICEWATCH_STILL_FIRST=0 go test -count=1 -run CockGeoDiag -v -timeout 90m ./vision/
//
// The cues (larger: more likely cocked): p, the cocked nets'
// probability; foot, how far the footprint's centre lies from where a
// flat die's would (its top face's centre moved half the view's picture
// of a vertical edge towards the die's base: the side faces a flat die
// shows), in expected edges; footRaw, the same without the view (what
// footAside measures); square, 1 less the face rectangle's squareness
// once the view's foreshortening is undone (a flat top face is a square
// on the table's plane); size, how far the face's area, the view undone,
// is from one die's (|sqrt(area)/edge - 1|); blob, the footprint's box
// over a flat die's silhouette's box at the face's turn and the view
// (the larger of the two sides' ratios); pipfoot, the pips' box's centre
// from the footprint's centre, the view's side band taken off, in
// edges; latRaw, 1 less the read value's pip lattice's aspect (4, 5 and
// 6), and lat, the same with the view undone (latticeAspect). The
// column geo is viewCocked's call with the view's vertical given as
// well, flatUp the flat call of a second read given it (the first read
// is given the tilt only, so its flat column is the harness's with
// DICEWATCH_STILL_VIEW=tilt before ViewUp, flatUp the harness's now). A cue is NaN where the read gives nothing to measure (no
// footprint, no pips). At the end it logs, per cue, the share of the
// detected cocked dice it would call at 0.5%, 1% and 2% of the detected
// clean dice called, by camera (straight, tilted) and overall.
func TestCockGeoDiag(t *testing.T) {
	f := diagFile(t, "DICEWATCH_COCKGEO_DIAG")
	n := stillCount(t, 600)
	w := bufio.NewWriter(f)
	defer w.Flush()
	type rect struct {
		w, h, ang float64
		lat       lattice
		lv        int
	}
	faces := map[[2]float64]rect{}
	readTrace = func(d *Detection, fv faceValue, shrunk bool) {
		faces[[2]float64{d.CX, d.CY}] = rect{fv.c.w, fv.c.h, fv.c.angle, fv.lat, fv.lv}
	}
	defer func() { readTrace = nil }()
	blobs := map[[2]float64][2]float64{}
	var lastBlob [2]float64
	candTrace = func(b image.Rectangle, fv faceValue, shrunk bool) {
		lastBlob = [2]float64{float64(b.Dx()), float64(b.Dy())}
	}
	defer func() { candTrace = nil }()
	readTrace2 := readTrace
	readTrace = func(d *Detection, fv faceValue, shrunk bool) {
		readTrace2(d, fv, shrunk)
		blobs[[2]float64{d.CX, d.CY}] = lastBlob
	}
	cal := NewReader(ReaderOptions{DiePx: 1, PipSpread: stillPipSpread})
	defer cal.Close()
	calUp := NewReader(ReaderOptions{DiePx: 1, PipSpread: stillPipSpread})
	defer calUp.Close()
	fmt.Fprintln(w, "seed\tcam\tgroup\tlean\ttilt\tstyle\tedge\tmatched\tval\ttval\tflat\tflatness\tsr\tfx\tfy\tfw\tfh\tfang\tbw\tbh\tpx\tpy\tnear\tgeo\tflatUp\t"+joinTab(geoCueNames))
	var rows []geoRow
	first := stillFirst(t)
	forEachStill(t, first, n, scene.StillOptions{}, func(seed int64, img gocv.Mat, tr scene.StillTruth) {
		loc := stillEdgeAt(tr)
		tilt := tr.CameraTiltDeg
		up := stillViewUp(tr)
		cal.opts.DiePx = tr.EdgePx
		cal.opts.ExpectedEdgePx = loc
		cal.opts.ViewTiltDeg = func(x, y float64) float64 { return tilt }
		withUp := &Reader{opts: cal.opts}
		withUp.opts.ViewUp = up
		// The read with the view's vertical as well, as the harness
		// reads with DICEWATCH_STILL_VIEW=tilt: its flat calls.
		calUp.opts = withUp.opts
		upDets, err := calUp.Read(img)
		if err != nil {
			t.Fatal(err)
		}
		flatUp := map[int]bool{}
		for _, p := range matchStill(tr.Dice, upDets) {
			flatUp[p[0]] = upDets[p[1]].Flat
		}
		clear(faces)
		clear(blobs)
		dets, err := cal.Read(img)
		if err != nil {
			t.Fatal(err)
		}
		m := map[int]int{}
		for _, p := range matchStill(tr.Dice, dets) {
			m[p[0]] = p[1]
		}
		for i, g := range tr.Dice {
			grp := stillGroup(g)
			if grp != "clean" && grp != "cocked" {
				continue
			}
			e := loc(g.CX, g.CY)
			line := fmt.Sprintf("%d\t%.1f\t%s\t%s\t%.1f\t%s\t%.2f", seed, tilt, grp, stillLean(g), g.TiltDeg, g.Style, e)
			j, ok := m[i]
			if !ok {
				fmt.Fprintln(w, line+"\t0")
				continue
			}
			d := dets[j]
			k := [2]float64{d.CX, d.CY}
			fc, hasFace := faces[k]
			bl := blobs[k]
			v := up(d.CX, d.CY)
			nan := math.NaN()
			fx, fy := nan, nan
			if d.foot != ([4]float64{}) && d.foot[2] == d.CX && d.foot[3] == d.CY {
				fx, fy = (d.foot[0]-d.CX)/e, (d.foot[1]-d.CY)/e
			}
			px, py := nan, nan
			if !d.PipBox.Empty() && !math.IsNaN(fx) {
				px = (float64(d.PipBox.Min.X+d.PipBox.Max.X)/2 - d.foot[0]) / e
				py = (float64(d.PipBox.Min.Y+d.PipBox.Max.Y)/2 - d.foot[1]) / e
			}
			near := math.Inf(1)
			for o, od := range dets {
				if o != j {
					near = math.Min(near, math.Hypot(od.CX-d.CX, od.CY-d.CY)/e)
				}
			}
			cues := []float64{d.cockP, nan, math.Hypot(fx, fy), nan, nan, nan, nan, nan, nan}
			if !math.IsNaN(fx) {
				cues[1] = math.Hypot(fx+v[0]/2, fy+v[1]/2)
			}
			fw, fh, fa := nan, nan, nan
			if hasFace {
				fw, fh, fa = fc.w/e, fc.h/e, fc.ang
				sq, sz := undoneSquare(fw, fh, fa, v)
				cues[3], cues[4] = 1-sq, math.Abs(sz-1)
				if bl != ([2]float64{}) {
					ew, eh := flatSilhouette(fa, v)
					cues[5] = math.Max(bl[0]/e/ew, bl[1]/e/eh)
				}
			}
			if hasFace && d.Value >= 4 && fc.lv == d.Value && fc.lat.minor > 0 {
				cues[7] = 1 - fc.lat.minor/fc.lat.major
				cues[8] = 1 - latticeAspect(fc.lat, fc.ang, v)
			}
			if !math.IsNaN(px) {
				cues[6] = math.Hypot(px-v[0]/2, py-v[1]/2)
			}
			geo := withUp.viewCocked(d)
			fu, ok := flatUp[i]
			if !ok {
				t.Errorf("still %d die %d: matched by the read without the view's vertical, not with it", seed, i)
			}
			fmt.Fprintf(w, "%s\t1\t%d\t%d\t%v\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.2f\t%v\t%v", line, d.Value, g.Value, d.Flat, d.Flatness, d.SizeRatio,
				fx, fy, fw, fh, fa, bl[0]/e, bl[1]/e, px, py, near, geo, fu)
			for _, c := range cues {
				fmt.Fprintf(w, "\t%.4f", c)
			}
			fmt.Fprintln(w)
			rows = append(rows, geoRow{cocked: grp == "cocked", flat: d.Flat, geo: geo, flatUp: fu, cam: tilt, lean: stillLean(g), tilt: g.TiltDeg, cues: cues})
		}
	})
	// The read's calls (the view's tilt given) and with viewCocked too
	// (the view's vertical given as well): what the stills harness
	// gives with DICEWATCH_STILL_VIEW=tilt before and after viewCocked.
	var nc, nf, hit, fal, hit2, fal2 int
	for _, r := range rows {
		if r.cocked {
			nc++
			hit += b2i(!r.flat)
			hit2 += b2i(!r.flatUp)
		} else {
			nf++
			fal += b2i(!r.flat)
			fal2 += b2i(!r.flatUp)
		}
	}
	t.Logf("calibrated, view's tilt given: cocked recall %.2f%% (%d/%d), false cocked %.2f%% (%d/%d)", 100*ratio(hit, nc), hit, nc, 100*ratio(fal, nf), fal, nf)
	t.Logf("the view's vertical given too (viewCocked, flatUp): cocked recall %.2f%% (%d/%d), false cocked %.2f%% (%d/%d)", 100*ratio(hit2, nc), hit2, nc, 100*ratio(fal2, nf), fal2, nf)
	for _, part := range []struct {
		name string
		in   func(r geoRow) bool
	}{
		{"all", func(geoRow) bool { return true }},
		{"straight", func(r geoRow) bool { return r.cam < straightView }},
		{"tilted", func(r geoRow) bool { return r.cam >= straightView }},
	} {
		var sel []geoRow
		for _, r := range rows {
			if part.in(r) {
				sel = append(sel, r)
			}
		}
		for c, name := range geoCueNames {
			rec := recallAtFalse(sel, func(r geoRow) float64 { return r.cues[c] }, []float64{0.005, 0.01, 0.02})
			t.Logf("%-8s %-8s recall at 0.5/1/2%% false: %5.1f %5.1f %5.1f%%  (cut %.3f %.3f %.3f)", part.name, name, rec[0][0]*100, rec[1][0]*100, rec[2][0]*100, rec[0][1], rec[1][1], rec[2][1])
		}
	}
	t.Logf("wrote %s (%d detected clean or cocked dice)", f.Name(), len(rows))
}

// recallAtFalse returns, for each false rate, the share of cocked rows
// whose cue is over the cut that calls at most that share of the flat
// rows, and the cut. NaN cues are never called.
func recallAtFalse(rows []geoRow, cue func(geoRow) float64, rates []float64) [][2]float64 {
	var flat, cock []float64
	for _, r := range rows {
		v := cue(r)
		if math.IsNaN(v) {
			v = math.Inf(-1)
		}
		if r.cocked {
			cock = append(cock, v)
		} else {
			flat = append(flat, v)
		}
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(flat)))
	out := make([][2]float64, len(rates))
	for i, rt := range rates {
		k := int(math.Floor(rt * float64(len(flat))))
		if len(flat) == 0 || len(cock) == 0 {
			continue
		}
		cut := math.Inf(1)
		if k < len(flat) {
			cut = flat[k] // called: strictly over the (k+1)th largest flat value
		}
		n := 0
		for _, v := range cock {
			if v > cut {
				n++
			}
		}
		out[i] = [2]float64{float64(n) / float64(len(cock)), cut}
	}
	return out
}

func joinTab(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += "\t"
		}
		out += x
	}
	return out
}

// stillViewUp returns, for a generated still, the picture of a die's
// vertical edge at each place, in die edges (ReaderOptions.ViewUp): the
// generator draws every die through one camera rotation about the
// picture's x axis by the camera's tilt, with its offsets scaled evenly,
// so a vertical edge is sin(tilt) edges long, straight up the picture
// (the camera looks from the picture's bottom: the near side faces show
// below the top faces).
func stillViewUp(tr scene.StillTruth) func(x, y float64) [2]float64 {
	s := math.Sin(tr.CameraTiltDeg * math.Pi / 180)
	return func(x, y float64) [2]float64 { return [2]float64{0, -s} }
}

// undoneSquare takes a face rectangle (sides w and h in edges, the w
// side turned ang radians) and the view's picture of a vertical edge v,
// undoes the view's foreshortening (along v, by the cosine of the view's
// tilt) and returns the face's squareness (short side over long, times
// the sine of the angle between them) and size (the root of its area).
func undoneSquare(w, h, ang float64, v [2]float64) (sq, size float64) {
	u := [2]float64{w * math.Cos(ang), w * math.Sin(ang)}
	q := [2]float64{-h * math.Sin(ang), h * math.Cos(ang)}
	u, q = unview(u, v), unview(q, v)
	lu, lq := math.Hypot(u[0], u[1]), math.Hypot(q[0], q[1])
	if lu == 0 || lq == 0 {
		return 0, 0
	}
	cr := math.Abs(u[0]*q[1] - u[1]*q[0])
	return math.Min(lu, lq) / math.Max(lu, lq) * cr / (lu * lq), math.Sqrt(cr)
}

// flatSilhouette is the box, in edges, of a flat die's picture whose top
// face is turned ang radians in the picture, under the view's vertical
// v: the top face's box widened by the vertical edges.
func flatSilhouette(ang float64, v [2]float64) (w, h float64) {
	s := math.Hypot(v[0], v[1])
	c := math.Sqrt(max(0, 1-s*s))
	co, si := math.Abs(math.Cos(ang)), math.Abs(math.Sin(ang))
	// The face's box on the picture, foreshortened along v (the
	// stills' v is vertical in the picture; a general v is taken as its
	// two components).
	bw, bh := co+si, co+si
	if s > 0 {
		bw = bw * (1 - (1-c)*math.Abs(v[0])/s)
		bh = bh * (1 - (1-c)*math.Abs(v[1])/s)
	}
	return bw + math.Abs(v[0]), bh + math.Abs(v[1])
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

package vision

import (
	"encoding/csv"
	"fmt"
	"image"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"gocv.io/x/gocv"
)

// photoRoot holds the real, labelled photo sets (see each set's SOURCE.md).
const photoRoot = "../testdata/photos"

// gtDie is one labelled die: its face value and top-face box.
type gtDie struct {
	value int
	box   [4]float64 // x0, y0, x1, y1
}

// photoSet is a labelled set restricted to the images in labels_clean.csv.
type photoSet struct {
	name   string
	images []string // file names, sorted
	dice   map[string][]gtDie
}

// photoImage reads image name of the photo set ps (a test fails on an
// image it cannot read); the caller closes it.
func photoImage(t testing.TB, ps photoSet, name string) gocv.Mat {
	t.Helper()
	img := gocv.IMRead(filepath.Join(photoRoot, ps.name, "images", name), gocv.IMReadColor)
	if img.Empty() {
		t.Fatalf("%s: cannot read", name)
	}
	return img
}

func readCSV(t testing.TB, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rows[1:]
}

func loadPhotoSet(t testing.TB, name string) photoSet {
	t.Helper()
	dir := filepath.Join(photoRoot, name)
	ps := photoSet{name: name, dice: map[string][]gtDie{}}
	clean := map[string]bool{}
	for _, row := range readCSV(t, filepath.Join(dir, "labels_clean.csv")) {
		clean[row[0]] = true
		ps.images = append(ps.images, row[0])
	}
	sort.Strings(ps.images)
	for _, row := range readCSV(t, filepath.Join(dir, "boxes.csv")) {
		if !clean[row[0]] {
			continue
		}
		v, err := strconv.Atoi(row[2])
		if err != nil {
			t.Fatalf("%s: bad value %q", name, row[2])
		}
		var d gtDie
		d.value = v
		for i := 0; i < 4; i++ {
			if d.box[i], err = strconv.ParseFloat(row[3+i], 64); err != nil {
				t.Fatalf("%s: bad box %v", name, row)
			}
		}
		ps.dice[row[0]] = append(ps.dice[row[0]], d)
	}
	return ps
}

func iou(a [4]float64, b image.Rectangle) float64 {
	bx0, by0, bx1, by1 := float64(b.Min.X), float64(b.Min.Y), float64(b.Max.X), float64(b.Max.Y)
	ix := math.Min(a[2], bx1) - math.Max(a[0], bx0)
	iy := math.Min(a[3], by1) - math.Max(a[1], by0)
	if ix <= 0 || iy <= 0 {
		return 0
	}
	in := ix * iy
	return in / ((a[2]-a[0])*(a[3]-a[1]) + (bx1-bx0)*(by1-by0) - in)
}

// tally accumulates detection and value results.
type tally struct {
	images, truth, found, matched int
	// centreMatched counts labelled dice whose box centre lies inside a
	// detection's box (one to one): a secondary figure for label sets whose
	// boxes hug the pips rather than the face.
	centreMatched int
	// confusion[true][read]; read 0 is unreadable.
	confusion [7][7]int
	// confident is wrong values read with confidence >= 0.9.
	confidentWrong int
	// notFlat and bigger count the detections reported not flat and those
	// with a size ratio at or above the rules' stacked cut (1.12).
	notFlat, bigger int
	// rel: the values given, by confidence (see reliability).
	rel reliability
}

// confBins are the lower edges of the reliability table's confidence
// bins: [0, 0.5), [0.5, 0.7), ... [0.95, 1].
var confBins = []float64{0, 0.5, 0.7, 0.8, 0.9, 0.95}

// reliability counts the values given (Value > 0) and the wrong ones among
// them by confidence bin (confBins), so that one can see whether a value's
// Confidence means what it says: the share wrong should fall as the
// confidence rises, and stay near nothing from 0.9 up.
type reliability struct {
	given, wrong [6]int
}

// add counts one value given: read for a die whose true face is truth.
func (rl *reliability) add(read, truth int, conf float64) {
	if read == 0 {
		return
	}
	k := 0
	for i, lo := range confBins {
		if conf >= lo {
			k = i
		}
	}
	rl.given[k]++
	if read != truth {
		rl.wrong[k]++
	}
}

// report is the table on one line per bin.
func (rl *reliability) report() string {
	var b strings.Builder
	b.WriteString("reliability (values given, by confidence):\n")
	for k, lo := range confBins {
		hi := "1"
		if k+1 < len(confBins) {
			hi = fmt.Sprintf("%.2f", confBins[k+1])
		}
		fmt.Fprintf(&b, "  conf %.2f..%-4s given %5d  wrong %4d (%.2f%%)\n", lo, hi, rl.given[k], rl.wrong[k], 100*ratio(rl.wrong[k], rl.given[k]))
	}
	return b.String()
}

func (t *tally) recall() float64    { return ratio(t.matched, t.truth) }
func (t *tally) precision() float64 { return ratio(t.matched, t.found) }
func (t *tally) correct() int {
	n := 0
	for v := 1; v <= 6; v++ {
		n += t.confusion[v][v]
	}
	return n
}
func (t *tally) unreadable() int {
	n := 0
	for v := 1; v <= 6; v++ {
		n += t.confusion[v][0]
	}
	return n
}
func (t *tally) wrong() int { return t.matched - t.correct() - t.unreadable() }

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// centreMatches counts labelled dice whose box centre is inside a distinct
// detection's box (nearest detection centre first).
func centreMatches(truth []gtDie, dets []Detection) int {
	used := make([]bool, len(dets))
	n := 0
	for _, g := range truth {
		cx, cy := (g.box[0]+g.box[2])/2, (g.box[1]+g.box[3])/2
		best, bestD := -1, math.Inf(1)
		for j, d := range dets {
			if used[j] || !image.Pt(int(cx), int(cy)).In(d.Box) {
				continue
			}
			if dd := math.Hypot(d.CX-cx, d.CY-cy); dd < bestD {
				best, bestD = j, dd
			}
		}
		if best >= 0 {
			used[best] = true
			n++
		}
	}
	return n
}

// match pairs detections with labelled dice greedily by IoU (>= 0.3)
// with the die's box.
func match(truth []gtDie, dets []Detection) [][2]int {
	return matchBoxes(truth, dets, false)
}

// matchBoxes is match; with pipBoxes, a label may also match a
// detection's PipBox (the larger IoU of the two boxes counts), for label
// sets whose boxes are drawn around the pips rather than the face.
func matchBoxes(truth []gtDie, dets []Detection, pipBoxes bool) [][2]int {
	var ps []boxPair
	for i, g := range truth {
		for j, d := range dets {
			v := iou(g.box, d.Box)
			if pipBoxes && !d.PipBox.Empty() {
				v = math.Max(v, iou(g.box, d.PipBox))
			}
			if v >= 0.3 {
				ps = append(ps, boxPair{i: i, j: j, v: v})
			}
		}
	}
	return greedyPairs(ps)
}

// boxPair is a possible match of label i with detection j, of overlap v.
// late pairs are matched only after every other pair.
type boxPair struct {
	i, j int
	v    float64
	late bool
}

// greedyPairs matches labels and detections one to one, the largest
// overlap first (late pairs after the others; stable on ties, for
// repeatable runs), and returns the [label, detection] pairs.
func greedyPairs(ps []boxPair) [][2]int {
	sort.SliceStable(ps, func(a, b int) bool {
		if ps[a].late != ps[b].late {
			return !ps[a].late
		}
		return ps[a].v > ps[b].v
	})
	ut, ud := map[int]bool{}, map[int]bool{}
	var out [][2]int
	for _, p := range ps {
		if ut[p.i] || ud[p.j] {
			continue
		}
		ut[p.i], ud[p.j] = true, true
		out = append(out, [2]int{p.i, p.j})
	}
	return out
}

// evalPhotoSet reads every clean image of a set. With DICEWATCH_DEBUG_DIR
// set it also writes annotated images there.
func evalPhotoSet(t testing.TB, ps photoSet, r *Reader, pipBoxes bool) tally {
	t.Helper()
	debug := os.Getenv("DICEWATCH_DEBUG_DIR")
	var tl tally
	sl := openSureLog(t)
	readPhotos(t, ps, r, nil, func(_ int, name string, img gocv.Mat, dets []Detection) {
		truth := ps.dice[name]
		pairs := matchBoxes(truth, dets, pipBoxes)
		tl.images++
		tl.truth += len(truth)
		tl.found += len(dets)
		tl.matched += len(pairs)
		tl.centreMatched += centreMatches(truth, dets)
		for _, d := range dets {
			if !d.Flat {
				tl.notFlat++
			}
			if d.SizeRatio >= 1.12 {
				tl.bigger++
			}
		}
		for _, p := range pairs {
			g, d := truth[p[0]], dets[p[1]]
			tl.confusion[g.value][d.Value]++
			if d.Value != 0 && d.Value != g.value && d.Confidence >= 0.9 {
				tl.confidentWrong++
			}
			tl.rel.add(d.Value, g.value, d.Confidence)
			sl.note(ps.name, d, g.value)
		}
		if debug != "" {
			writeDebug(debug, ps.name+"_"+name, img, truth, dets, pairs)
		}
	})
	return tl
}

func writeDebug(dir, name string, img gocv.Mat, truth []gtDie, dets []Detection, pairs [][2]int) {
	out := img.Clone()
	defer out.Close()
	md := map[int]int{}
	for _, p := range pairs {
		md[p[1]] = p[0]
	}
	for _, g := range truth {
		r := image.Rect(int(g.box[0]), int(g.box[1]), int(g.box[2]), int(g.box[3]))
		gocv.Rectangle(&out, r, color.RGBA{0, 255, 0, 0}, 1)
	}
	for j, d := range dets {
		c := color.RGBA{255, 0, 0, 0} // unmatched: red
		label := strconv.Itoa(d.Value)
		if i, ok := md[j]; ok {
			switch d.Value {
			case truth[i].value:
				c = color.RGBA{255, 255, 0, 0}
			case 0:
				c = color.RGBA{0, 200, 255, 0}
			default:
				c = color.RGBA{0, 0, 255, 0} // wrong: blue
				label += "/" + strconv.Itoa(truth[i].value)
			}
		}
		gocv.Rectangle(&out, d.Box, c, 1)
		if !d.PipBox.Empty() {
			gocv.Rectangle(&out, d.PipBox, color.RGBA{c.R / 2, c.G / 2, c.B / 2, 0}, 1)
		}
		gocv.PutText(&out, label, image.Pt(d.Box.Min.X, d.Box.Min.Y-2), gocv.FontHersheyPlain, 0.9, c, 1)
	}
	gocv.IMWrite(filepath.Join(dir, strings.TrimSuffix(name, filepath.Ext(name))+".png"), out)
}

func (tl *tally) report() string { return tl.detectionReport() + tl.valueReport() }

// detectionReport is the detection part of report.
func (tl *tally) detectionReport() string {
	var b strings.Builder
	fmt.Fprintf(&b, "images %d, labelled dice %d, detections %d, matched %d\n", tl.images, tl.truth, tl.found, tl.matched)
	fmt.Fprintf(&b, "detection: recall %.2f%%  precision %.2f%%  (IoU >= 0.3)\n", 100*tl.recall(), 100*tl.precision())
	fmt.Fprintf(&b, "secondary: recall %.2f%% by label-box centre inside a detection box\n", 100*ratio(tl.centreMatched, tl.truth))
	return b.String()
}

// valueReport is the value part of report: rates among tl.matched dice
// and the confusion matrix.
func (tl *tally) valueReport() string {
	var b strings.Builder
	fmt.Fprintf(&b, "value among detected: correct %.2f%%  wrong %.2f%%  unreadable %.2f%%  (confidently wrong: %d); value accuracy among values given %.3f%%\n",
		100*ratio(tl.correct(), tl.matched), 100*ratio(tl.wrong(), tl.matched), 100*ratio(tl.unreadable(), tl.matched), tl.confidentWrong,
		100*ratio(tl.correct(), tl.correct()+tl.wrong()))
	b.WriteString("confusion (rows: true face, columns: read; ? = unreadable)\n       ?     1     2     3     4     5     6\n")
	for v := 1; v <= 6; v++ {
		fmt.Fprintf(&b, "  %d", v)
		for p := 0; p <= 6; p++ {
			fmt.Fprintf(&b, " %5d", tl.confusion[v][p])
		}
		b.WriteString("\n")
	}
	if tl.rel != (reliability{}) {
		b.WriteString(tl.rel.report())
	}
	return b.String()
}

// photoBar is the accuracy a set must keep (regression floor).
type photoBar struct {
	set                         string
	minRecall, minPrecision     float64
	maxWrong, maxUnreadable     float64 // fractions of the detected dice
	issueRecall, issuePrecision float64 // the issue's bar, reported
	issueWrong, issueUnreadable float64
	// pipBoxes: the set's labels box the pips, not always the face (see
	// its SOURCE.md), so a label may match a detection's PipBox too.
	pipBoxes bool
	// maxConfidentWrong: the most wrong values read with confidence
	// 0.9 or more.
	maxConfidentWrong int
	// maxNotFlat: the most detections called not flat (the sets' dice
	// all lie flat as far as their labels go: each is a false alarm).
	maxNotFlat int
}

// photoBars: wrong <= 1% is the issue's bar and is held as is. The other
// floors are what the reader measured when they were last raised (less a
// small margin), below the issue's bar, which is printed beside the
// figures: raise them as the reader improves, never lower them.
var photoBars = []photoBar{
	// byler_d6's one confidently wrong value is a label's: the die labelled
	// 2 in IMG_20191209_095954.jpg (near x 240, y 340) shows three pips
	// on a diagonal, and is read as a 3.
	{set: "byler_d6", minRecall: 0.9715, minPrecision: 0.975, maxWrong: 0.01, maxUnreadable: 0.0500,
		issueRecall: 0.97, issuePrecision: 0.97, issueWrong: 0.01, issueUnreadable: 0.05, maxConfidentWrong: 1,
		maxNotFlat: 100},
	{set: "matteo_webcam", minRecall: 0.889, minPrecision: 0, maxWrong: 0.01, maxUnreadable: 0.03,
		issueRecall: 0.90, issuePrecision: 0, issueWrong: 0.01, issueUnreadable: 1, pipBoxes: true,
		maxNotFlat: 125},
}

// TestAccuracyPhotos is the accuracy harness and regression test on the
// real photos: `go test -run Accuracy -v ./vision/` prints the figures.
func TestAccuracyPhotos(t *testing.T) {
	for _, bar := range photoBars {
		t.Run(bar.set, func(t *testing.T) {
			ps := loadPhotoSet(t, bar.set)
			r := NewReader(ReaderOptions{})
			defer r.Close()
			tl := evalPhotoSet(t, ps, r, bar.pipBoxes)
			if bar.pipBoxes {
				t.Logf("%s: labels box the pips; a label matches the die box or the pip box", bar.set)
			}
			t.Logf("%s\n%s", bar.set, tl.report())
			t.Logf("%s: %d detections not flat, %d with size ratio >= 1.12", bar.set, tl.notFlat, tl.bigger)
			t.Logf("issue bar: recall >= %.0f%%, precision >= %.0f%%, wrong <= %.0f%%, unreadable <= %.0f%%",
				100*bar.issueRecall, 100*bar.issuePrecision, 100*bar.issueWrong, 100*bar.issueUnreadable)
			if tl.recall() < bar.minRecall {
				t.Errorf("recall %.4f below floor %.4f", tl.recall(), bar.minRecall)
			}
			if tl.precision() < bar.minPrecision {
				t.Errorf("precision %.4f below floor %.4f", tl.precision(), bar.minPrecision)
			}
			if w := ratio(tl.wrong(), tl.matched); w > bar.maxWrong {
				t.Errorf("wrong %.4f above ceiling %.4f", w, bar.maxWrong)
			}
			if u := ratio(tl.unreadable(), tl.matched); u > bar.maxUnreadable {
				t.Errorf("unreadable %.4f above ceiling %.4f", u, bar.maxUnreadable)
			}
			if tl.notFlat > bar.maxNotFlat {
				t.Errorf("%d detections not flat, ceiling %d", tl.notFlat, bar.maxNotFlat)
			}
			if tl.confidentWrong > bar.maxConfidentWrong {
				t.Errorf("%d confidently wrong values, ceiling %d", tl.confidentWrong, bar.maxConfidentWrong)
			}
		})
	}
}

package vision

import (
	"bufio"
	"encoding/json"
	"fmt"
	"image"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/calibration"
)

// TestRestReadSession reads every die that the generator's truth puts flat
// on the layout in a rendered session (DICEWATCH_SESSION=DIR, written by
// `dicewatch generate`) with the at-rest reader, at the truth's rest frame
// against the session's first (empty-table) frame, and prints each wrong
// or missing read. With DICEWATCH_SESSION_CROPS=DIR it writes the crops
// of those dice there. It is a tuning tool: it fails on any wrong value
// (a misread), not on unreadable dice.
func TestRestReadSession(t *testing.T) {
	dir := os.Getenv("DICEWATCH_SESSION")
	if dir == "" {
		t.Skip("set DICEWATCH_SESSION to a generated session directory")
	}
	crops := os.Getenv("DICEWATCH_SESSION_CROPS")
	cal, err := calibration.Load(filepath.Join(dir, "calibration.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	type truthDie struct {
		Value int    `json:"value"`
		Zone  string `json:"zone"`
		Box   [4]int `json:"box"`
		Flat  bool   `json:"flat"`
	}
	type truthLine struct {
		Throw       int        `json:"throw"`
		Kind        string     `json:"kind"`
		AtRestFrame int        `json:"at_rest_frame"`
		EndFrame    int        `json:"end_frame"`
		Dice        []truthDie `json:"dice"`
	}
	f, err := os.Open(filepath.Join(dir, "truth.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []truthLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var l truthLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, l)
	}
	vc, err := gocv.VideoCaptureFile(filepath.Join(dir, "session.avi"))
	if err != nil {
		t.Fatal(err)
	}
	defer vc.Close()
	bg := gocv.NewMat()
	defer bg.Close()
	frame := gocv.NewMat()
	defer frame.Close()
	if !vc.Read(&bg) {
		t.Fatal("no first frame")
	}
	pos := 1
	var right, wrong, none, notFlat int
	for _, l := range lines {
		target := l.AtRestFrame + 8 // a little after rest, as the daemon reads after settling
		if target < pos {
			continue
		}
		for pos <= target {
			if !vc.Read(&frame) {
				t.Fatal("recording ended early")
			}
			pos++
		}
		for k, d := range l.Dice {
			if d.Zone != "layout" || !d.Flat || l.Kind == "stacked" {
				continue
			}
			cx, cy := float64(d.Box[0]+d.Box[2])/2, float64(d.Box[1]+d.Box[3])/2
			edge := cal.DiePx(calibration.Point{X: cx, Y: cy})
			pad := int(edge * 1.5)
			r := image.Rect(d.Box[0], d.Box[1], d.Box[2], d.Box[3]).Inset(-pad)
			fp, ok1 := patchOf(frame, r)
			bp, ok2 := patchOf(bg, r)
			if !ok1 || !ok2 {
				continue
			}
			if crops != "" {
				name := fmt.Sprintf("s%s-t%03d-d%d-v%d-e%.2f", filepath.Base(dir), l.Throw, k, d.Value, edge)
				fc, bc := frame.Region(r), bg.Region(r)
				gocv.IMWrite(filepath.Join(crops, name+"-fr.png"), fc)
				gocv.IMWrite(filepath.Join(crops, name+"-bg.png"), bc)
				fc.Close()
				bc.Close()
			}
			got, flat := 0, 0.0
			for _, rd := range readRest(fp, bp, edge) {
				if rd.cx >= float64(d.Box[0]) && rd.cx <= float64(d.Box[2]) && rd.cy >= float64(d.Box[1]) && rd.cy <= float64(d.Box[3]) {
					got, flat = rd.value, rd.flatness
				}
			}
			if got != 0 && flat < DefaultMinFlatness {
				notFlat++
				t.Logf("throw %d (%s) die %d at %.0f,%.0f edge %.1f: read %d, truth %d, but flatness %.2f (cocked)", l.Throw, l.Kind, k, cx, cy, edge, got, d.Value, flat)
			}
			switch {
			case got == d.Value:
				right++
				continue
			case got == 0:
				none++
			default:
				wrong++
				t.Errorf("throw %d die %d: read %d, truth %d", l.Throw, k, got, d.Value)
			}
			t.Logf("throw %d (%s) die %d at %.0f,%.0f edge %.1f: read %d, truth %d", l.Throw, l.Kind, k, cx, cy, edge, got, d.Value)
		}
	}
	t.Logf("flat layout dice: %d right, %d unreadable, %d wrong; %d read but called not flat", right, none, wrong, notFlat)
}

// TestRestReadCrops reads the crops TestRestReadSession wrote
// (DICEWATCH_CROPS=DIR): each NAME-fr.png with its NAME-bg.png, the truth
// value and die edge in NAME. It fails on any wrong value.
func TestRestReadCrops(t *testing.T) {
	dir := os.Getenv("DICEWATCH_CROPS")
	if dir == "" {
		t.Skip("set DICEWATCH_CROPS to a directory of crops")
	}
	readCrops(t, dir)
}

// loadCropPair loads a crop NAME-fr.png (fn) and its empty-table crop
// NAME-bg.png, and the true value and die edge the name ends with
// (...-vV-eEDGE).
func loadCropPair(t *testing.T, fn string) (fr, bg bgrPatch, v int, edge float64) {
	t.Helper()
	base := strings.TrimSuffix(fn, "-fr.png")
	parts := strings.Split(filepath.Base(base), "-")
	if len(parts) < 2 {
		t.Fatalf("%s: not a crop pair named ...-vV-eEDGE", fn)
	}
	fmt.Sscanf(parts[len(parts)-2], "v%d", &v)
	fmt.Sscanf(parts[len(parts)-1], "e%g", &edge)
	fm := gocv.IMRead(fn, gocv.IMReadColor)
	bm := gocv.IMRead(base+"-bg.png", gocv.IMReadColor)
	fr, ok1 := patchOf(fm, image.Rect(0, 0, fm.Cols(), fm.Rows()))
	bg, ok2 := patchOf(bm, image.Rect(0, 0, bm.Cols(), bm.Rows()))
	fm.Close()
	bm.Close()
	if !ok1 || !ok2 || v < 1 || v > 6 || !(edge > 0) {
		t.Fatalf("%s: not a crop pair named ...-vV-eEDGE", fn)
	}
	return fr, bg, v, edge
}

// restCrop is a crop pair of a directory read by readRest: its name
// (less -fr.png), the true value and die edge its name gives, and the
// dice read in it.
type restCrop struct {
	name   string
	truth  int
	edge   float64
	cx, cy float64 // the crop's centre
	dies   []restDie
}

// centred is the crop's dice read within a die edge of its centre, in
// readRest's order.
func (c restCrop) centred() []restDie {
	var out []restDie
	for _, d := range c.dies {
		if math.Abs(d.cx-c.cx) < c.edge && math.Abs(d.cy-c.cy) < c.edge {
			out = append(out, d)
		}
	}
	return out
}

// readRestCrops reads each NAME-fr.png in dir against its NAME-bg.png
// (loadCropPair) in name order; a directory with none is fatal.
func readRestCrops(t *testing.T, dir string) []restCrop {
	t.Helper()
	frs, _ := filepath.Glob(filepath.Join(dir, "*-fr.png"))
	if len(frs) == 0 {
		t.Fatalf("no crops in %s", dir)
	}
	out := make([]restCrop, 0, len(frs))
	for _, fn := range frs {
		name := filepath.Base(strings.TrimSuffix(fn, "-fr.png"))
		fp, bp, v, edge := loadCropPair(t, fn)
		if debugRead {
			fmt.Fprintf(os.Stderr, "== %s\n", name)
		}
		out = append(out, restCrop{name: name, truth: v, edge: edge,
			cx: float64(fp.w) / 2, cy: float64(fp.h) / 2, dies: readRest(fp, bp, edge)})
	}
	return out
}

// readCrops reads each NAME-fr.png in dir against its NAME-bg.png and
// returns the truth and the value read (0: unreadable) by crop name; a
// wrong value is an error.
func readCrops(t *testing.T, dir string) map[string]cropRead {
	t.Helper()
	out := map[string]cropRead{}
	crops := readRestCrops(t, dir)
	var right, wrong, none int
	for _, c := range crops {
		got, flat := 0, false
		for _, rd := range c.centred() {
			got = rd.value
			flat = rd.toDetection(c.edge, DefaultMinFlatness).Flat
		}
		out[c.name] = cropRead{truth: c.truth, got: got, flat: flat}
		switch {
		case got == c.truth:
			right++
		case got == 0:
			none++
			t.Logf("%s: unreadable", c.name)
		default:
			wrong++
			t.Errorf("%s: read %d", c.name, got)
		}
	}
	t.Logf("%d crops: %d right, %d unreadable, %d wrong", len(crops), right, none, wrong)
	return out
}

// cropRead is what readCrops found for one crop.
type cropRead struct {
	truth, got int  // values (got 0: unreadable)
	flat       bool // the read die was called flat
}

// TestRestReadHardCrops rereads at-rest crops cut from generated sessions
// (testdata/restcrops: the frame 8 frames after rest, or the daemon's rest
// frame, and the empty table; truth value and calibrated die edge in the
// name): two dozen ordinary ones, and red dice lying partly or wholly on
// the layout's red print that the reader used to call unreadable or
// cocked (seed 404 throws 8 and 116, throw 181 of the 200-throw seed 404
// session, a one wholly on the print, and throw 63 of seed 808, a one on
// white lettering with its red-tinted shadow), which it must now read
// right and flat. Seed 505 throw 66, a die turned 45 degrees half on the
// print, may stay unreadable. Any wrong value fails.
func TestRestReadHardCrops(t *testing.T) {
	got := readCrops(t, "testdata/restcrops")
	for _, name := range []string{
		"sseed-404-throws-120-q80-t008-d0-v4-e16.01",
		"sseed-404-throws-120-q80-t116-d0-v2-e15.99",
		"sseed-404-throws-200-q80-t181-d1-v1-e16.00",
		"sseed-808-throws-200-q80-t063-d1-v1-e16.00",
	} {
		r, ok := got[name]
		if !ok {
			t.Fatalf("crop %s missing", name)
		}
		if r.got != r.truth || !r.flat {
			t.Errorf("%s: read %d (flat %v), truth %d, flat", name, r.got, r.flat, r.truth)
		}
	}
	// A die cocked 14.5 degrees against a chip stack, partly on red print:
	// it looks like a flat five. It must not be read as a flat die.
	cocked := "sseed-1313-throws-200-q80-t106-d0-v5-e16.00"
	if r, ok := got[cocked]; !ok {
		t.Fatalf("crop %s missing", cocked)
	} else if r.got != 0 && r.flat {
		t.Errorf("%s: a cocked die read as a flat %d", cocked, r.got)
	}
	right := 0
	for _, r := range got {
		if r.truth == r.got {
			right++
		}
	}
	// 28 of the 30 are read right today (the cocked die and 505/66 are
	// unreadable); one more may turn unreadable.
	if right < len(got)-3 {
		t.Errorf("%d of %d crops read right; want at least %d", right, len(got), len(got)-3)
	}
}

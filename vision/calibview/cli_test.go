package calibview

import (
	"bytes"
	"flag"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dicewatch/dicewatch/calibration"
	"github.com/dicewatch/dicewatch/calibration/caltest"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite docs/calibration-overlay.png and docs/calibration-still.png")

func writePNG(t *testing.T, path string, img image.Image) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestCLICalibrate runs `dicewatch calibrate` on a generated craps still
// with ArUco markers and dice, then locates the dice boxes.
func TestCLICalibrate(t *testing.T) {
	truth, _, err := caltest.Calibration(calibration.TemplateCraps12)
	if err != nil {
		t.Fatal(err)
	}
	tpl, _ := calibration.LoadTemplate(calibration.TemplateCraps12)
	dice := []SceneDie{
		{Center: calibration.Point{X: 2600, Y: 800}, EdgeMM: 19, Value: 5},
		{Center: calibration.Point{X: 2700, Y: 620}, EdgeMM: 19, Value: 2},
		{Center: calibration.Point{X: 1830, Y: 230}, EdgeMM: 19, Value: 6},  // on the bank
		{Center: calibration.Point{X: 3000, Y: 1350}, EdgeMM: 19, Value: 3}, // in the rail
	}
	noise := 2.0
	if *updateDocs {
		noise = 0 // the docs pictures compress far better without noise
	}
	img, err := Render(Scene{Truth: truth, Aruco: tpl.Aruco, Dice: dice, NoiseGrey: noise, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	still := filepath.Join(dir, "still.png")
	writePNG(t, still, img)
	out := filepath.Join(dir, "cal.yaml")
	overlay := filepath.Join(dir, "cal.png")
	if *updateDocs {
		overlay = filepath.Join("..", "..", "docs", "calibration-overlay.png")
		writePNG(t, filepath.Join("..", "..", "docs", "calibration-still.png"), img)
	}
	args := []string{"-still", still, "-template", "craps12", "-method", "aruco", "-table", "craps-1", "-out", out, "-overlay", overlay, "-locate"}
	for _, d := range dice {
		b := Footprint(truth, d.Center, d.EdgeMM/2)
		args = append(args, "-box", fmt.Sprintf("%d,%d,%d,%d", b.Min.X, b.Min.Y, b.Max.X, b.Max.Y))
	}
	var stdout, stderr bytes.Buffer
	if code := RunCalibrate(args, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	t.Log(stdout.String())
	c, err := calibration.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(overlay); err != nil {
		t.Fatal(err)
	}
	if c.Background != "cal-empty.png" {
		t.Errorf("background %q", c.Background)
	}
	if _, err := os.Stat(filepath.Join(dir, c.Background)); err != nil {
		t.Error(err)
	}
	wantZones := []string{"layout", "layout", "bank", "rail"}
	re := regexp.MustCompile(`zone (\w+) `)
	var got []string
	for _, m := range re.FindAllStringSubmatch(stdout.String(), -1) {
		got = append(got, m[1])
	}
	if fmt.Sprint(got) != fmt.Sprint(wantZones) {
		t.Errorf("zones %v, want %v", got, wantZones)
	}
	if !strings.Contains(stdout.String(), "hash "+c.Hash()) {
		t.Errorf("stdout does not name the hash %s", c.Hash())
	}
	if !strings.Contains(stdout.String(), "view: "+c.View().String()+"\n") {
		t.Errorf("stdout does not give the view (%s)", c.View())
	}

	// A still without markers is refused and writes no calibration.
	empty, _ := Render(Scene{Truth: truth})
	writePNG(t, still, empty)
	out2 := filepath.Join(dir, "cal2.yaml")
	stdout.Reset()
	stderr.Reset()
	if code := RunCalibrate([]string{"-still", still, "-out", out2}, strings.NewReader(""), &stdout, &stderr); code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if !strings.Contains(stderr.String(), "found 0 of 24 aruco markers") {
		t.Errorf("stderr %q", stderr.String())
	}
	if _, err := os.Stat(out2); !os.IsNotExist(err) {
		t.Errorf("refused calibration was written")
	}

	// -locate with an existing calibration and JSON lines boxes on stdin.
	stdout.Reset()
	b := Footprint(truth, dice[0].Center, 9.5)
	line := fmt.Sprintf(`{"box":{"Min":{"X":%d,"Y":%d},"Max":{"X":%d,"Y":%d}}}`+"\n", b.Min.X, b.Min.Y, b.Max.X, b.Max.Y)
	if code := RunCalibrate([]string{"-calibration", out, "-locate", "-boxes", "-"}, strings.NewReader(line), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "zone layout") {
		t.Errorf("locate: %s", stdout.String())
	}
}

// TestMarkerSheets: the printed marker files are read back as the right
// ids by the detector.
func TestMarkerSheets(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	if code := RunCalibrate([]string{"-template", "paigow", "-markers", dir}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	tpl, _ := calibration.LoadTemplate(calibration.TemplatePaiGow)
	files, _ := filepath.Glob(filepath.Join(dir, "marker-*.png"))
	if len(files) != len(tpl.Aruco.Markers) {
		t.Fatalf("%d files for %d markers", len(files), len(tpl.Aruco.Markers))
	}
	for _, m := range tpl.Aruco.Markers {
		img, err := grab(filepath.Join(dir, fmt.Sprintf("marker-%02d.png", m.ID)), "")
		if err != nil {
			t.Fatal(err)
		}
		found, err := DetectMarkers(img, tpl.Aruco.Dictionary)
		img.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(found) != 1 || found[0].ID != m.ID {
			t.Errorf("marker %d: detected %+v", m.ID, found)
		}
	}
}

// TestCLICalibrateBaseResized: `dicewatch calibrate -base` with a base
// made for another frame size of the same shape scales its focal length
// and says so; for another shape it refuses, names the value and writes
// nothing.
func TestCLICalibrateBaseResized(t *testing.T) {
	truth, _, err := caltest.Calibration(calibration.TemplatePaiGow)
	if err != nil {
		t.Fatal(err)
	}
	tpl, _ := calibration.LoadTemplate(calibration.TemplatePaiGow)
	img, err := Render(Scene{Truth: truth, Aruco: tpl.Aruco, NoiseGrey: 2, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	still := filepath.Join(dir, "still.png")
	writePNG(t, still, img)
	for _, tc := range []struct {
		name       string
		w, h       int
		focal      float64
		code       int
		stdout     string
		stderr     string
		wantFocal  float64
		wantOutput bool
	}{
		{name: "twice the size", w: 2560, h: 1920, focal: 3000, stdout: "base: scaled from 2560x1920 to 1280x960 frames (x0.5): camera.focal_px 3000 -> 1500; a camera mode that crops its sensor rather than scaling it needs them measured at 1280x960\n", wantFocal: 1500, wantOutput: true},
		{name: "another shape", w: 1280, h: 720, focal: 1500, code: 1, stderr: "dicewatch calibrate: calibview: -base: calibration: camera.focal_px is in pixels of a 1280x720 frame, and a 1280x960 frame is another shape: the camera crops its sensor for it, so it is not known at 1280x960; measure it at 1280x960, or leave it out"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := *truth
			base.Camera = calibration.Camera{Width: tc.w, Height: tc.h, FocalPx: tc.focal}
			if err := base.Validate(); err != nil {
				t.Fatal(err)
			}
			basePath := filepath.Join(dir, tc.name+"-base.yaml")
			if err := base.Save(basePath); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, tc.name+".yaml")
			var stdout, stderr bytes.Buffer
			code := RunCalibrate([]string{"-still", still, "-template", "paigow", "-base", basePath, "-out", out, "-background", "none"}, strings.NewReader(""), &stdout, &stderr)
			if code != tc.code {
				t.Fatalf("exit %d, want %d: %s", code, tc.code, stderr.String())
			}
			if !strings.Contains(stdout.String(), tc.stdout) || !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("stdout %q\nstderr %q\nwant %q and %q in them", stdout.String(), stderr.String(), tc.stdout, tc.stderr)
			}
			c, err := calibration.Load(out)
			if !tc.wantOutput {
				if err == nil {
					t.Error("a refused calibration was written")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Camera.FocalPx != tc.wantFocal || c.Camera.Width != 1280 || c.Camera.Height != 960 {
				t.Errorf("camera %+v", c.Camera)
			}
		})
	}
}

// TestReadBoxesForms: readBoxes takes what `dicewatch read --json` prints
// (a "dice" array whose boxes are [x0,y0,x1,y1]; the first line below is
// its output on byler_d6 IMG_20191208_112645.jpg, session 21), and still
// the image.Rectangle form it took before, on a line of its own or in a
// "dice" array. A box that is neither is an error, not a zero box.
func TestReadBoxesForms(t *testing.T) {
	in := `{"image":"testdata/photos/byler_d6/images/IMG_20191208_112645.jpg","dice":[{"value":3,"box":[366,288,417,328],"confidence":0.85,"flat":true,"flatness":0.934,"size_ratio":0.938},{"value":5,"box":[313,314,360,356],"confidence":1,"flat":true,"flatness":0.947,"size_ratio":1.067}],"ms":172.883}

{"box":{"Min":{"X":1,"Y":2},"Max":{"X":11,"Y":12}}}
{"dice":[{"box":{"Min":{"X":5,"Y":6},"Max":{"X":15,"Y":16}}}]}
{"box":[20,21,30,31]}
`
	got, err := readBoxes(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []image.Rectangle{image.Rect(366, 288, 417, 328), image.Rect(313, 314, 360, 356),
		image.Rect(1, 2, 11, 12), image.Rect(5, 6, 15, 16), image.Rect(20, 21, 30, 31)}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("boxes %v, want %v", got, want)
	}
	for _, bad := range []string{`{"box":[1,2,3]}`, `{"dice":[{"box":[1,2,3,4,5]}]}`, `{"box":"1,2,3,4"}`, `{"box":[1.5,2,3,4]}`} {
		if bs, err := readBoxes(strings.NewReader(bad)); err == nil {
			t.Errorf("%s: boxes %v, want an error", bad, bs)
		}
	}
}

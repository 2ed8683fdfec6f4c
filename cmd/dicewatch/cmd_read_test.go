package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/dicewatch/dicewatch/vision"
)

// TestReadWarnsWithoutFaceNet: when the built-in face net did not load,
// `dicewatch read` says so on stderr and still reads every image, and a
// file that is not an image gets its own error line.
func TestReadWarnsWithoutFaceNet(t *testing.T) {
	photo := "../../testdata/photos/byler_d6/images/IMG_20191208_111228.jpg"
	for _, broken := range []bool{false, true} {
		saved := faceNetError
		if broken {
			faceNetError = func() error { return errors.New("damaged net") }
		}
		var out, errOut bytes.Buffer
		code := cmdRead([]string{"--json", photo, "cmd_read_test.go"}, nil, &out, &errOut)
		faceNetError = saved
		if code != 1 {
			t.Fatalf("broken=%v: exit %d, want 1 (one file is no image)", broken, code)
		}
		warned := strings.Contains(errOut.String(), "face net did not load") && strings.Contains(errOut.String(), "damaged net")
		if warned != broken {
			t.Errorf("broken=%v: stderr %q", broken, errOut.String())
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if len(lines) != 2 {
			t.Fatalf("broken=%v: %d lines, want 2: %q", broken, len(lines), out.String())
		}
		var first readLine
		if err := json.Unmarshal([]byte(lines[0]), &first); err != nil || len(first.Dice) == 0 {
			t.Errorf("broken=%v: first line %q (err %v), want dice", broken, lines[0], err)
		}
		var second readError
		if err := json.Unmarshal([]byte(lines[1]), &second); err != nil || second.Error == "" {
			t.Errorf("broken=%v: second line %q, want an error line", broken, lines[1])
		}
	}
}

// TestReadWarnsWithoutCockNet: when the built-in cocked net did not load,
// `dicewatch read` says so on stderr and still reads.
func TestReadWarnsWithoutCockNet(t *testing.T) {
	photo := "../../testdata/photos/byler_d6/images/IMG_20191208_111228.jpg"
	for _, broken := range []bool{false, true} {
		saved := cockNetError
		if broken {
			cockNetError = func() error { return errors.New("damaged cocked net") }
		}
		var out, errOut bytes.Buffer
		code := cmdRead([]string{"--json", photo}, nil, &out, &errOut)
		cockNetError = saved
		if code != 0 {
			t.Fatalf("broken=%v: exit %d, want 0", broken, code)
		}
		warned := strings.Contains(errOut.String(), "cocked net did not load") && strings.Contains(errOut.String(), "damaged cocked net")
		if warned != broken {
			t.Errorf("broken=%v: stderr %q", broken, errOut.String())
		}
	}
}

// readJSON runs `dicewatch read --json` with args on one photo and
// returns its dice, each as the raw JSON object and as a readDie.
func readJSON(t *testing.T, args ...string) ([]map[string]any, []readDie) {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := cmdRead(append([]string{"--json"}, args...), nil, &out, &errOut); code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errOut.String())
	}
	var raw struct{ Dice []map[string]any }
	var line readLine
	if err := json.Unmarshal(out.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out.Bytes(), &line); err != nil {
		t.Fatal(err)
	}
	return raw.Dice, line.Dice
}

// TestReadJSONSizeFields: each die in `dicewatch read --json` carries the
// issue's fields and its flatness and size ratio, the reader's own rounded
// to 3 places (read here with the same options); --pip-spread reaches the
// reader (with --die-px, the pips size the dice they read: the size ratios
// move).
func TestReadJSONSizeFields(t *testing.T) {
	photo := "../../testdata/photos/byler_d6/images/IMG_20191208_111228.jpg"
	var plain []readDie
	for _, opts := range []vision.ReaderOptions{{}, {DiePx: 40}, {DiePx: 40, PipSpread: 0.27}} {
		args := []string{}
		if opts.DiePx > 0 {
			args = append(args, "--die-px", fmt.Sprint(opts.DiePx))
		}
		if opts.PipSpread > 0 {
			args = append(args, "--pip-spread", fmt.Sprint(opts.PipSpread))
		}
		raw, dice := readJSON(t, append(args, photo)...)
		rd := vision.NewReader(opts)
		want, err := rd.ReadFile(photo)
		rd.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(dice) != len(want) || len(dice) == 0 {
			t.Fatalf("%v: %d dice, the reader %d", args, len(dice), len(want))
		}
		for i, d := range dice {
			for _, k := range []string{"value", "box", "confidence", "flat", "flatness", "size_ratio"} {
				if _, ok := raw[i][k]; !ok {
					t.Errorf("%v: die %d has no %q: %v", args, i, k, raw[i])
				}
			}
			w := want[i]
			if d.Box != [4]int{w.Box.Min.X, w.Box.Min.Y, w.Box.Max.X, w.Box.Max.Y} ||
				d.Flatness != math.Round(w.Flatness*1000)/1000 || d.SizeRatio != math.Round(w.SizeRatio*1000)/1000 {
				t.Errorf("%v: die %d %+v, the reader's box %v flatness %g size ratio %g", args, i, d, w.Box, w.Flatness, w.SizeRatio)
			}
			if d.SizeRatio <= 0 || d.Flatness <= 0 {
				t.Errorf("%v: die %d flatness %g size ratio %g, want both measured", args, i, d.Flatness, d.SizeRatio)
			}
		}
		switch {
		case opts.DiePx == 0:
			plain = dice
		case opts.PipSpread == 0:
			plain = dice
		default:
			moved := 0
			for i := range dice {
				if i < len(plain) && dice[i].SizeRatio != plain[i].SizeRatio {
					moved++
				}
			}
			if moved == 0 {
				t.Errorf("--pip-spread moved no size ratio (%d dice)", len(dice))
			}
		}
	}
}

// TestReadPipSpreadChecked: an implausible --pip-spread, or one without
// --die-px (it would change nothing), is a usage error.
func TestReadPipSpreadChecked(t *testing.T) {
	photo := "../../testdata/photos/byler_d6/images/IMG_20191208_111228.jpg"
	for _, args := range [][]string{
		{"--die-px", "60", "--pip-spread", "4.5", photo},
		{"--die-px", "60", "--pip-spread", "-0.27", photo},
		{"--pip-spread", "0.27", photo},
	} {
		var out, errOut bytes.Buffer
		if code := cmdRead(args, nil, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "pip-spread") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and the flag named", args, code, errOut.String())
		}
		if out.Len() != 0 {
			t.Errorf("%v: read anyway: %q", args, out.String())
		}
	}
}

// TestReadViewTilt: --view-tilt takes a plausible angle and refuses any
// other with exit 2 and the reason.
func TestReadViewTilt(t *testing.T) {
	photo := "../../testdata/photos/byler_d6/images/IMG_20191208_111228.jpg"
	for _, tc := range []struct {
		arg  string
		code int
		err  string
	}{
		{"75", 2, `"75" is not a view off vertical of 0..60 degrees`},
		{"-1", 2, `"-1" is not a view off vertical`},
		{"steep", 2, `"steep" is not a view off vertical`},
		{"0", 0, ""},
		{"20", 0, ""},
	} {
		var out, errOut bytes.Buffer
		code := cmdRead([]string{"--json", "--view-tilt", tc.arg, photo}, nil, &out, &errOut)
		if code != tc.code || !strings.Contains(errOut.String(), tc.err) {
			t.Errorf("--view-tilt %s: exit %d, stderr %q; want exit %d with %q", tc.arg, code, errOut.String(), tc.code, tc.err)
		}
		if tc.code == 0 && !strings.Contains(out.String(), `"dice":[{`) {
			t.Errorf("--view-tilt %s: no dice read: %q", tc.arg, out.String())
		}
	}
}

// TestReadJSONIntoCalibrateBoxes: `dicewatch read --json IMAGE | dicewatch
// calibrate -calibration FILE -locate -boxes -`, as the README writes it.
// read prints each box as [x0,y0,x1,y1]; until session 21 calibrate took
// only image.Rectangle's {"Min":..,"Max":..} and stopped with "cannot
// unmarshal array".
func TestReadJSONIntoCalibrateBoxes(t *testing.T) {
	photo := "../../testdata/photos/byler_d6/images/IMG_20191208_112645.jpg"
	var out, errb bytes.Buffer
	if code := cmdRead([]string{"--json", photo}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("read exit %d: %s", code, errb.String())
	}
	var res struct {
		Dice []struct {
			Box [4]int `json:"box"`
		} `json:"dice"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || len(res.Dice) == 0 {
		t.Fatalf("read --json %s: %v dice, err %v", out.String(), len(res.Dice), err)
	}
	var loc bytes.Buffer
	errb.Reset()
	args := []string{"-calibration", "../../testdata/calibration/valid-template-craps12.yaml", "-locate", "-boxes", "-"}
	if code := cmdCalibrate(args, bytes.NewReader(out.Bytes()), &loc, &errb); code != 0 {
		t.Fatalf("calibrate -boxes - on read's output: exit %d: %s", code, errb.String())
	}
	for i, d := range res.Dice {
		want := fmt.Sprintf("box %d [%d,%d %d,%d]:", i, d.Box[0], d.Box[1], d.Box[2], d.Box[3])
		if !strings.Contains(loc.String(), want) {
			t.Errorf("locate output lacks %q:\n%s", want, loc.String())
		}
	}
}

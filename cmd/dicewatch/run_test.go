package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/dicewatch/dicewatch/calibration"
)

// writeCalibration writes a plausible calibration: 1 px = 2 mm over the
// 12-foot craps template.
func writeCalibration(t *testing.T, dir string) string {
	t.Helper()
	table, zones := calibration.Craps12Zones()
	c := calibration.Calibration{
		Version: calibration.Version, Camera: calibration.Camera{Width: 1920, Height: 1080},
		Homography:   [9]float64{2, 0, 0, 0, 2, 0, 0, 0, 1},
		TablePolygon: table, Zones: zones, Die: calibration.Die{EdgeMM: 19},
	}
	b, err := yaml.Marshal(&c)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "calibration.yaml")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := calibration.Load(p); err != nil {
		t.Fatalf("test calibration does not load: %v", err)
	}
	return p
}

func TestConfigCheck(t *testing.T) {
	dir := t.TempDir()
	cal := writeCalibration(t, dir)
	good := filepath.Join(dir, "good.yaml")
	os.WriteFile(good, []byte("table: t1\ncamera:\n  source: v4l2:///dev/video0\ncalibration: "+cal+
		"\njournal:\n  dir: "+dir+"/j\nmqtt:\n  broker: tcp://127.0.0.1:1883\n"), 0o644)
	held := filepath.Join(dir, "held.yaml")
	os.WriteFile(held, []byte("table: t1\ncamera:\n  source: v4l2:///dev/video0\ncalibration: "+cal+
		"\njournal:\n  dir: "+dir+"/j\n  hold_dir: "+dir+"/held\nmqtt:\n  broker: tcp://127.0.0.1:1883\n"), 0o644)
	missingCal := filepath.Join(dir, "nocal.yaml")
	os.WriteFile(missingCal, []byte("table: t1\ncamera:\n  source: v4l2:///dev/video0\ncalibration: "+dir+
		"/none.yaml\njournal:\n  dir: "+dir+"/j\nmqtt:\n  broker: tcp://127.0.0.1:1883\n"), 0o644)

	tests := []struct {
		name     string
		args     []string
		code     int
		stdout   string
		stderrIn []string
		stderrNo string
	}{
		{"good file", []string{"run", "--config", good, "--config.check"}, 0, "config OK\n", []string{"note: journal.hold_dir is not set"}, ""},
		{"good file with hold_dir", []string{"run", "--config", held, "--config.check"}, 0, "config OK\n", nil, "hold_dir"},
		{"flag form without run", []string{"--config", good, "--config.check"}, 0, "config OK\n", nil, ""},
		{"misspelled key is named with its line", []string{"run", "--config", "../../config/testdata/invalid-misspelled-key.yaml", "--config.check"}, 1, "",
			[]string{"line 4: camera.fsp: unknown key"}, ""},
		{"every problem is listed", []string{"run", "--config", "../../config/testdata/invalid-out-of-range.yaml", "--config.check"}, 1, "",
			[]string{"12 problem(s)", "camera.fps", "vision.pip_spread", "log.format"}, ""},
		{"missing calibration file", []string{"run", "--config", missingCal, "--config.check"}, 1, "",
			[]string{"none.yaml"}, ""},
		{"missing config file", []string{"run", "--config", dir + "/absent.yaml", "--config.check"}, 1, "",
			[]string{"absent.yaml"}, ""},
		{"unknown command", []string{"frobnicate"}, 2, "", []string{`unknown command "frobnicate"`}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := dispatch(tc.args, strings.NewReader(""), &out, &errb)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstderr: %s", code, tc.code, errb.String())
			}
			if out.String() != tc.stdout {
				t.Errorf("stdout %q, want %q", out.String(), tc.stdout)
			}
			if tc.stderrNo != "" && strings.Contains(errb.String(), tc.stderrNo) {
				t.Errorf("stderr has %q:\n%s", tc.stderrNo, errb.String())
			}
			for _, s := range tc.stderrIn {
				if !strings.Contains(errb.String(), s) {
					t.Errorf("stderr lacks %q:\n%s", s, errb.String())
				}
			}
		})
	}
}

func TestVersion(t *testing.T) {
	var out bytes.Buffer
	if code := dispatch([]string{"version"}, nil, &out, &out); code != 0 || !strings.HasPrefix(out.String(), "dicewatch ") {
		t.Fatalf("version: exit %d, output %q", code, out.String())
	}
}

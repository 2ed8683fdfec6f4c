package config

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden .err files from the current output")

// TestInvalidConfigs checks every rejection against its exact error text,
// kept beside each testdata/invalid-*.yaml as invalid-*.err.
func TestInvalidConfigs(t *testing.T) {
	files, err := filepath.Glob("testdata/invalid-*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no invalid configs found: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			_, err := Load(f)
			if err == nil {
				t.Fatal("accepted an invalid config")
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("error does not match ErrInvalid: %v", err)
			}
			golden := strings.TrimSuffix(f, ".yaml") + ".err"
			got := err.Error() + "\n"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, rerr := os.ReadFile(golden)
			if rerr != nil {
				t.Fatalf("missing golden %s (run go test ./config -update): %v", golden, rerr)
			}
			if got != string(want) {
				t.Errorf("error text changed\n got: %s\nwant: %s", got, want)
			}
		})
	}
}

func TestMisspelledKeyIsNamed(t *testing.T) {
	_, err := Load("testdata/invalid-misspelled-key.yaml")
	if err == nil || !strings.Contains(err.Error(), "line 4: camera.fsp: unknown key") {
		t.Fatalf("want the misspelled key named with its line, got %v", err)
	}
}

func TestValidConfigs(t *testing.T) {
	files, _ := filepath.Glob("testdata/valid-*.yaml")
	ex, _ := filepath.Glob("../examples/*.yaml")
	for _, f := range append(files, ex...) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			c, err := Load(f)
			if err != nil {
				t.Fatal(err)
			}
			if c.Hash() == "" {
				t.Error("empty config hash")
			}
			if c.Vision.SettleMS > 300 {
				t.Errorf("settle window %d ms over the 300 ms limit", c.Vision.SettleMS)
			}
		})
	}
}

func TestDefaults(t *testing.T) {
	c, err := Load("testdata/valid-minimal.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if c.MQTT.Prefix != "dicewatch/craps-01/" {
		t.Errorf("prefix %q, want dicewatch/craps-01/", c.MQTT.Prefix)
	}
	if c.Vision.SettleMS != 300 || c.Camera.FPS != 30 || c.MQTT.QoS != 1 {
		t.Errorf("defaults not applied: %+v", c)
	}
}

package calibration_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dicewatch/dicewatch/calibration"
	"github.com/dicewatch/dicewatch/calibration/caltest"
)

var update = flag.Bool("update", false, "rewrite generated testdata and golden files")

const testdataDir = "../testdata/calibration"

// TestWriteTemplates writes a valid calibration per template (the exact
// homography of the generated camera) with -update, and checks they load.
func TestTemplateFiles(t *testing.T) {
	for _, name := range calibration.TemplateNames() {
		t.Run(name, func(t *testing.T) {
			c, _, err := caltest.Calibration(name)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(testdataDir, "valid-template-"+name+".yaml")
			if *update {
				if err := c.Save(path); err != nil {
					t.Fatal(err)
				}
			}
			got, err := calibration.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			if got.Hash() != c.Hash() {
				t.Errorf("%s: hash %s, want %s (run with -update)", path, got.Hash(), c.Hash())
			}
		})
	}
}

func TestValidFiles(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(testdataDir, "valid-*.yaml"))
	if len(files) < 2 {
		t.Fatalf("found %d valid files", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			c, err := calibration.Load(f)
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Hash()) != 16 {
				t.Errorf("hash %q", c.Hash())
			}
		})
	}
}

// TestInvalidFiles: every invalid-*.yaml is refused with the exact text in
// its .err file.
func TestInvalidFiles(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(testdataDir, "invalid-*.yaml"))
	if len(files) < 10 {
		t.Fatalf("found %d invalid files", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			errFile := strings.TrimSuffix(f, ".yaml") + ".err"
			_, err := calibration.Load(f)
			if err == nil {
				t.Fatal("loaded, want an error")
			}
			if *update {
				if err := os.WriteFile(errFile, []byte(err.Error()+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, rerr := os.ReadFile(errFile)
			if rerr != nil {
				t.Fatal(rerr)
			}
			if got := err.Error(); got != strings.TrimSpace(string(want)) {
				t.Errorf("error\n got: %s\nwant: %s", got, strings.TrimSpace(string(want)))
			}
		})
	}
}

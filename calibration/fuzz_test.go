package calibration_test

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/dicewatch/dicewatch/calibration"
)

// FuzzParse: the parser never panics; whatever it accepts survives a
// save/load round trip with the same hash and the same view of the table,
// and can be queried: the view's angle is NaN when the view is not known
// (or, with a lens warning, where the lens model does not reach), else
// 0..90 degrees.
// Seeds: every file in testdata/calibration plus the checked-in corpus in
// testdata/fuzz/FuzzParse. CI: go test -run '^$' -fuzz '^FuzzParse$' -fuzztime 60s ./calibration/
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(testdataDir, "*.yaml"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := calibration.Parse(b)
		if err != nil {
			if c != nil {
				t.Fatal("error with a calibration")
			}
			return
		}
		out, err := c.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		d, err := calibration.Parse(out)
		if err != nil {
			t.Fatalf("accepted input does not reload: %v\n%s", err, out)
		}
		if d.Hash() != c.Hash() {
			t.Fatalf("hash changed over a round trip: %s -> %s", c.Hash(), d.Hash())
		}
		if d.View() != c.View() {
			t.Fatalf("view changed over a round trip: %s -> %s", c.View(), d.View())
		}
		for _, p := range []calibration.Point{{X: 0, Y: 0}, {X: float64(c.Camera.Width) / 2, Y: float64(c.Camera.Height) / 2}} {
			_ = c.ZoneAt(c.ToTable(p))
			_ = c.DiePx(p)
			v := c.ViewTiltDeg(p)
			// NaN with a known view only where the lens model does not
			// reach (then the file loads with a lens warning).
			unknown := c.View().Source == calibration.ViewUnknown
			if unknown && !math.IsNaN(v) || !unknown && math.IsNaN(v) && c.LensWarning() == "" || !math.IsNaN(v) && !(v >= 0 && v <= 90) {
				t.Fatalf("view at %v: %g deg with the view %s", p, v, c.View())
			}
		}
	})
}

package calibration_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/dicewatch/dicewatch/calibration"
	"github.com/dicewatch/dicewatch/calibration/caltest"
)

// TestSaveReadableByTheDaemon: `dicewatch calibrate`, run as root to write
// /etc/dicewatch/calibration.yaml, must leave a file the daemon's own user
// can read: a new file is 0644, and a file replaced keeps the mode a
// technician gave it. Before, every save made it 0600 (the temporary
// file's mode), and the daemon, running as dicewatch, failed to start
// ("calibration: open ...: permission denied"), as did the README's
// `sudo -u dicewatch dicewatch run --config ... --config.check`.
func TestSaveReadableByTheDaemon(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows files have no Unix mode")
	}
	c, _, err := caltest.Calibration(calibration.TemplatePaiGow)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "cal.yaml")
	if err := c.Save(path); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("a new calibration file: %v %v, want mode 0644", fi.Mode(), err)
	}
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := c.Save(path); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o640 {
		t.Fatalf("a calibration file saved over one of mode 0640: %v %v, want it kept", fi.Mode(), err)
	}
}

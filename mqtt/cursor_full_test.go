package mqtt

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dicewatch/dicewatch/journal"
	"github.com/dicewatch/dicewatch/journal/journaltest"
)

// TestCursorSavedOnFullDisk: with the state folder's disk full (a real
// tmpfs), the acknowledged cursor is still saved (over the old one, no new
// file needed), no temporary file is left, and the failure is not logged at
// every acknowledgement. Before, the cursor stayed at the last value saved
// with room, so a restart sent everything since then again, and each save
// logged an error.
func TestCursorSavedOnFullDisk(t *testing.T) {
	j, err := journal.Open(t.TempDir(), journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	state := journaltest.SmallDisk(t, "256k")
	var logs bytes.Buffer
	p := &Publisher{cfg: Config{StateDir: state}, j: j, log: slog.New(slog.NewTextHandler(&logs, nil))}
	path := filepath.Join(state, cursorFile)
	p.acked = 5
	p.saveCursor()
	if got, err := loadCursor(path, j.Epoch()); err != nil || got != 5 {
		t.Fatalf("cursor with room: %d, %v", got, err)
	}
	if err := journaltest.Fill(filepath.Join(state, "filler")); err != nil {
		t.Fatal(err)
	}
	for _, seq := range []uint64{9, 123456, 123457} {
		p.acked = seq
		p.saveCursor()
		if got, err := loadCursor(path, j.Epoch()); err != nil || got != seq {
			t.Errorf("cursor on a full disk: %d (%v), want %d", got, err, seq)
		}
	}
	if _, err := os.Stat(path + ".tmp"); !os.IsNotExist(err) {
		t.Errorf("temporary cursor file left on the full disk: %v", err)
	}
	if n := strings.Count(logs.String(), "save acknowledged cursor"); n > 1 {
		t.Errorf("the failing save logged %d times, want at most once:\n%s", n, logs.String())
	}
}

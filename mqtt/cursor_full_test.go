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

// TestCursorTornWrite: a cursor overwritten in place (the full-disk path)
// and cut short by a crash mixes the new digits with the old: 19999 ->
// 20000 cut after its first byte reads 29999, a cursor ahead of what the
// broker acknowledged, and a restart would skip records never sent. The
// line's checksum makes such a cursor 0 (everything sent again); a whole
// line, old or new, and a line written before the checksum still load.
func TestCursorTornWrite(t *testing.T) {
	const epoch = "e1"
	path := filepath.Join(t.TempDir(), cursorFile)
	write := func(s string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old, next := cursorLine(19999, epoch), cursorLine(20000, epoch)
	for _, c := range []struct {
		name, text string
		want       uint64
	}{
		{"old line", old, 19999},
		{"new line", next, 20000},
		{"new line torn after one byte", next[:1] + old[1:], 0},
		{"new line torn after three bytes", next[:3] + old[3:], 0},
		{"line without checksum (before it)", "19999 " + epoch + "\n", 19999},
		{"another journal", cursorLine(19999, "e2"), 0},
		{"checksum damaged", old[:len(old)-2] + "x\n", 0},
	} {
		write(c.text)
		if got, err := loadCursor(path, epoch); err != nil || got != c.want {
			t.Errorf("%s (%q): %d, %v; want %d", c.name, c.text, got, err, c.want)
		}
	}
}

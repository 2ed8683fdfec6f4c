package main

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dicewatch/dicewatch/journal"
)

// TestJournalCheckSegmentCutShort: `journal check` on a journal whose
// first segment lost its last records at a frame boundary says which
// seqs are missing and exits 1 (review22j; it said OK and exited 0), and
// `journal repair` then leaves a journal check passes.
func TestJournalCheckSegmentCutShort(t *testing.T) {
	dir := t.TempDir()
	j, err := journal.Open(dir, journal.Options{SegmentBytes: 1024})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 30; i++ {
		if _, err := j.Append("roll", time.Unix(1700000000, 0), map[string]any{"n": i}); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	segs, _ := filepath.Glob(filepath.Join(dir, "seg-*.log"))
	if len(segs) < 2 {
		t.Fatalf("%d segment(s), want several", len(segs))
	}
	b, err := os.ReadFile(segs[0])
	if err != nil {
		t.Fatal(err)
	}
	// Cut the first segment after its first record (a frame boundary).
	first := 8 + int(binary.LittleEndian.Uint32(b[0:4]))
	if err := os.WriteFile(segs[0], b[:first], 0o640); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := cmdJournal([]string{"check", "--journal", dir}, nil, &out, &errb); code != 1 || !strings.Contains(out.String(), "missing") {
		t.Fatalf("check: status %d, output:\n%s%s\nwant 1 and the missing seqs", code, out.String(), errb.String())
	}
	out.Reset()
	if code := cmdJournal([]string{"repair", "--journal", dir}, nil, &out, &errb); code != 0 {
		t.Fatalf("repair: status %d: %s%s", code, out.String(), errb.String())
	}
	out.Reset()
	if code := cmdJournal([]string{"check", "--journal", dir}, nil, &out, &errb); code != 0 {
		t.Fatalf("check after repair: status %d: %s%s", code, out.String(), errb.String())
	}
}

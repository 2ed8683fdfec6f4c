package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
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
	smallSegmentsJournal(t, dir)
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

// TestJournalReportWriteFails: `journal check` and `journal repair` whose
// report cannot be written (stdout a full disk, /dev/full, or a pipe whose
// reader has gone) say so on stderr and exit 74, not with the status of a
// report nobody got (until ops23 writeJSON and the text report dropped
// their errors: check exited 0 with an empty report). A repair whose
// report fails has still repaired the journal; check then says so. As a
// process, with stdout on /dev/full, the same.
func TestJournalReportWriteFails(t *testing.T) {
	dir := t.TempDir()
	smallSegmentsJournal(t, dir)
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no /dev/full: %v", err)
	}
	defer full.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	defer w.Close()
	for _, out := range []*os.File{full, w} {
		for _, args := range [][]string{{"check", "--journal", dir}, {"check", "--json", "--journal", dir}} {
			var errb bytes.Buffer
			if code := cmdJournal(args, nil, out, &errb); code != exitOutput || !strings.Contains(errb.String(), "could not be written") {
				t.Errorf("%v to %s: status %d, stderr %q; want %d and the write's error", args, out.Name(), code, errb.String(), exitOutput)
			}
		}
	}
	// Damage a record in the first segment; repair, its report lost.
	segs, _ := filepath.Glob(filepath.Join(dir, "seg-*.log"))
	b, err := os.ReadFile(segs[0])
	if err != nil {
		t.Fatal(err)
	}
	b[20] ^= 0x20
	if err := os.WriteFile(segs[0], b, 0o640); err != nil {
		t.Fatal(err)
	}
	var errb bytes.Buffer
	if code := cmdJournal([]string{"repair", "--journal", dir}, nil, full, &errb); code != exitOutput || !strings.Contains(errb.String(), "dicewatch journal check") {
		t.Errorf("repair to /dev/full: status %d, stderr %q; want %d, pointing to check", code, errb.String(), exitOutput)
	}
	var outb bytes.Buffer
	if code := cmdJournal([]string{"check", "--journal", dir}, nil, &outb, &errb); code != 0 {
		t.Errorf("check after the repair: status %d:\n%s", code, outb.String())
	}

	// As a process: stdout on /dev/full.
	cmd := dicewatchProcess(t, "journal", "check", "--journal", dir)
	cmd.Stdout = full
	var perr bytes.Buffer
	cmd.Stderr = &perr
	err = cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != exitOutput {
		t.Errorf("dicewatch journal check >/dev/full: %v (stderr %q), want status %d", err, perr.String(), exitOutput)
	}
}

// TestJournalCheckMissingID: `journal check` on a journal that holds
// records and lost journal.id reports it and exits 1 (until ops23 it said
// OK, exit 0, and the next start made a new id); `journal repair` writes
// it again from the records' ids, and check then passes.
func TestJournalCheckMissingID(t *testing.T) {
	dir := t.TempDir()
	j, err := journal.Open(dir, journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := j.Append("roll", time.Unix(1700000000, 0), map[string]any{"n": 1})
	if err != nil {
		t.Fatal(err)
	}
	j.Close()
	if err := os.Remove(filepath.Join(dir, "journal.id")); err != nil {
		t.Fatal(err)
	}
	epoch := j.Epoch()
	var out, errb bytes.Buffer
	if code := cmdJournal([]string{"check", "--journal", dir}, nil, &out, &errb); code != 1 || !strings.Contains(out.String(), "journal.id is missing") || !strings.Contains(out.String(), epoch) {
		t.Fatalf("check: status %d, output:\n%s%s\nwant 1, journal.id missing, naming %s", code, out.String(), errb.String(), epoch)
	}
	out.Reset()
	if code := cmdJournal([]string{"repair", "--journal", dir}, nil, &out, &errb); code != 0 || !strings.Contains(out.String(), "journal.id written again") {
		t.Fatalf("repair: status %d: %s%s", code, out.String(), errb.String())
	}
	if b, err := os.ReadFile(filepath.Join(dir, "journal.id")); err != nil || strings.TrimSpace(string(b)) != epoch {
		t.Errorf("journal.id after repair %q %v, want %s (record %s)", b, err, epoch, rec.ID)
	}
	out.Reset()
	if code := cmdJournal([]string{"check", "--journal", dir}, nil, &out, &errb); code != 0 {
		t.Fatalf("check after repair: status %d: %s%s", code, out.String(), errb.String())
	}
}

// smallSegmentsJournal writes 30 roll records in 1 KiB segments to the
// journal in dir and closes it.
func smallSegmentsJournal(t *testing.T, dir string) {
	t.Helper()
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
}

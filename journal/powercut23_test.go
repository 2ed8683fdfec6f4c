package journal

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPowerCutAtEveryByteOfLastRecord: a power cut while the newest
// record is written (before its fdatasync returned, so it was never
// published) leaves the segment, on a real file, cut at any byte of the
// record's frame, header included. Every such start must cut the record
// and go on with its seq: refusing it (ErrCorrupt, status 65, which
// systemd does not restart) would leave the table down after a plain
// power cut.
func TestPowerCutAtEveryByteOfLastRecord(t *testing.T) {
	base := t.TempDir()
	markedJournal(t, base, 6) // one segment
	p, b, at := segmentHolding(t, base, "rec-06")
	s := frameStart(t, b, at)
	name := filepath.Base(p)
	for k := s; k < len(b); k++ {
		dir := copyJournal(t, base, name, b[:k])
		expectCut(t, dir, fmt.Sprintf("cut at byte %d of the frame", k-s), 6)
	}
}

// TestPowerCutLeavesHeaderBlockUnwritten: a power cut can leave the
// newest record's frame at its full length with the block that holds its
// head (the header, or its first bytes) not written, which reads as
// zeros up to the block's end, and the next block, with the rest of the
// JSON, written. The record was never synced; notTorn's whole-JSON rule
// (ops23) refused it as a damaged length header, and the daemon did not
// start again (review23o). Zeros at the frame's head that end at a sector
// boundary are cut as torn, for every place the boundary can fall in the
// header; zeros that end elsewhere are damage, still refused.
func TestPowerCutLeavesHeaderBlockUnwritten(t *testing.T) {
	for z := 1; z <= headerLen; z++ {
		dir := t.TempDir()
		p, b, s := lastFrameAt(t, dir, sectorBytes-int64(z))
		clear(b[s : s+z])
		if err := os.WriteFile(p, b, 0o640); err != nil {
			t.Fatal(err)
		}
		expectCut(t, dir, fmt.Sprintf("the first %d bytes of the frame zero, up to offset %d", z, sectorBytes), 3)
	}
	// The same zeros, not ending at a sector boundary: damage.
	dir := t.TempDir()
	p, b, s := lastFrameAt(t, dir, sectorBytes-10)
	clear(b[s : s+headerLen])
	if err := os.WriteFile(p, b, 0o640); err != nil {
		t.Fatal(err)
	}
	if j, err := Open(dir, Options{}); !errors.Is(err, ErrCorrupt) {
		if err == nil {
			j.Close()
		}
		t.Errorf("a zeroed header ending 2 bytes short of a sector boundary, the JSON whole after it: Open %v, want ErrCorrupt", err)
	}
}

// lastFrameAt writes a journal of 3 records in dir whose last frame
// starts at offset at of the one segment, and returns the segment's path,
// its bytes and at.
func lastFrameAt(t *testing.T, dir string, at int64) (string, []byte, int) {
	t.Helper()
	frame := func(n int, note string) int64 {
		probe := t.TempDir()
		j := mustOpen(t, probe, Options{})
		j.Append("roll", t0, body{N: n, Note: note})
		j.Close()
		p, _ := filepath.Glob(filepath.Join(probe, "seg-*.log"))
		info, err := os.Stat(p[0])
		if err != nil {
			t.Fatal(err)
		}
		return info.Size()
	}
	j := mustOpen(t, dir, Options{})
	defer j.Close()
	if _, err := j.Append("roll", t0, body{N: 1, Note: "a"}); err != nil {
		t.Fatal(err)
	}
	first := frame(1, "a")
	pad := at - first - frame(2, "")
	if pad < 1 {
		t.Fatalf("no room for a record between %d and %d", first, at)
	}
	if _, err := j.Append("roll", t0, body{N: 2, Note: strings.Repeat("x", int(pad)-len(`,"note":""`))}); err != nil {
		t.Fatal(err)
	}
	if _, err := j.Append("roll", t0, body{N: 3, Note: "last"}); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	p, b, i := segmentHolding(t, dir, `"note":"last"`)
	if s := frameStart(t, b, i); int64(s) != at {
		t.Fatalf("the last frame starts at %d, want %d", s, at)
	}
	return p, b, int(at)
}

// expectCut wants the newest record in dir taken for a torn write: by
// Check (no damage), and by Open, which cuts it (next seq next).
func expectCut(t *testing.T, dir, what string, next uint64) {
	t.Helper()
	// Check before the start: a torn tail, which is not damage.
	if rep, err := Check(dir); err != nil || rep.Damaged() {
		t.Errorf("%s: Check before Open: %+v %v, want no damage (a torn tail at most)", what, rep, err)
	}
	j, err := Open(dir, Options{})
	if err != nil {
		t.Errorf("%s: Open: %v, want the unsynced record cut", what, err)
		return
	}
	defer j.Close()
	if j.NextSeq() != next {
		t.Errorf("%s: next seq %d, want %d (the unsynced record cut)", what, j.NextSeq(), next)
	}
	if rep, err := Check(dir); err != nil || rep.Damaged() {
		t.Errorf("%s: Check after Open: %+v %v", what, rep, err)
	}
}

// TestPowerCutAtEveryByteOfFirstRecordOfSegment: the same for a record
// that opened a new segment (the roll), cut at every byte from none on.
func TestPowerCutAtEveryByteOfFirstRecordOfSegment(t *testing.T) {
	probe := t.TempDir()
	markedJournal(t, probe, 40)
	segs, _ := filepath.Glob(filepath.Join(probe, "seg-*.log"))
	if len(segs) < 2 {
		t.Fatalf("setup: %d segments", len(segs))
	}
	// The journal up to the newest segment's first record.
	b, err := os.ReadFile(segs[len(segs)-1])
	if err != nil {
		t.Fatal(err)
	}
	p, frameLen, ok := readFrame(b)
	var first Record
	if !ok || json.Unmarshal(p, &first) != nil || first.Seq < 2 {
		t.Fatal("setup: the newest segment does not start with a whole record")
	}
	full := t.TempDir()
	markedJournal(t, full, int(first.Seq))
	newest := filepath.Base(segs[len(segs)-1])
	for k := 0; k < frameLen; k++ {
		dir := copyJournal(t, full, newest, b[:k])
		expectCut(t, dir, fmt.Sprintf("new segment cut at byte %d of its first frame", k), first.Seq)
	}
}

// copyJournal copies the journal in from to a new folder, the file named
// name holding b instead of its bytes.
func copyJournal(t *testing.T, from, name string, b []byte) string {
	t.Helper()
	dir := t.TempDir()
	files, _ := filepath.Glob(filepath.Join(from, "*"))
	for _, f := range files {
		c, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Base(f) == name {
			c = b
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), c, 0o640); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

package journal

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dicewatch/dicewatch/journal/journaltest"
)

// TestAppendDiskFull fills the journal's file system for real: an append
// that does not fit fails with ErrNotWritten, takes no seq and leaves no
// partial record; every record before it stays durable and readable; the
// journal is not failed, so once there is room the next append gets the
// next seq; and the journal reopens with no torn tail to cut.
func TestAppendDiskFull(t *testing.T) {
	disk := journaltest.SmallDisk(t, "256k")
	dir := filepath.Join(disk, "journal")
	j := mustOpen(t, dir, Options{})
	// 64 KiB that are freed later, to make room again.
	if err := os.WriteFile(filepath.Join(disk, "reserve"), make([]byte, 64<<10), 0o600); err != nil {
		t.Fatal(err)
	}
	body := map[string]any{"event": "test", "pad": strings.Repeat("x", 600)}
	var written []Record
	var full error
	for i := 0; i < 2000; i++ {
		rec, err := j.Append("event", time.Unix(int64(i), 0), body)
		if err != nil {
			full = err
			break
		}
		written = append(written, rec)
	}
	if full == nil {
		t.Fatal("2000 records fit in 256 KiB")
	}
	if !errors.Is(full, ErrNotWritten) || !errors.Is(full, syscall.ENOSPC) {
		t.Fatalf("append on a full disk: %v; want ErrNotWritten wrapping ENOSPC", full)
	}
	t.Logf("%d records written, then: %v", len(written), full)
	// Fill what the last record left (a record still fits in the
	// segment's last page, so try ones over a page).
	if err := journaltest.Fill(filepath.Join(disk, "filler")); err != nil {
		t.Fatal(err)
	}
	big := map[string]any{"event": "big", "pad": strings.Repeat("y", 5000)}
	for i := 0; i < 3; i++ {
		if _, err := j.Append("event", time.Now(), big); !errors.Is(err, ErrNotWritten) {
			t.Fatalf("append %d on a full disk: %v; want ErrNotWritten", i, err)
		}
	}
	last := written[len(written)-1].Seq
	if j.LastSeq() != last || j.NextSeq() != last+1 {
		t.Fatalf("after the failed appends: last %d next %d; want %d and %d", j.LastSeq(), j.NextSeq(), last, last+1)
	}
	// Every record written before is there, in order, and nothing else.
	r := j.Reader(1)
	n := 0
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
		if rec.Seq != uint64(n) {
			t.Fatalf("record %d has seq %d", n, rec.Seq)
		}
	}
	r.Close()
	if n != len(written) {
		t.Fatalf("read %d records back, wrote %d", n, len(written))
	}
	// Room again: the journal goes on from the next seq.
	for _, f := range []string{"filler", "reserve"} {
		if err := os.Remove(filepath.Join(disk, f)); err != nil {
			t.Fatal(err)
		}
	}
	rec, err := j.Append("event", time.Now(), map[string]any{"event": "after"})
	if err != nil {
		t.Fatalf("append once there is room: %v", err)
	}
	if rec.Seq != last+1 {
		t.Fatalf("append once there is room got seq %d, want %d", rec.Seq, last+1)
	}
	if err := j.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	b, err := os.ReadFile(filepath.Join(dir, segName(1)))
	if err != nil {
		t.Fatal(err)
	}
	if good, next := scanBytes(b, 1, nil); good != int64(len(b)) || next != last+2 {
		t.Fatalf("the segment is %d bytes, %d of them good records up to seq %d; want all good, up to %d", len(b), good, next-1, last+1)
	}
	// Reopened, it holds exactly those records, none torn.
	j2 := mustOpen(t, dir, Options{})
	if j2.LastSeq() != last+1 {
		t.Fatalf("reopened: last seq %d, want %d", j2.LastSeq(), last+1)
	}
	got, ok, err := j2.LastOfKind("event", j2.LastSeq())
	if err != nil || !ok || !strings.Contains(string(got.Body), `"after"`) {
		t.Fatalf("reopened: newest event %s (%v, %v)", got.Body, ok, err)
	}
}

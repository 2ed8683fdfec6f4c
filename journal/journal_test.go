package journal

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 22, 7, 0, 0, 0, time.UTC)

type body struct {
	N    int    `json:"n"`
	Note string `json:"note,omitempty"`
}

func mustOpen(t *testing.T, dir string, o Options) *Journal {
	t.Helper()
	j, err := Open(dir, o)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { j.Close() })
	return j
}

func appendN(t *testing.T, j *Journal, n int) []Record {
	t.Helper()
	var out []Record
	for i := 0; i < n; i++ {
		r, err := j.Append("roll", t0.Add(time.Duration(i)*time.Second), body{N: i})
		if err != nil {
			t.Fatalf("Append %d: %v", i, err)
		}
		out = append(out, r)
	}
	return out
}

func readAll(t *testing.T, j *Journal, from uint64) []Record {
	t.Helper()
	r := j.Reader(from)
	defer r.Close()
	var out []Record
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		out = append(out, rec)
	}
}

func TestAppendAssignsSeqAndStableID(t *testing.T) {
	dir := t.TempDir()
	j := mustOpen(t, dir, Options{})
	recs := appendN(t, j, 5)
	for i, r := range recs {
		if r.Seq != uint64(i+1) {
			t.Errorf("record %d: seq %d, want %d", i, r.Seq, i+1)
		}
		if want := j.Epoch() + "-" + fmt.Sprint(i+1); r.ID != want {
			t.Errorf("record %d: id %q, want %q", i, r.ID, want)
		}
		if r.TS.Location() != time.UTC {
			t.Errorf("record %d: ts not UTC", i)
		}
	}
	j.Close()
	j2 := mustOpen(t, dir, Options{})
	got := readAll(t, j2, 1)
	if len(got) != 5 {
		t.Fatalf("after reopen read %d records, want 5", len(got))
	}
	for i := range got {
		if got[i].ID != recs[i].ID || string(got[i].Body) != string(recs[i].Body) || !got[i].TS.Equal(recs[i].TS) {
			t.Errorf("record %d changed across reopen: %+v vs %+v", i, got[i], recs[i])
		}
	}
	r, err := j2.Append("event", t0, map[string]string{"event": "x"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Seq != 6 {
		t.Errorf("seq after reopen %d, want 6", r.Seq)
	}
}

func TestAppendRejects(t *testing.T) {
	j := mustOpen(t, t.TempDir(), Options{})
	cases := []struct {
		name string
		kind string
		body any
	}{
		{"bad kind", "Roll!", body{}},
		{"empty kind", "", body{}},
		{"not an object", "roll", []int{1, 2}},
		{"null", "roll", nil},
		{"reserved seq", "roll", map[string]int{"seq": 3}},
		{"reserved id", "roll", map[string]string{"id": "x"}},
		{"reserved ts", "roll", map[string]string{"ts": "x"}},
		{"raw garbage", "roll", json.RawMessage(`{"a":`)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := j.Append(c.kind, t0, c.body); err == nil {
				t.Errorf("Append accepted %v", c.body)
			}
		})
	}
	if j.NextSeq() != 1 {
		t.Errorf("rejected appends consumed seqs: next %d", j.NextSeq())
	}
}

func TestExclusiveLock(t *testing.T) {
	dir := t.TempDir()
	mustOpen(t, dir, Options{})
	if _, err := Open(dir, Options{}); !errors.Is(err, ErrLocked) {
		t.Fatalf("second Open: %v, want ErrLocked", err)
	}
}

func lastSegment(t *testing.T, dir string) string {
	t.Helper()
	segs, err := listSegments(dir)
	if err != nil || len(segs) == 0 {
		t.Fatalf("segments: %v %d", err, len(segs))
	}
	return segs[len(segs)-1].path
}

// TestTornTail cuts or damages the tail at many places; Open must succeed,
// keep every complete record, and continue the seq without a gap.
func TestTornTail(t *testing.T) {
	src := t.TempDir()
	j, err := Open(src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	appendN(t, j, 4)
	j.Close()
	seg := lastSegment(t, src)
	full, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	good3, _ := scanBytes(full, 1, nil)
	// offset where record 4 starts
	var ends []int64
	{
		off := 0
		for off < len(full) {
			_, n, _ := readFrame(full[off:])
			off += n
			ends = append(ends, int64(off))
		}
	}
	if good3 != int64(len(full)) || len(ends) != 4 {
		t.Fatalf("setup: good %d len %d ends %v", good3, len(full), ends)
	}
	start4 := ends[2]
	type tc struct {
		name    string
		mutate  func([]byte) []byte
		wantRec int
	}
	cases := []tc{
		{"intact", func(b []byte) []byte { return b }, 4},
		{"garbage appended", func(b []byte) []byte { return append(b, 0xde, 0xad, 0xbe) }, 4},
		{"zeros appended", func(b []byte) []byte { return append(b, make([]byte, 64)...) }, 4},
		// The last record whole in length, failing its checksum: damaged
		// after it was written and synced, not torn; Open refuses (-1)
		// rather than give its seq to a new record (review22j).
		{"flip crc of last", func(b []byte) []byte { b[start4+5] ^= 0xff; return b }, -1},
		{"flip payload of last", func(b []byte) []byte { b[len(b)-3] ^= 0x01; return b }, -1},
		// The last record's length header damaged, its JSON whole after
		// it: not torn either; Open refuses (until ops23 it was cut).
		{"huge length", func(b []byte) []byte { b[start4+3] = 0x7f; return b }, -1},
		{"all zero", func(b []byte) []byte { return make([]byte, len(b)) }, 0},
	}
	for cut := start4; cut < int64(len(full)); cut += 7 {
		c := cut
		cases = append(cases, tc{fmt.Sprintf("cut at %d", c), func(b []byte) []byte { return b[:c] }, 3})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, n := range []string{"journal.id", filepath.Base(seg)} {
				b, err := os.ReadFile(filepath.Join(src, n))
				if err != nil {
					t.Fatal(err)
				}
				if n != "journal.id" {
					b = c.mutate(append([]byte(nil), b...))
				}
				if err := os.WriteFile(filepath.Join(dir, n), b, 0o640); err != nil {
					t.Fatal(err)
				}
			}
			if c.wantRec < 0 {
				if j, err := Open(dir, Options{}); !errors.Is(err, ErrCorrupt) {
					if err == nil {
						j.Close()
					}
					t.Fatalf("Open: %v, want ErrCorrupt", err)
				}
				return
			}
			j := mustOpen(t, dir, Options{})
			got := readAll(t, j, 1)
			if len(got) != c.wantRec {
				t.Fatalf("recovered %d records, want %d", len(got), c.wantRec)
			}
			r, err := j.Append("roll", t0, body{N: 99})
			if err != nil {
				t.Fatal(err)
			}
			if r.Seq != uint64(c.wantRec+1) {
				t.Errorf("next seq %d, want %d", r.Seq, c.wantRec+1)
			}
			j.Close()
			j2 := mustOpen(t, dir, Options{})
			if n := len(readAll(t, j2, 1)); n != c.wantRec+1 {
				t.Errorf("after append and reopen: %d records, want %d", n, c.wantRec+1)
			}
		})
	}
}

func TestReaderAcrossSegmentsAndFrom(t *testing.T) {
	j := mustOpen(t, t.TempDir(), Options{SegmentBytes: 300})
	recs := appendN(t, j, 40)
	if n := len(j.segsCopy()); n < 5 {
		t.Fatalf("expected several segments, got %d", n)
	}
	for _, from := range []uint64{0, 1, 2, 17, 40, 41} {
		got := readAll(t, j, from)
		start := max(from, 1)
		want := recs[min(int(start)-1, len(recs)):]
		if len(got) != len(want) {
			t.Fatalf("from %d: %d records, want %d", from, len(got), len(want))
		}
		for i := range got {
			if got[i].Seq != want[i].Seq {
				t.Fatalf("from %d: record %d seq %d, want %d", from, i, got[i].Seq, want[i].Seq)
			}
		}
	}
	// A reader that caught up sees later appends.
	r := j.Reader(1)
	defer r.Close()
	for i := 0; i < 40; i++ {
		if _, err := r.Next(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("caught up: %v, want EOF", err)
	}
	ch := j.Changed()
	appendN(t, j, 1)
	select {
	case <-ch:
	default:
		t.Fatal("Changed not closed by Append")
	}
	rec, err := r.Next()
	if err != nil || rec.Seq != 41 {
		t.Fatalf("after append: %v %v", rec.Seq, err)
	}
}

func (j *Journal) segsCopy() []segment {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]segment(nil), j.segs...)
}

func TestRetentionNeverDropsUndelivered(t *testing.T) {
	now := t0
	j := mustOpen(t, t.TempDir(), Options{SegmentBytes: 300, MaxBytes: 1000, Now: func() time.Time { return now }})
	appendN(t, j, 30)
	if j.FirstSeq() != 1 {
		t.Fatalf("pruned before delivery: first seq %d", j.FirstSeq())
	}
	j.SetDelivered(20)
	appendN(t, j, 10) // rolls segments, triggering retention
	first := j.FirstSeq()
	if first == 1 || first > 21 {
		t.Fatalf("first seq after delivery to 20: %d", first)
	}
	var ev *PrunedEvent
	for _, r := range readAll(t, j, 1) {
		if r.Kind == "event" {
			var e PrunedEvent
			if err := json.Unmarshal(r.Body, &e); err != nil {
				t.Fatal(err)
			}
			ev = &e
		}
	}
	if ev == nil || ev.Event != "journal_pruned" || ev.FirstSeq != 1 || ev.LastSeq != first-1 || ev.Reason != "max_bytes" {
		t.Fatalf("pruned event %+v, first seq %d", ev, first)
	}
}

func TestRetentionByAge(t *testing.T) {
	now := t0
	j := mustOpen(t, t.TempDir(), Options{SegmentBytes: 300, MaxAge: time.Hour, Now: func() time.Time { return now }})
	appendN(t, j, 20)
	j.SetDelivered(j.LastSeq())
	if err := j.Prune(); err != nil {
		t.Fatal(err)
	}
	if j.FirstSeq() != 1 {
		t.Fatalf("pruned young records: first %d", j.FirstSeq())
	}
	now = t0.Add(2 * time.Hour)
	if err := j.Prune(); err != nil {
		t.Fatal(err)
	}
	if j.FirstSeq() == 1 {
		t.Fatal("old records not pruned")
	}
	last, ok, err := j.LastOfKind("event", 0)
	if err != nil || !ok || !strings.Contains(string(last.Body), `"max_age"`) {
		t.Fatalf("pruned event: %s %v %v", last.Body, ok, err)
	}
}

func TestLastOfKind(t *testing.T) {
	dir := t.TempDir()
	j := mustOpen(t, dir, Options{SegmentBytes: 200})
	var states []Record
	for i := 0; i < 10; i++ {
		appendN(t, j, 2)
		r, err := j.Append("state", t0, body{N: i})
		if err != nil {
			t.Fatal(err)
		}
		states = append(states, r)
	}
	j.Close()
	j = mustOpen(t, dir, Options{SegmentBytes: 200})
	appendN(t, j, 5)
	for _, c := range []struct {
		atMost uint64
		want   uint64
	}{{0, states[9].Seq}, {states[4].Seq, states[4].Seq}, {states[4].Seq + 1, states[4].Seq}, {2, 0}} {
		r, ok, err := j.LastOfKind("state", c.atMost)
		if err != nil {
			t.Fatal(err)
		}
		if c.want == 0 {
			if ok {
				t.Errorf("atMost %d: found %d, want none", c.atMost, r.Seq)
			}
			continue
		}
		if !ok || r.Seq != c.want {
			t.Errorf("atMost %d: got %d %v, want %d", c.atMost, r.Seq, ok, c.want)
		}
	}
}

func TestReadDirWhileLocked(t *testing.T) {
	dir := t.TempDir()
	j := mustOpen(t, dir, Options{SegmentBytes: 250})
	appendN(t, j, 12)
	var seqs []uint64
	if err := ReadDir(dir, func(r Record) error { seqs = append(seqs, r.Seq); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(seqs) != 12 || seqs[0] != 1 || seqs[11] != 12 {
		t.Fatalf("ReadDir: %v", seqs)
	}
	// A torn tail in the newest segment ends the read quietly.
	f, err := os.OpenFile(lastSegment(t, dir), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte{9, 0, 0})
	f.Close()
	n := 0
	if err := ReadDir(dir, func(Record) error { n++; return nil }); err != nil || n != 12 {
		t.Fatalf("ReadDir with torn tail: %d %v", n, err)
	}
}

func TestClosed(t *testing.T) {
	j := mustOpen(t, t.TempDir(), Options{})
	j.Close()
	if _, err := j.Append("roll", t0, body{}); !errors.Is(err, ErrClosed) {
		t.Fatalf("Append after Close: %v", err)
	}
}

// TestConcurrentAppends: appenders share fsyncs (group commit) but every
// record gets a unique seq, is durable when Append returns, and reads back
// in order.
func TestConcurrentAppends(t *testing.T) {
	dir := t.TempDir()
	j := mustOpen(t, dir, Options{SegmentBytes: 2000})
	const workers, each = 8, 50
	seqs := make(chan uint64, workers*each)
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		go func(w int) {
			for i := 0; i < each; i++ {
				r, err := j.Append("roll", t0, body{N: w*1000 + i})
				if err != nil {
					errs <- err
					return
				}
				if j.LastSeq() < r.Seq {
					errs <- fmt.Errorf("seq %d returned before durable (%d)", r.Seq, j.LastSeq())
					return
				}
				seqs <- r.Seq
			}
			errs <- nil
		}(w)
	}
	for w := 0; w < workers; w++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	close(seqs)
	seen := map[uint64]bool{}
	for s := range seqs {
		if seen[s] {
			t.Fatalf("seq %d given twice", s)
		}
		seen[s] = true
	}
	got := readAll(t, j, 1)
	if len(got) != workers*each || len(seen) != workers*each {
		t.Fatalf("read %d, appended %d", len(got), len(seen))
	}
	j.Close()
	j2 := mustOpen(t, dir, Options{SegmentBytes: 2000})
	if n := len(readAll(t, j2, 1)); n != workers*each {
		t.Fatalf("after reopen %d", n)
	}
}

// BenchmarkAppend measures fsync'd appends: one appender waiting for each
// record, one appender using AppendNoWait and waiting once at the end, and
// many appenders waiting for each.
//
//	go test -run '^$' -bench Append ./journal
func BenchmarkAppend(b *testing.B) {
	b.Run("serial", func(b *testing.B) {
		j, err := Open(b.TempDir(), Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer j.Close()
		for i := 0; i < b.N; i++ {
			if _, err := j.Append("roll", t0, body{N: i}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
	})
	b.Run("serial_nowait", func(b *testing.B) {
		j, err := Open(b.TempDir(), Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer j.Close()
		var last Record
		for i := 0; i < b.N; i++ {
			if last, err = j.AppendNoWait("roll", t0, body{N: i}); err != nil {
				b.Fatal(err)
			}
		}
		if err := j.WaitDurable(last.Seq); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
	})
	b.Run("parallel", func(b *testing.B) {
		j, err := Open(b.TempDir(), Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer j.Close()
		b.SetParallelism(8)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := j.Append("roll", t0, body{N: 1}); err != nil {
					b.Error(err)
					return
				}
			}
		})
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
	})
}

// TestConcurrentCloseWaitsForTheFirst: whichever of two concurrent Close
// calls returns, the journal is closed by then: its directory lock is free.
func TestConcurrentCloseWaitsForTheFirst(t *testing.T) {
	dir := t.TempDir()
	lockFree := func() error {
		f, err := os.OpenFile(filepath.Join(dir, "LOCK"), os.O_RDWR, 0)
		if err != nil {
			return err
		}
		defer f.Close()
		// Shared: the two callers' checks must not contend with each
		// other, only with the journal's exclusive lock.
		if err := tryShared(f); err != nil {
			return fmt.Errorf("lock still held after Close returned: %w", err)
		}
		return nil
	}
	for i := 0; i < 200; i++ {
		j, err := Open(dir, Options{})
		if err != nil {
			t.Fatalf("round %d: Open: %v", i, err)
		}
		appendN(t, j, 3)
		var wg sync.WaitGroup
		errs := make(chan error, 2)
		for k := 0; k < 2; k++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := j.Close(); err != nil {
					errs <- err
					return
				}
				errs <- lockFree()
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatalf("round %d: %v", i, err)
			}
		}
	}
}

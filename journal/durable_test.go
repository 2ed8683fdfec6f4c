package journal

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// syncHook replaces fdatasync in tests: it can hold syncs until released,
// fail them, and it logs each call with the file's size at the time.
type syncHook struct {
	mu   sync.Mutex
	gate chan struct{} // nil: pass; else syncs wait until it is closed
	fail error         // returned by every sync once set
	log  []syncCall
}

type syncCall struct {
	name string
	size int64
}

func (h *syncHook) sync(f *os.File) error {
	h.mu.Lock()
	gate := h.gate
	h.mu.Unlock()
	if gate != nil {
		<-gate
	}
	info, err := f.Stat()
	if err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.log = append(h.log, syncCall{filepath.Base(f.Name()), info.Size()})
	if h.fail != nil {
		return h.fail
	}
	return fdatasync(f)
}

// hold makes later syncs wait; the returned func releases them.
func (h *syncHook) hold() (release func()) {
	g := make(chan struct{})
	h.mu.Lock()
	h.gate = g
	h.mu.Unlock()
	return func() {
		h.mu.Lock()
		h.gate = nil
		h.mu.Unlock()
		close(g)
	}
}

func (h *syncHook) setFail(err error) {
	h.mu.Lock()
	h.fail = err
	h.mu.Unlock()
}

func (h *syncHook) calls() []syncCall {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]syncCall(nil), h.log...)
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// TestNoWaitInvisibleUntilSynced: records written by AppendNoWait are not
// visible to a Reader, LastSeq, LastOfKind or Changed until a sync that
// covers them has returned; then all of them are.
func TestNoWaitInvisibleUntilSynced(t *testing.T) {
	h := &syncHook{}
	j := mustOpen(t, t.TempDir(), Options{syncFile: h.sync})
	release := h.hold()
	changed := j.Changed()
	var last Record
	for i := 0; i < 5; i++ {
		r, err := j.AppendNoWait("roll", t0, body{N: i})
		if err != nil {
			t.Fatal(err)
		}
		last = r
	}
	if last.Seq != 5 || j.NextSeq() != 6 {
		t.Fatalf("last seq %d, next %d", last.Seq, j.NextSeq())
	}
	if got := j.LastSeq(); got != 0 {
		t.Fatalf("LastSeq %d before any sync returned", got)
	}
	if got := readAll(t, j, 1); len(got) != 0 {
		t.Fatalf("reader saw %d unsynced records", len(got))
	}
	if _, ok, err := j.LastOfKind("roll", 0); ok || err != nil {
		t.Fatalf("LastOfKind found an unsynced record (err %v)", err)
	}
	if isClosed(changed) {
		t.Fatal("Changed fired before a sync returned")
	}
	release()
	if err := j.WaitDurable(last.Seq); err != nil {
		t.Fatal(err)
	}
	if !isClosed(changed) {
		t.Fatal("Changed did not fire after the sync")
	}
	if got := readAll(t, j, 1); len(got) != 5 {
		t.Fatalf("reader saw %d records after sync, want 5", len(got))
	}
	if r, ok, _ := j.LastOfKind("roll", 0); !ok || r.Seq != 5 {
		t.Fatalf("LastOfKind after sync: %v %v", r.Seq, ok)
	}
}

// TestGroupCommit: records written while a sync runs are covered by one
// later sync, not one each.
func TestGroupCommit(t *testing.T) {
	h := &syncHook{}
	j := mustOpen(t, t.TempDir(), Options{syncFile: h.sync})
	before := len(h.calls())
	release := h.hold()
	const n = 200
	var last Record
	for i := 0; i < n; i++ {
		r, err := j.AppendNoWait("roll", t0, body{N: i})
		if err != nil {
			t.Fatal(err)
		}
		last = r
	}
	release()
	if err := j.WaitDurable(last.Seq); err != nil {
		t.Fatal(err)
	}
	// The held sync covered at least record 1; everything written while it
	// was held goes in the next one.
	if syncs := len(h.calls()) - before; syncs > 2 {
		t.Fatalf("%d syncs for %d records written during one held sync", syncs, n)
	}
}

// TestSyncFailureIsSticky: after a failed sync, nothing written after the
// last good sync becomes visible, and every later append, WaitDurable and
// Close return the error.
func TestSyncFailureIsSticky(t *testing.T) {
	h := &syncHook{}
	dir := t.TempDir()
	j, err := Open(dir, Options{syncFile: h.sync})
	if err != nil {
		t.Fatal(err)
	}
	good := appendN(t, j, 3)
	boom := errors.New("disk on fire")
	h.setFail(boom)
	// A waiter blocked before the failure must be woken by it.
	release := h.hold()
	r4, err := j.AppendNoWait("roll", t0, body{N: 4})
	if err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- j.WaitDurable(r4.Seq) }()
	release()
	select {
	case err := <-waited:
		if !errors.Is(err, boom) {
			t.Fatalf("WaitDurable: %v, want the sync error", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("WaitDurable not woken by the failed sync")
	}
	h.setFail(nil) // a later sync would succeed: the journal must not retry
	if _, err := j.Append("roll", t0, body{N: 5}); !errors.Is(err, boom) {
		t.Fatalf("Append after failed sync: %v", err)
	}
	if _, err := j.AppendNoWait("roll", t0, body{N: 6}); !errors.Is(err, boom) {
		t.Fatalf("AppendNoWait after failed sync: %v", err)
	}
	if err := j.WaitDurable(r4.Seq); !errors.Is(err, boom) {
		t.Fatalf("WaitDurable again: %v", err)
	}
	if err := j.WaitDurable(good[2].Seq); err != nil {
		t.Fatalf("WaitDurable of a record synced before the failure: %v", err)
	}
	if got := j.LastSeq(); got != 3 {
		t.Fatalf("LastSeq %d after failure, want 3", got)
	}
	if got := readAll(t, j, 1); len(got) != 3 {
		t.Fatalf("reader saw %d records, want the 3 synced ones", len(got))
	}
	if err := j.Close(); !errors.Is(err, boom) {
		t.Fatalf("Close: %v, want the sync error", err)
	}
}

// TestCloseFlushes: records written without waiting are made durable by
// Close, and a waiter blocked across Close gets nil for them.
func TestCloseFlushes(t *testing.T) {
	h := &syncHook{}
	dir := t.TempDir()
	j, err := Open(dir, Options{syncFile: h.sync})
	if err != nil {
		t.Fatal(err)
	}
	release := h.hold()
	var last Record
	for i := 0; i < 5; i++ {
		if last, err = j.AppendNoWait("roll", t0, body{N: i}); err != nil {
			t.Fatal(err)
		}
	}
	waited := make(chan error, 1)
	go func() { waited <- j.WaitDurable(last.Seq) }()
	closed := make(chan error, 1)
	go func() { closed <- j.Close() }()
	release()
	if err := <-closed; err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := <-waited; err != nil {
		t.Fatalf("WaitDurable across Close: %v", err)
	}
	if err := j.WaitDurable(last.Seq); err != nil {
		t.Fatalf("WaitDurable after Close: %v", err)
	}
	info, err := os.Stat(filepath.Join(dir, segName(1)))
	if err != nil {
		t.Fatal(err)
	}
	calls := h.calls()
	if c := calls[len(calls)-1]; c.name != segName(1) || c.size != info.Size() {
		t.Fatalf("last sync %+v, segment is %d bytes", c, info.Size())
	}
	if _, err := j.AppendNoWait("roll", t0, body{}); !errors.Is(err, ErrClosed) {
		t.Fatalf("AppendNoWait after Close: %v", err)
	}
	j2 := mustOpen(t, dir, Options{})
	if n := len(readAll(t, j2, 1)); n != 5 {
		t.Fatalf("reopen: %d records, want 5", n)
	}
}

// TestOpenSyncsRecoveredTail: Open syncs the newest segment, cut or not,
// before it treats the records in it as durable.
func TestOpenSyncsRecoveredTail(t *testing.T) {
	for _, torn := range []bool{false, true} {
		t.Run(fmt.Sprintf("torn=%v", torn), func(t *testing.T) {
			dir := t.TempDir()
			j := mustOpen(t, dir, Options{})
			appendN(t, j, 4)
			j.Close()
			seg := filepath.Join(dir, segName(1))
			if torn {
				f, err := os.OpenFile(seg, os.O_WRONLY|os.O_APPEND, 0)
				if err != nil {
					t.Fatal(err)
				}
				f.Write([]byte{9, 0, 0, 0, 1, 2})
				f.Close()
			}
			info, _ := os.Stat(seg)
			h := &syncHook{}
			j2 := mustOpen(t, dir, Options{syncFile: h.sync})
			calls := h.calls()
			if len(calls) == 0 || calls[0].name != segName(1) {
				t.Fatalf("Open did not sync the tail: %+v", calls)
			}
			want := info.Size()
			if torn {
				want -= 6
			}
			if calls[0].size != want {
				t.Fatalf("tail synced at %d bytes, want %d", calls[0].size, want)
			}
			if n := len(readAll(t, j2, 1)); n != 4 {
				t.Fatalf("%d records, want 4", n)
			}
			r, err := j2.Append("roll", t0, body{})
			if err != nil || r.Seq != 5 {
				t.Fatalf("append after reopen: seq %d, %v", r.Seq, err)
			}
		})
	}
}

// TestPipelinedReaderSeesOnlyDurable: one producer appends without
// waiting while a reader follows; every record the reader gets is at or
// below LastSeq, in order, and it ends with all of them.
func TestPipelinedReaderSeesOnlyDurable(t *testing.T) {
	j := mustOpen(t, t.TempDir(), Options{SegmentBytes: 4000})
	const n = 2000
	done := make(chan error, 1)
	go func() {
		var last Record
		var err error
		for i := 0; i < n; i++ {
			if last, err = j.AppendNoWait("roll", t0, body{N: i}); err != nil {
				done <- err
				return
			}
		}
		done <- j.WaitDurable(last.Seq)
	}()
	r := j.Reader(1)
	defer r.Close()
	want := uint64(1)
	for want <= n {
		ch := j.Changed()
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			<-ch
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec.Seq != want {
			t.Fatalf("read seq %d, want %d", rec.Seq, want)
		}
		if d := j.LastSeq(); rec.Seq > d {
			t.Fatalf("read seq %d above durable %d", rec.Seq, d)
		}
		want++
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

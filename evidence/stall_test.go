package evidence

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

// stallRecorder is a recorder not yet running (its queues fill and then
// refuse), with a queue of 4, StallAfter 5 s and a clock that stands
// still until advance moves it; OnStall's calls are appended to *calls.
func stallRecorder(t *testing.T, calls *[]error) (*Recorder, func(time.Duration)) {
	t.Helper()
	var mu sync.Mutex
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	r, err := New(Config{Dir: t.TempDir(), Queue: 4, StallAfter: 5 * time.Second, Now: clock,
		OnStall: func(err error) { *calls = append(*calls, err) }})
	if err != nil {
		t.Fatal(err)
	}
	return r, advance
}

// TestStalledRecorderIsReported: a recorder whose goroutine takes nothing
// (here it has not started; in the daemon, a write that never returns)
// refuses every frame and command offered once its queues are full. Once
// that has lasted StallAfter, OnStall reports it, once; when the recorder
// takes an offer again, OnStall(nil) says so. Before, the only trace was
// the dropped-frame count, and every throw meanwhile had no clip.
func TestStalledRecorderIsReported(t *testing.T) {
	var calls []error
	r, advance := stallRecorder(t, &calls)
	f := Frame{JPEG: picture(t, 0), Width: 64, Height: 48}
	for i := 0; i < cap(r.cmds); i++ { // the command queue full too
		r.Open(frameAt(i))
	}
	for i := 0; i < 10; i++ { // 4 taken, 6 refused within a moment
		f.AtMS = frameAt(i)
		r.Frame(f)
	}
	if len(calls) != 0 {
		t.Fatalf("stall reported after refusals lasting no time: %v", calls)
	}
	advance(4 * time.Second)
	r.Frame(f)
	if len(calls) != 0 {
		t.Fatalf("stall reported before StallAfter: %v", calls)
	}
	advance(2 * time.Second)
	r.Open(frameAt(20)) // a command refused counts as a frame does
	if len(calls) != 1 || calls[0] == nil || !strings.Contains(calls[0].Error(), "clips are not being written") {
		t.Fatalf("after 6 s of refusals: OnStall calls %v; want one error", calls)
	}
	// The writer runs again: the next offer taken clears it.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); r.Run(ctx) }()
	defer func() { cancel(); <-done }()
	deadline := time.Now().Add(10 * time.Second)
	for !r.Frame(f) {
		if time.Now().After(deadline) {
			t.Fatal("the running recorder took no frame")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if len(calls) != 2 || calls[1] != nil {
		t.Errorf("after the recorder took a frame again: OnStall calls %v; want the error then nil", calls)
	}
}

// TestQueuedCommandDoesNotEndStall: the writer is stuck with its frame
// queue full, but its command queue (64 deep, drained only between
// writes) still has room, so Open and Close are queued. A command queued
// says nothing of the writer: it must neither restart the 10 s count nor
// clear a stall reported. Only a frame taken does.
func TestQueuedCommandDoesNotEndStall(t *testing.T) {
	var calls []error
	r, advance := stallRecorder(t, &calls)
	f := Frame{JPEG: picture(t, 0), Width: 64, Height: 48}
	for i := 0; i < 5; i++ { // 4 taken, the fifth refused: the count starts
		f.AtMS = frameAt(i)
		r.Frame(f)
	}
	advance(3 * time.Second)
	if c := r.Open(frameAt(90)); c.File == "" {
		t.Fatal("the command queue, with room, refused an Open")
	}
	advance(3 * time.Second)
	r.Frame(f)
	if len(calls) != 1 || calls[0] == nil {
		t.Fatalf("6 s of refused frames with an Open queued in between: OnStall calls %v; want one error", calls)
	}
	advance(time.Second)
	if c := r.Open(frameAt(120)); c.File == "" {
		t.Fatal("the command queue, with room, refused an Open")
	}
	r.Frame(f)
	if len(calls) != 1 {
		t.Errorf("an Open queued while the writer is stuck: OnStall calls %v; want the one error, not cleared", calls)
	}
}

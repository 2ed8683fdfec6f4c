package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/dicewatch/dicewatch/journal"
)

// Bounds of the records held while the journal refuses them. A decision
// with its state is a few KiB and a snapshot a JPEG of some 100 KiB, so
// the byte budget is what binds when snapshots are held.
const (
	maxHeldRecords = 10000
	maxHeldBytes   = 64 << 20
)

// heldRecord is one record on its way to the journal.
type heldRecord struct {
	kind string
	ts   time.Time // the time it was made, kept when it is written late
	body any
	// build, when set, makes the body when the record is written (a
	// snapshot names its decision's id, known only once that is written);
	// false: what it belongs to was lost, and so is it.
	build func() (any, bool)
	size  int    // bytes it holds in memory
	what  string // how the journal fault names it if it is lost
	// written, when set, is told the record once it is journalled. It and
	// build run with the queue's lock held: they must not use the queue.
	written func(journal.Record)
	// late, when set, is told the record when it is journalled after
	// being held, once it is durable (see takeLate).
	late func(journal.Record)
	// ref, set on a decision, is its record once journalled; snap, set on
	// a snapshot, is what it is made from (both for the hold file).
	ref  *recRef
	snap *snapData
	// kept: the hold file has it, so a restart does not lose it.
	kept bool
}

// holdQueue puts records in the journal in the order they are made. A
// record the journal refuses (a full disk, journal.ErrNotWritten) is held
// in memory, and so is every record after it, until the journal takes
// records again: then a journal fault (raised, saying how many are held)
// is journalled, the held records follow in order with their own times
// and bodies (each gets its seq when it is written), and the fault is
// cleared after the last of them. Past maxHeld records or bytes a record
// is dropped instead, named in the fault. Any goroutine may use it.
type holdQueue struct {
	j          appender
	now        func() time.Time
	maxRecords int
	maxBytes   int
	// opened is called when records start being held (the first error),
	// closed when the fault is cleared, dropped for each record lost past
	// the bounds. All are called with the lock held.
	opened  func(err error)
	closed  func()
	dropped func(kind, what string, err error)
	// file, when set, keeps the held records on another disk across a
	// restart; fileFailed is told when it cannot (they stay in memory).
	file       *holdFile
	fileFailed func(err error)

	mu   sync.Mutex
	held []heldRecord
	// lateDue are the late calls of held records just journalled, for
	// the caller to make once they are durable.
	lateDue []func()
	bytes   int
	fault   *heldFault
}

// heldFault is the journal fault while records are held or lost.
type heldFault struct {
	since    time.Time
	err      string // the first write error
	raised   bool   // the raised event is journalled
	lost     int    // records dropped past the bounds (or whose decision was)
	lostList []string
	lastTry  time.Time
}

func newHoldQueue(j appender, now func() time.Time) *holdQueue {
	return &holdQueue{j: j, now: now, maxRecords: maxHeldRecords, maxBytes: maxHeldBytes}
}

// put journals h after any held records (not waiting for it to be
// durable) and returns its record, or holds it (written false) while the
// journal refuses records; last is the seq of the newest record this call
// wrote, held ones included (0: none), to wait for. An error is one the
// journal cannot go on from: h is then held all the same (never to be
// journalled), so that the stop writes it to the log rather than drop it
// unseen.
func (q *holdQueue) put(h heldRecord) (rec journal.Record, written bool, last uint64, err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	last, err = q.flushLocked()
	if err != nil {
		_ = q.holdLocked(h, err)
		return journal.Record{}, false, last, err
	}
	if q.fault != nil {
		return journal.Record{}, false, last, q.holdLocked(h, nil)
	}
	rec, ok, err := q.writeLocked(h)
	switch {
	case err != nil && notWritten(err):
		return journal.Record{}, false, last, q.holdLocked(h, err)
	case err != nil:
		_ = q.holdLocked(h, err)
		return journal.Record{}, false, last, err
	case !ok:
		return journal.Record{}, false, last, nil
	}
	return rec, true, rec.Seq, nil
}

// retry writes the held records if the journal takes them now; last is
// the seq of the last record written (0: none). Without force it tries at
// most once a second.
func (q *holdQueue) retry(force bool) (last uint64, err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.fault == nil || !force && time.Since(q.fault.lastTry) < time.Second {
		return 0, nil
	}
	return q.flushLocked()
}

// takeLate returns the late calls due (held records journalled since the
// last take), to be made once what was written is durable.
func (q *holdQueue) takeLate() []func() {
	q.mu.Lock()
	defer q.mu.Unlock()
	due := q.lateDue
	q.lateDue = nil
	return due
}

// faulted reports whether the journal fault is open (records held or lost).
func (q *holdQueue) faulted() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.fault != nil
}

// heldCount is the number of records held.
func (q *holdQueue) heldCount() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.held)
}

// heldCounts are the records held, and those of them no hold file keeps
// (in memory only: a restart loses them).
func (q *holdQueue) heldCounts() (held, memoryOnly int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for i := range q.held {
		if !q.held[i].kept {
			memoryOnly++
		}
	}
	return len(q.held), memoryOnly
}

// heldLine is a held record as the log shows it when the daemon stops
// with it in memory only.
type heldLine struct {
	Kind, What string
	TS         time.Time
	Body       string // its JSON; empty for a snapshot (a JPEG)
}

// memoryOnly lists the held records no hold file keeps.
func (q *holdQueue) memoryOnly() []heldLine {
	q.mu.Lock()
	defer q.mu.Unlock()
	var out []heldLine
	for _, h := range q.held {
		if h.kept {
			continue
		}
		l := heldLine{Kind: h.kind, What: h.what, TS: h.ts}
		if raw, ok := h.body.(json.RawMessage); ok {
			l.Body = string(raw)
		} else if h.snap != nil {
			l.Body = fmt.Sprintf("(a %d-byte JPEG, not logged)", len(h.snap.jpeg))
		}
		out = append(out, l)
	}
	return out
}

// writeLocked appends one record; ok false with no error: it was dropped
// (its decision was lost) and noted in the fault.
func (q *holdQueue) writeLocked(h heldRecord) (journal.Record, bool, error) {
	body := h.body
	if h.build != nil {
		b, ok := h.build()
		if !ok {
			q.loseLocked(h, fmt.Errorf("what it belongs to was not journalled"))
			return journal.Record{}, false, nil
		}
		body = b
	}
	rec, err := q.j.AppendNoWait(h.kind, h.ts, body)
	if err != nil {
		return journal.Record{}, false, err
	}
	if h.ref != nil {
		h.ref.rec, h.ref.ok = rec, true
	}
	if h.written != nil {
		h.written(rec)
	}
	return rec, true, nil
}

// holdLocked holds h, or drops it past the bounds. err opens the fault.
func (q *holdQueue) holdLocked(h heldRecord, err error) error {
	if h.build == nil {
		// A held body is kept as its JSON: the caller may change what it
		// points to, and its size is known. The journal writes the same
		// bytes (compacted) from it.
		raw, merr := json.Marshal(h.body)
		if merr != nil {
			return fmt.Errorf("journal %s: %w", h.kind, merr)
		}
		h.body, h.size = json.RawMessage(raw), len(raw)
	}
	if q.fault == nil {
		q.fault = &heldFault{since: q.now(), err: err.Error(), lastTry: time.Now()}
		if q.opened != nil {
			q.opened(err)
		}
	}
	if len(q.held) >= q.maxRecords || q.bytes+h.size > q.maxBytes {
		q.loseLocked(h, fmt.Errorf("%d records (%d bytes) already held", len(q.held), q.bytes))
		return nil
	}
	q.held = append(q.held, h)
	q.bytes += h.size
	q.keepLocked(q.fault.since)
	return nil
}

// keepLocked writes the newest held record to the hold file, if there is
// one, and marks it kept there; fileFailed is told when it cannot be.
func (q *holdQueue) keepLocked(since time.Time) {
	if q.file == nil {
		return
	}
	h := &q.held[len(q.held)-1]
	if err := q.file.add(h, since); err != nil {
		if q.fileFailed != nil {
			q.fileFailed(err)
		}
		return
	}
	h.kept = true
}

func (q *holdQueue) loseLocked(h heldRecord, err error) {
	f := q.fault
	if f == nil {
		// A snapshot whose decision was dropped, after the fault cleared:
		// a fault of its own, raised (naming it) and cleared at the next
		// flush; never a second cleared for the fault before.
		f = &heldFault{since: q.now(), err: err.Error(), lastTry: time.Now()}
		q.fault = f
		if q.opened != nil {
			q.opened(err)
		}
	}
	f.lost++
	if len(f.lostList) < 20 {
		f.lostList = append(f.lostList, h.what)
	}
	if q.dropped != nil {
		q.dropped(h.kind, h.what, err)
	}
}

// flushLocked journals the fault raised (once), the held records in
// order, and the fault cleared, as far as the journal takes them.
func (q *holdQueue) flushLocked() (last uint64, err error) {
	f := q.fault
	if f == nil {
		return 0, nil
	}
	f.lastTry = time.Now()
	if !f.raised {
		detail := fmt.Sprintf("%d records held since %s, journalled next in order", len(q.held), f.since.Format(time.RFC3339Nano))
		if f.lost > 0 {
			detail += fmt.Sprintf("; %d lost, never published: %s", f.lost, strings.Join(f.lostList, ", "))
		}
		if q.file != nil && q.file.err != nil {
			detail += "; not kept in the hold file: " + q.file.err.Error()
		}
		detail = clip400(detail + "; " + f.err)
		rec, err := q.j.AppendNoWait("event", q.now(), map[string]any{"event": "fault", "what": "journal", "state": "raised", "detail": detail})
		if err != nil {
			if notWritten(err) {
				return 0, nil
			}
			return 0, fmt.Errorf("journal fault event: %w", err)
		}
		f.raised, last = true, rec.Seq
		f.lost, f.lostList = 0, nil // reported
	}
	for len(q.held) > 0 {
		h := q.held[0]
		rec, ok, err := q.writeLocked(h)
		if err != nil {
			if notWritten(err) {
				return last, nil
			}
			return last, fmt.Errorf("journal held %s: %w", h.kind, err)
		}
		q.held[0] = heldRecord{}
		q.held = q.held[1:]
		q.bytes -= h.size
		if ok {
			last = rec.Seq
			if h.late != nil {
				q.lateDue = append(q.lateDue, func() { h.late(rec) })
			}
		}
	}
	q.held = nil
	cleared := map[string]any{"event": "fault", "what": "journal", "state": "cleared"}
	if f.lost > 0 {
		cleared["detail"] = clip400(fmt.Sprintf("%d more lost, never published: %s", f.lost, strings.Join(f.lostList, ", ")))
	}
	rec, err := q.j.AppendNoWait("event", q.now(), cleared)
	if err != nil {
		if notWritten(err) {
			return last, nil // the clear goes first next time
		}
		return last, fmt.Errorf("journal fault event: %w", err)
	}
	q.fault = nil
	if q.file != nil {
		if err := q.file.clear(); err != nil && q.fileFailed != nil {
			q.fileFailed(err)
		}
	}
	if q.closed != nil {
		q.closed()
	}
	return rec.Seq, nil
}

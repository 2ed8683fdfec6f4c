package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/dicewatch/dicewatch/journal"
)

// holdFileName is the file in journal.hold_dir that keeps the held
// records across a restart.
const holdFileName = "held.jsonl"

// holdFile keeps a copy of the hold queue's records on another file
// system than the journal's, so that a daemon stopped (or killed) while
// the journal's disk is full does not lose them. It is a file of JSON
// lines: a header (when the records started being held, and the journal's
// epoch and last seq then), then one line per held record in order, each
// synced before the record counts as held. Once the held records are all
// journalled the file is removed. On start (restore) the records the
// journal already has (written before the restart) are passed over, the
// rest held again in order.
//
// It is used with its queue's lock held.
type holdFile struct {
	path    string
	journal func() (epoch string, last uint64)
	f       *os.File
	n       int   // lines written after the header
	err     error // the first write error; nothing more is written until the file is removed
}

type holdHeader struct {
	Since    time.Time `json:"since"`
	Epoch    string    `json:"epoch"`
	AfterSeq uint64    `json:"after_seq"`
}

// holdLine is one held record. A snapshot keeps its JPEG and names its
// decision by its line (Of, from 1) or, when that was journalled, its id.
type holdLine struct {
	N        int             `json:"n"`
	Kind     string          `json:"kind"`
	TS       time.Time       `json:"ts"`
	What     string          `json:"what"`
	Body     json.RawMessage `json:"body,omitempty"`
	Decision bool            `json:"decision,omitempty"`
	Of       int             `json:"of,omitempty"`
	OfID     string          `json:"of_id,omitempty"`
	JPEG     []byte          `json:"jpeg,omitempty"`
	W        int             `json:"w,omitempty"`
	H        int             `json:"h,omitempty"`
}

// snapData is what a held snapshot is made from.
type snapData struct {
	of   *recRef
	jpeg []byte
	w, h int
}

func newHoldFile(dir string, j func() (string, uint64)) *holdFile {
	return &holdFile{path: filepath.Join(dir, holdFileName), journal: j}
}

// add writes h (held since since) and syncs it.
func (f *holdFile) add(h *heldRecord, since time.Time) error {
	if f.err != nil {
		return f.err
	}
	if f.f == nil {
		if err := os.MkdirAll(filepath.Dir(f.path), 0o750); err != nil {
			f.err = err
			return err
		}
		fh, err := os.OpenFile(f.path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o640)
		if err != nil {
			f.err = err
			return err
		}
		f.f, f.n = fh, 0
		epoch, last := f.journal()
		if err := f.write(holdHeader{Since: since, Epoch: epoch, AfterSeq: last}); err != nil {
			return err
		}
	}
	line := holdLine{N: f.n + 1, Kind: h.kind, TS: h.ts, What: h.what}
	switch {
	case h.snap != nil:
		line.JPEG, line.W, line.H = h.snap.jpeg, h.snap.w, h.snap.h
		switch ref := h.snap.of; {
		case ref.ok:
			line.OfID = ref.rec.ID
		case ref.line > 0:
			line.Of = ref.line
		default:
			// Its decision was lost past the bounds: so is it, when it
			// is written.
			return nil
		}
	default:
		raw, ok := h.body.(json.RawMessage)
		if !ok {
			return fmt.Errorf("%s: body not encoded", h.what)
		}
		line.Body = raw
	}
	line.Decision = h.ref != nil
	if err := f.write(line); err != nil {
		return err
	}
	f.n++
	if h.ref != nil {
		h.ref.line = f.n
	}
	return nil
}

func (f *holdFile) write(v any) error {
	raw, err := json.Marshal(v)
	if err == nil {
		_, err = f.f.Write(append(raw, '\n'))
	}
	if err == nil {
		err = f.f.Sync()
	}
	if err != nil {
		f.err = fmt.Errorf("hold file %s: %w", f.path, err)
	}
	return f.err
}

// clear removes the file: every record in it is journalled.
func (f *holdFile) clear() error {
	if f.f != nil {
		f.f.Close()
		f.f = nil
	}
	f.n, f.err = 0, nil
	if err := os.Remove(f.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// readHoldFile reads the header and the whole lines of a hold file (a
// line cut short by a crash is the last and is passed over; it was never
// held). ok false: there is no file.
func readHoldFile(path string) (hdr holdHeader, lines []holdLine, ok bool, err error) {
	fh, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return hdr, nil, false, nil
	}
	if err != nil {
		return hdr, nil, false, err
	}
	defer fh.Close()
	r := bufio.NewReader(fh)
	first := true
	for {
		raw, rerr := r.ReadBytes('\n')
		if rerr == io.EOF {
			break // no newline: cut short
		}
		if rerr != nil {
			return hdr, nil, true, rerr
		}
		if first {
			first = false
			if err := json.Unmarshal(raw, &hdr); err != nil {
				return hdr, nil, true, fmt.Errorf("hold file %s header: %w", path, err)
			}
			continue
		}
		var l holdLine
		if err := json.Unmarshal(raw, &l); err != nil {
			return hdr, nil, true, fmt.Errorf("hold file %s line %d: %w", path, len(lines)+2, err)
		}
		lines = append(lines, l)
	}
	return hdr, lines, !first, nil
}

// sameRecord reports whether the journalled rec is the held line l.
func sameRecord(rec journal.Record, l holdLine) bool {
	if rec.Kind != l.Kind || !rec.TS.Equal(l.TS) {
		return false
	}
	if l.Kind == "snapshot" {
		return true // its body is made when it is written
	}
	var a, b bytes.Buffer
	if json.Compact(&a, rec.Body) != nil || json.Compact(&b, l.Body) != nil {
		return false
	}
	return bytes.Equal(a.Bytes(), b.Bytes())
}

// restore holds again, in order, the records of the queue's hold file
// that j does not have yet (a restart while they were held), and returns
// how many. The journal fault is then open (raised when the journal takes
// records); the file is written anew with what is held.
func (q *holdQueue) restore(j *journal.Journal) (int, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.file == nil {
		return 0, nil
	}
	hdr, lines, ok, err := readHoldFile(q.file.path)
	if err != nil || !ok {
		return 0, err
	}
	// Records journalled before the restart come after AfterSeq in the
	// same order; the journal's own fault events stand between them.
	done := 0
	refs := map[int]*recRef{}
	for _, l := range lines {
		if l.Decision {
			refs[l.N] = &recRef{what: l.What}
		}
	}
	if hdr.Epoch == j.Epoch() {
		r := j.Reader(hdr.AfterSeq + 1)
		for done < len(lines) {
			rec, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				r.Close()
				return 0, fmt.Errorf("hold file: reading the journal: %w", err)
			}
			if sameRecord(rec, lines[done]) {
				if ref := refs[lines[done].N]; ref != nil {
					ref.rec, ref.ok = rec, true
				}
				done++
			}
		}
		r.Close()
	}
	rest := lines[done:]
	if err := q.file.clear(); err != nil {
		return 0, err
	}
	if len(rest) == 0 {
		return 0, nil
	}
	q.fault = &heldFault{since: hdr.Since, lastTry: time.Now(),
		err: fmt.Sprintf("%d held records restored from %s after a restart", len(rest), q.file.path)}
	if q.opened != nil {
		q.opened(errors.New(q.fault.err))
	}
	for _, l := range rest {
		h := heldRecord{kind: l.Kind, ts: l.TS, what: l.What}
		if l.Kind == "snapshot" {
			ref := refs[l.Of]
			if l.OfID != "" {
				ref = &recRef{rec: journal.Record{ID: l.OfID}, ok: true, what: l.What}
			}
			if ref == nil {
				ref = &recRef{what: l.What} // never held: the snapshot is lost with it
			}
			h = snapshotRecord(l.TS, ref, l.JPEG, l.W, l.H)
			h.what = l.What
		} else {
			h.body, h.size = l.Body, len(l.Body)
			if ref := refs[l.N]; ref != nil {
				h.ref = ref
			}
		}
		q.held = append(q.held, h)
		q.bytes += h.size
		q.keepLocked(hdr.Since)
	}
	return len(rest), nil
}

// lastHeld is the body of the newest held record of kind (a restored
// game state), if any.
func (q *holdQueue) lastHeld(kind string) (json.RawMessage, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for i := len(q.held) - 1; i >= 0; i-- {
		if raw, ok := q.held[i].body.(json.RawMessage); ok && q.held[i].kind == kind {
			return raw, true
		}
	}
	return nil, false
}

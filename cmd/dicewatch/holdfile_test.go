package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dicewatch/dicewatch/journal"
	"github.com/dicewatch/dicewatch/journal/journaltest"
)

// stopAfter is a journal that takes n more records, then refuses them
// like a full disk (to stop a flush half-way, at a known record).
type stopAfter struct {
	*journal.Journal
	n int
}

func (s *stopAfter) AppendNoWait(kind string, ts time.Time, body any) (journal.Record, error) {
	if s.n <= 0 {
		return journal.Record{}, fmt.Errorf("%w: test: no room", journal.ErrNotWritten)
	}
	s.n--
	return s.Journal.AppendNoWait(kind, ts, body)
}

// TestHoldFileRestart: with the journal on a full tmpfs and the hold file
// on another, the records held (a decision, its snapshot, the state after
// it, an event, and the snapshot of a decision journalled just before the
// disk filled) survive two restarts: the first while the disk is still
// full, the second in the middle of journalling them once there is room.
// In the end the journal has each exactly once, in the order made, with
// its own time, the snapshots naming their decisions' ids, between one
// journal fault raised and cleared; the hold file is gone. Without the
// hold file (before journal.hold_dir) the restart lost them.
func TestHoldFileRestart(t *testing.T) {
	disk := journaltest.SmallDisk(t, "2m")
	holdDir := filepath.Join(journaltest.SmallDisk(t, "4m"), "held")
	jdir := filepath.Join(disk, "journal")
	filler := filepath.Join(disk, "filler")
	pad := strings.Repeat("p", 6000) // more than a page: a full disk refuses it
	clock := time.Date(2026, 11, 27, 4, 0, 0, 0, time.UTC)
	tick := func() time.Time { clock = clock.Add(time.Second); return clock }

	open := func(wrap func(*journal.Journal) appender) (*journal.Journal, *holdQueue, int) {
		t.Helper()
		j, err := journal.Open(jdir, journal.Options{})
		if err != nil {
			t.Fatalf("open the journal: %v", err)
		}
		var a appender = j
		if wrap != nil {
			a = wrap(j)
		}
		q := newHoldQueue(a, func() time.Time { return clock })
		q.file = newHoldFile(holdDir, func() (string, uint64) { return j.Epoch(), j.LastSeq() })
		q.fileFailed = func(err error) { t.Errorf("hold file: %v", err) }
		n, err := q.restore(j)
		if err != nil {
			t.Fatalf("restore: %v", err)
		}
		return j, q, n
	}
	put := func(q *holdQueue, h heldRecord) bool {
		t.Helper()
		_, written, _, err := q.put(h)
		if err != nil {
			t.Fatal(err)
		}
		return written
	}

	j, q, n := open(nil)
	if n != 0 {
		t.Fatalf("%d restored from no hold file", n)
	}
	r1 := &recRef{what: "roll r1"}
	if !put(q, heldRecord{kind: "roll", ts: tick(), body: map[string]any{"n": "r1", "pad": pad}, what: r1.what, ref: r1}) {
		t.Fatal("r1 not written with room")
	}
	if err := journaltest.Fill(filler); err != nil {
		t.Fatal(err)
	}
	r2 := &recRef{what: "roll r2"}
	held := []heldRecord{
		snapshotRecord(tick(), r1, []byte("jpeg of r1 "+pad), 4, 3),
		{kind: "roll", ts: tick(), body: map[string]any{"n": "r2", "pad": pad}, what: r2.what, ref: r2},
		snapshotRecord(tick(), r2, []byte("jpeg of r2 "+pad), 4, 3),
		{kind: "state", ts: tick(), body: map[string]any{"n": "s2", "phase": "point", "point": 6, "pad": pad}, what: "state s2"},
		{kind: "event", ts: tick(), body: map[string]any{"event": "x", "n": "e3", "pad": pad}, what: "event e3"},
	}
	for _, h := range held {
		if put(q, h) {
			t.Fatalf("%s written on a full disk", h.what)
		}
	}
	if q.heldCount() != 5 {
		t.Fatalf("%d held, want 5", q.heldCount())
	}
	// The last record appended (LastSeq is the last durable one, which
	// lags behind until the syncer's batch).
	lastBefore := j.NextSeq() - 1
	// Killed: nothing is flushed or closed in the queue.
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}

	// First restart, the disk still full: all five are held again.
	j, q, n = open(nil)
	if n != 5 {
		t.Fatalf("%d restored after the restart, want 5", n)
	}
	// The hold file keeps them again: not memory-only (the gauge, and
	// what the stop would log as lost).
	if held, memOnly := q.heldCounts(); held != 5 || memOnly != 0 {
		t.Errorf("after the restart: %d held, %d of them memory-only, want 5 and 0", held, memOnly)
	}
	if raw, ok := q.lastHeld("state"); !ok || !strings.Contains(string(raw), `"s2"`) {
		t.Errorf("the held state is not found for the game state: %s", raw)
	}
	if _, err := q.retry(true); err != nil {
		t.Fatal(err)
	}
	// The fault raised (small) may fit the segment's last page; no held
	// record does.
	if j.NextSeq()-1 > lastBefore+1 || q.heldCount() != 5 {
		t.Fatalf("on a full disk: journal at %d (was %d), %d held", j.NextSeq()-1, lastBefore, q.heldCount())
	}
	j.Close()

	// Second restart with room, but killed after the journal took the
	// fault raised and two held records.
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	j, q, n = open(func(j *journal.Journal) appender { return &stopAfter{Journal: j, n: 3} })
	if n != 5 {
		t.Fatalf("%d restored after the second restart, want 5", n)
	}
	if _, err := q.retry(true); err != nil {
		t.Fatal(err)
	}
	if q.heldCount() != 3 {
		t.Fatalf("%d held after the journal took 3 records, want 3", q.heldCount())
	}
	j.Close()

	// Third start: the three left are journalled, the two before are not
	// journalled again.
	j, q, n = open(nil)
	if n != 3 {
		t.Fatalf("%d restored after the third start, want 3 (two were journalled)", n)
	}
	if _, err := q.retry(true); err != nil {
		t.Fatal(err)
	}
	if q.heldCount() != 0 {
		t.Fatalf("%d still held with room", q.heldCount())
	}
	if err := j.WaitDurable(j.NextSeq() - 1); err != nil {
		t.Fatal(err)
	}
	var got []string
	ids := map[string]string{}
	var snapOf []string
	var tss []time.Time
	r := j.Reader(1)
	for {
		rec, err := r.Next()
		if err != nil {
			if err != io.EOF {
				t.Errorf("reading the journal back: %v", err)
			}
			break
		}
		var b struct {
			N, Event, What, State, DecisionID string
		}
		if err := json.Unmarshal(rec.Body, &b); err != nil {
			t.Fatal(err)
		}
		var dec struct {
			DecisionID string `json:"decision_id"`
		}
		_ = json.Unmarshal(rec.Body, &dec)
		name := b.N
		switch {
		case rec.Kind == "snapshot":
			snapOf = append(snapOf, dec.DecisionID)
		case b.Event == "fault":
			name = b.What + "-" + b.State
		default:
			ids[b.N] = rec.ID
			tss = append(tss, rec.TS)
		}
		got = append(got, rec.Kind+":"+name)
	}
	r.Close()
	j.Close()
	// Each start that found records held raises the fault once more
	// (the first restart's may have fitted the full disk's last page).
	var seq []string
	for _, g := range got {
		if g == "event:journal-raised" && len(seq) > 0 && seq[len(seq)-1] == g {
			continue
		}
		seq = append(seq, g)
	}
	want := "roll:r1 event:journal-raised snapshot: roll:r2 event:journal-raised snapshot: state:s2 event:e3 event:journal-cleared"
	if strings.Join(seq, " ") != want {
		t.Errorf("journalled %s\nwant       %s", strings.Join(got, " "), want)
	}
	if len(snapOf) != 2 || snapOf[0] != ids["r1"] || snapOf[1] != ids["r2"] {
		t.Errorf("snapshots name %v, want r1's %s and r2's %s", snapOf, ids["r1"], ids["r2"])
	}
	for i := 1; i < len(tss); i++ {
		if !tss[i].After(tss[i-1]) {
			t.Errorf("records journalled out of their own time order: %v", tss)
		}
	}
	if _, err := os.Stat(filepath.Join(holdDir, holdFileName)); !os.IsNotExist(err) {
		t.Errorf("hold file left after every record was journalled: %v", err)
	}
}

// TestReadHoldFileTornAndDamaged: a last line cut short by a crash is
// passed over (it was never held); a damaged line before it is an error
// naming its line (the daemon does not start on it rather than lose the
// records after it); no file is no records and no error.
func TestReadHoldFileTornAndDamaged(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, holdFileName)
	if _, lines, ok, err := readHoldFile(path); ok || err != nil || lines != nil {
		t.Fatalf("no file: ok %v, lines %v, err %v", ok, lines, err)
	}
	hdr := `{"since":"2026-11-27T04:00:00Z","epoch":"e1","after_seq":7}` + "\n"
	rec := `{"n":1,"kind":"event","ts":"2026-11-27T04:00:01Z","what":"e","body":{"a":1}}` + "\n"
	write := func(s string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(hdr + rec + `{"n":2,"kind":"ev`)
	h, lines, ok, err := readHoldFile(path)
	if err != nil || !ok || h.Epoch != "e1" || h.AfterSeq != 7 || len(lines) != 1 || lines[0].N != 1 {
		t.Fatalf("torn last line: header %+v, lines %+v, ok %v, err %v", h, lines, ok, err)
	}
	write(hdr + `{"n":1,"kind":` + "\n" + rec)
	if _, _, _, err := readHoldFile(path); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("damaged line 2: err %v, want one naming line 2", err)
	}
	write(`{"since":` + "\n")
	if _, _, _, err := readHoldFile(path); err == nil || !strings.Contains(err.Error(), "header") {
		t.Errorf("damaged header: err %v, want one naming the header", err)
	}
}

package main

import (
	"bytes"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dicewatch/dicewatch/journal"
	"github.com/dicewatch/dicewatch/journal/journaltest"
	"github.com/dicewatch/dicewatch/ops"
	"github.com/dicewatch/dicewatch/rules"
	"github.com/dicewatch/dicewatch/tracker"
	"github.com/dicewatch/dicewatch/vision"
	"github.com/dicewatch/dicewatch/vision/source"
)

// heldTable is a table on a fake journal whose disk is full, logging to
// logs, with the health it reports to.
func heldTable(j *fullJournal, logs *bytes.Buffer) (*table, *ops.Health) {
	health := ops.NewHealth(time.Now, ops.ComponentJournal)
	tbl := &table{
		tr: tracker.New(tracker.Config{Game: rules.Craps, DiceThrown: 2}), profile: rules.DefaultProfile(rules.Craps),
		j: j, log: slog.New(slog.NewTextHandler(logs, nil)), now: time.Now, craps: rules.NewCrapsState(),
		health: health,
	}
	tbl.cameraUp.Store(true)
	return tbl, health
}

func heldThrow(t *testing.T, tbl *table, restMS int64, a, b int) {
	t.Helper()
	die := func(v int) rules.Die { return rules.Die{Value: v, Confidence: 1, Zone: rules.ZoneLayout, Flat: true} }
	if err := tbl.decide(rules.Throw{Game: rules.Craps, DiceThrown: 2, StartMS: restMS - 1000, AtRestMS: restMS,
		Dice: []rules.Die{die(a), die(b)}}); err != nil {
		t.Fatal(err)
	}
	if err := tbl.snapshot(vision.Event{Frame: source.Frame{AtMS: restMS, Width: 4, Height: 4}, Snapshot: []byte("jpeg")}); err != nil {
		t.Fatal(err)
	}
}

// TestHeldMemoryOnlyAtStop: without journal.hold_dir, records held while
// the journal's disk is full are in memory only. The journal fault on
// /healthz says so, the held records are counted as memory-only, and a
// stop with them still held writes each whole to the log (the decision
// with its values; the snapshot named), so the decision is not lost
// without trace. Before, the stop logged only how many were lost.
func TestHeldMemoryOnlyAtStop(t *testing.T) {
	j := &fullJournal{full: true}
	var logs bytes.Buffer
	tbl, health := heldTable(j, &logs)
	heldThrow(t, tbl, 5000, 3, 4)
	held, memOnly := tbl.queue().heldCounts()
	if held == 0 || memOnly != held {
		t.Fatalf("held %d, memory only %d: want all held in memory only", held, memOnly)
	}
	c := health.Report().Components[ops.ComponentJournal]
	if c.Healthy || !strings.Contains(c.Detail, "memory only") {
		t.Errorf("journal health %+v: want failing, saying the records are in memory only", c)
	}
	stopHeld(tbl, slog.New(slog.NewTextHandler(&logs, nil)))
	out := logs.String()
	for _, want := range []string{"lost, never published", `msg="lost held record" kind=roll`, `\"values\":[3,4]`, `msg="lost held record" kind=state`, `msg="lost held record" kind=snapshot`} {
		if !strings.Contains(out, want) {
			t.Errorf("the stop's log lacks %q:\n%s", want, out)
		}
	}
}

// TestHeldJournalledAtStop: records held while the disk was full are
// journalled at the stop if the journal takes them by then (one forced
// try, not waiting for the next second's retry), and nothing is logged
// as lost.
func TestHeldJournalledAtStop(t *testing.T) {
	j := &fullJournal{full: true}
	var logs bytes.Buffer
	tbl, _ := heldTable(j, &logs)
	heldThrow(t, tbl, 5000, 3, 4)
	j.full = false
	stopHeld(tbl, slog.New(slog.NewTextHandler(&logs, nil)))
	if n, _ := tbl.queue().heldCounts(); n != 0 {
		t.Errorf("%d records still held after the stop", n)
	}
	var kinds []string
	for _, r := range j.recs {
		kinds = append(kinds, r.Kind)
	}
	if got := strings.Join(kinds, " "); got != "event roll state snapshot event" {
		t.Errorf("journalled at the stop: %s, want the fault raised, the held decision, state and snapshot, the fault cleared", got)
	}
	if strings.Contains(logs.String(), "lost") {
		t.Errorf("logged as lost:\n%s", logs.String())
	}
}

// TestHeldKeptByHoldFileNotMemoryOnly: with a hold file the held records
// are not counted as memory-only, and the stop says they are kept; once
// the hold file's disk is full too, the records after that are memory-only
// and the journal's health says so.
func TestHeldKeptByHoldFileNotMemoryOnly(t *testing.T) {
	j := &fullJournal{full: true}
	var logs bytes.Buffer
	tbl, health := heldTable(j, &logs)
	holdDisk := journaltest.SmallDisk(t, "64k")
	q := tbl.queue()
	q.file = newHoldFile(filepath.Join(holdDisk, "held"), func() (string, uint64) { return "e", 0 })
	q.fileFailed = holdFileFailed(tbl.log, health) // the daemon's
	heldThrow(t, tbl, 5000, 3, 4)
	if held, memOnly := q.heldCounts(); held == 0 || memOnly != 0 {
		t.Fatalf("held %d, memory only %d: want all kept by the hold file", held, memOnly)
	}
	if err := journaltest.Fill(filepath.Join(holdDisk, "filler")); err != nil {
		t.Fatal(err)
	}
	// The hold file's last page may still take a throw or two.
	var held, memOnly int
	for i := range 10 {
		heldThrow(t, tbl, int64(9000+5000*i), 2, 6)
		if held, memOnly = q.heldCounts(); memOnly > 0 {
			break
		}
	}
	if memOnly == 0 || memOnly == held {
		t.Errorf("held %d, memory only %d: want the later throws' records memory-only, the first's kept", held, memOnly)
	}
	if c := health.Report().Components[ops.ComponentJournal]; !strings.Contains(c.Detail, "memory only") {
		t.Errorf("journal health %+v: want it to say records are in memory only", c)
	}
	logs.Reset()
	stopHeld(tbl, slog.New(slog.NewTextHandler(&logs, nil)))
	if out := logs.String(); !strings.Contains(out, `\"values\":[2,6]`) || strings.Contains(out, `\"values\":[3,4]`) {
		t.Errorf("the stop should log the second throw's decision (memory only), not the first's (in the hold file):\n%s", out)
	}
}

// failedJournal is a journal that failed for good (a failed fdatasync, or
// a partial record it could not cut off): every append returns the error.
type failedJournal struct{ fullJournal }

func (f *failedJournal) AppendNoWait(string, time.Time, any) (journal.Record, error) {
	return journal.Record{}, errors.New("journal: sync: input/output error")
}

func (f *failedJournal) Append(kind string, ts time.Time, body any) (journal.Record, error) {
	return f.AppendNoWait(kind, ts, body)
}

// TestFailedJournalDecisionLogged: a decision the journal refuses because
// it failed for good stops the table (the error is returned), and the
// stop writes the decision whole to the log. Before, it was dropped with
// only the error logged: the values it decided were nowhere.
func TestFailedJournalDecisionLogged(t *testing.T) {
	var logs bytes.Buffer
	health := ops.NewHealth(time.Now, ops.ComponentJournal)
	tbl := &table{
		tr: tracker.New(tracker.Config{Game: rules.Craps, DiceThrown: 2}), profile: rules.DefaultProfile(rules.Craps),
		j: &failedJournal{}, log: slog.New(slog.NewTextHandler(&logs, nil)), now: time.Now, craps: rules.NewCrapsState(),
		health: health,
	}
	die := func(v int) rules.Die { return rules.Die{Value: v, Confidence: 1, Zone: rules.ZoneLayout, Flat: true} }
	err := tbl.decide(rules.Throw{Game: rules.Craps, DiceThrown: 2, StartMS: 4000, AtRestMS: 5000, Dice: []rules.Die{die(6), die(5)}})
	if err == nil {
		t.Fatal("a decision on a failed journal returned no error")
	}
	stopHeld(tbl, slog.New(slog.NewTextHandler(&logs, nil)))
	if out := logs.String(); !strings.Contains(out, `msg="lost held record" kind=roll`) || !strings.Contains(out, `\"values\":[6,5]`) {
		t.Errorf("the stop's log lacks the decision:\n%s", out)
	}
}

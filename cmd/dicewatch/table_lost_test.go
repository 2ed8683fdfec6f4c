package main

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dicewatch/dicewatch/journal"
	"github.com/dicewatch/dicewatch/mqtt"
	"github.com/dicewatch/dicewatch/rules"
	"github.com/dicewatch/dicewatch/tracker"
	"github.com/dicewatch/dicewatch/vision"
	"github.com/dicewatch/dicewatch/vision/source"
)

// fullJournal is an appender whose disk is full while full is set: every
// record is refused with journal.ErrNotWritten, past room more records.
type fullJournal struct {
	full   bool
	room   int
	recs   []journal.Record
	bodies []any
}

func (f *fullJournal) AppendNoWait(kind string, ts time.Time, body any) (journal.Record, error) {
	if f.full {
		if f.room == 0 {
			return journal.Record{}, fmt.Errorf("%w: %w", journal.ErrNotWritten, syscall.ENOSPC)
		}
		f.room--
	}
	r := journal.Record{Seq: uint64(len(f.recs) + 1), Kind: kind, TS: ts}
	r.ID = fmt.Sprintf("x-%d", r.Seq)
	f.recs = append(f.recs, r)
	f.bodies = append(f.bodies, body)
	return r, nil
}

func (f *fullJournal) Append(kind string, ts time.Time, body any) (journal.Record, error) {
	return f.AppendNoWait(kind, ts, body)
}

func (f *fullJournal) WaitDurable(uint64) error { return nil }

// TestHeldDecisionKeepsItsSnapshot: a decision the journal refuses is
// held, and journalled once the journal takes records again, before its
// snapshot (which vision sends right after the at-rest frame, and which
// names it) and before the next decision; the snapshot is never given to
// the next decision. Before holding, the decision and its snapshot were
// lost.
func TestHeldDecisionKeepsItsSnapshot(t *testing.T) {
	j := &fullJournal{}
	tbl := &table{
		tr: tracker.New(tracker.Config{Game: rules.Craps, DiceThrown: 2}), profile: rules.DefaultProfile(rules.Craps),
		j: j, log: slog.New(slog.NewTextHandler(io.Discard, nil)), now: time.Now, craps: rules.NewCrapsState(),
	}
	throw := func(restMS int64, a, b int) rules.Throw {
		return rules.Throw{Game: rules.Craps, DiceThrown: 2, StartMS: restMS - 1000, AtRestMS: restMS,
			Dice: []rules.Die{{Value: a, Confidence: 1, Zone: rules.ZoneLayout, Flat: true}, {Value: b, Confidence: 1, Zone: rules.ZoneLayout, Flat: true}}}
	}
	snap := func(restMS int64, what string) vision.Event {
		return vision.Event{Frame: source.Frame{AtMS: restMS, Width: 4, Height: 4}, Snapshot: []byte(what)}
	}
	j.full = true
	if err := tbl.decide(throw(5000, 3, 4)); err != nil {
		t.Fatal(err)
	}
	heldTS := time.Now()
	j.full = false
	if err := tbl.snapshot(snap(5000, "picture of the held throw")); err != nil {
		t.Fatal(err)
	}
	if err := tbl.decide(throw(9000, 2, 6)); err != nil {
		t.Fatal(err)
	}
	if err := tbl.snapshot(snap(9000, "picture of the next throw")); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	ids := map[int]string{} // decision ids by at_rest_ms
	for i, r := range j.recs {
		kinds = append(kinds, r.Kind)
		if r.Kind == "roll" || r.Kind == "noroll" {
			raw, err := json.Marshal(j.bodies[i])
			if err != nil {
				t.Fatal(err)
			}
			var b decisionBody
			if err := json.Unmarshal(raw, &b); err != nil {
				t.Fatal(err)
			}
			ids[int(b.AtRestMS)] = r.ID
			if b.AtRestMS == 5000 && !r.TS.Before(heldTS) {
				t.Errorf("the held decision has ts %s, not the time it was made (before %s)", r.TS, heldTS)
			}
		}
	}
	t.Logf("journalled: %v", kinds)
	want := []string{"event", "roll", "state", "event", "snapshot", "roll", "state", "snapshot"}
	if strings.Join(kinds, " ") != strings.Join(want, " ") {
		t.Fatalf("journalled %v, want %v (fault raised, the held decision and state, fault cleared, its snapshot, the next)", kinds, want)
	}
	for i, r := range j.recs {
		sn, ok := j.bodies[i].(mqtt.Snapshot)
		if !ok {
			continue
		}
		wantID := ids[9000]
		if strings.Contains(string(sn.JPEG), "held") {
			wantID = ids[5000]
		}
		if sn.DecisionID != wantID || wantID == "" {
			t.Errorf("snapshot %d (%q) names decision %q, want %q", r.Seq, sn.JPEG, sn.DecisionID, wantID)
		}
	}
}

// TestHeldDecisionLampsAndCount: a decision the journal refuses is shown
// on the lamps at once, with the fault lamp lit while the journal fault is
// open, and counted (onDecide: the metrics) once, when it is journalled.
// Before, the lamps kept the decision before it and no fault, and a held
// decision was never counted.
func TestHeldDecisionLampsAndCount(t *testing.T) {
	j := &fullJournal{}
	counted := 0
	tbl := &table{
		tr: tracker.New(tracker.Config{Game: rules.Craps, DiceThrown: 2}), profile: rules.DefaultProfile(rules.Craps),
		j: j, log: slog.New(slog.NewTextHandler(io.Discard, nil)), now: time.Now, craps: rules.NewCrapsState(),
		onDecide: func(rules.Throw, rules.Decision) { counted++ },
	}
	tbl.cameraUp.Store(true)
	die := func(v int) rules.Die { return rules.Die{Value: v, Confidence: 1, Zone: rules.ZoneLayout, Flat: true} }
	if err := tbl.decide(rules.Throw{Game: rules.Craps, DiceThrown: 2, StartMS: 1000, AtRestMS: 2000,
		Dice: []rules.Die{die(3), die(4)}}); err != nil {
		t.Fatal(err)
	}
	if st := tbl.lampState(); st.NoRoll || st.Fault || counted != 1 {
		t.Fatalf("after a valid roll with room: lamps %+v, counted %d", st, counted)
	}
	j.full = true
	// One die: no roll (dice missing), held.
	if err := tbl.decide(rules.Throw{Game: rules.Craps, DiceThrown: 2, StartMS: 5000, AtRestMS: 6000,
		Dice: []rules.Die{die(5)}}); err != nil {
		t.Fatal(err)
	}
	if tbl.queue().heldCount() == 0 {
		t.Fatal("the decision was not held on a full disk")
	}
	st := tbl.lampState()
	if !st.NoRoll || !st.Fault {
		t.Errorf("held no-roll: lamps %+v, want no_roll and fault lit", st)
	}
	if counted != 1 {
		t.Errorf("held decision counted before it was journalled (%d)", counted)
	}
	j.full = false
	if err := tbl.retryHeld(true); err != nil {
		t.Fatal(err)
	}
	if counted != 2 {
		t.Errorf("counted %d decisions once the held one was journalled, want 2", counted)
	}
	if err := tbl.tick(7000); err != nil {
		t.Fatal(err)
	}
	if st := tbl.lampState(); !st.NoRoll || st.Fault {
		t.Errorf("after the journal took it: lamps %+v, want no_roll and no fault", st)
	}
}

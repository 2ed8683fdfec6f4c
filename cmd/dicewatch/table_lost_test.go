package main

import (
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
// record is refused with journal.ErrNotWritten.
type fullJournal struct {
	full   bool
	recs   []journal.Record
	bodies []any
}

func (f *fullJournal) AppendNoWait(kind string, ts time.Time, body any) (journal.Record, error) {
	if f.full {
		return journal.Record{}, fmt.Errorf("%w: %w", journal.ErrNotWritten, syscall.ENOSPC)
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

// TestLostDecisionKeepsItsSnapshot: a decision the journal refuses is
// lost with its snapshot; that snapshot, which vision sends right after
// the at-rest frame, must not be journalled with the next decision.
func TestLostDecisionKeepsItsSnapshot(t *testing.T) {
	j := &fullJournal{}
	tbl := &table{
		tr: tracker.New(tracker.Config{Game: rules.Craps, DiceThrown: 2}), profile: rules.DefaultProfile(rules.Craps),
		j: j, log: slog.New(slog.NewTextHandler(io.Discard, nil)), now: time.Now, craps: rules.NewCrapsState(),
	}
	throw := func(restMS int64) rules.Throw {
		return rules.Throw{Game: rules.Craps, DiceThrown: 2, StartMS: restMS - 1000, AtRestMS: restMS,
			Dice: []rules.Die{{Value: 3, Confidence: 1, Zone: rules.ZoneLayout, Flat: true}, {Value: 4, Confidence: 1, Zone: rules.ZoneLayout, Flat: true}}}
	}
	snap := func(restMS int64, what string) vision.Event {
		return vision.Event{Frame: source.Frame{AtMS: restMS, Width: 4, Height: 4}, Snapshot: []byte(what)}
	}
	j.full = true
	if err := tbl.decide(throw(5000)); err != nil {
		t.Fatal(err)
	}
	j.full = false
	if err := tbl.snapshot(snap(5000, "picture of the lost throw")); err != nil {
		t.Fatal(err)
	}
	if err := tbl.decide(throw(9000)); err != nil {
		t.Fatal(err)
	}
	if err := tbl.snapshot(snap(9000, "picture of the next throw")); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for i, r := range j.recs {
		kinds = append(kinds, r.Kind)
		if sn, ok := j.bodies[i].(mqtt.Snapshot); ok && strings.Contains(string(sn.JPEG), "lost") {
			t.Errorf("the lost decision's snapshot was journalled for %s", sn.DecisionID)
		}
	}
	t.Logf("journalled: %v", kinds)
	n := 0
	for _, k := range kinds {
		if k == "snapshot" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d snapshots journalled, want 1 (the next throw's)", n)
	}
}

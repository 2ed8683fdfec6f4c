package main

import (
	"math"
	"testing"
	"time"

	"github.com/dicewatch/dicewatch/ops"
)

// TestLatencyLog checks that a decision's timing is completed by the
// broker's acknowledgement whichever arrives first, that each per-throw
// stage histogram gets the right duration, and that acknowledgements of
// other records (state, snapshot, events) are not reported.
func TestLatencyLog(t *testing.T) {
	base := time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)
	at := func(ms float64) time.Time { return base.Add(time.Duration(ms * float64(time.Millisecond))) }
	m := ops.NewMetrics("test")
	var got []throwLatency
	l := newLatencyLog(m, func(tl throwLatency) { got = append(got, tl) })

	// Decision 5: the table loop first, then the acknowledgement.
	l.decided(throwLatency{Seq: 5, Delivered: at(0), Detected: at(10), Decided: at(11), Durable: at(15)})
	l.acked(6, at(16), at(17)) // the state record after it: not a decision
	if len(got) != 0 {
		t.Fatalf("reported before its acknowledgement: %+v", got)
	}
	l.acked(5, at(16), at(18))
	// Decision 9: acknowledged before Append returned to the table loop.
	l.acked(9, at(30), at(31))
	l.decided(throwLatency{Seq: 9, Delivered: at(20), Detected: at(25), Decided: at(26), Durable: at(30.5)})
	if len(got) != 2 || got[0].Seq != 5 || got[1].Seq != 9 {
		t.Fatalf("reported %+v, want seq 5 then 9", got)
	}
	if got[0].Sent != at(16) || got[0].Acked != at(18) || got[1].Sent != at(30) || got[1].Acked != at(31) {
		t.Errorf("sent/acked not taken from the acknowledgement: %+v", got)
	}
	// Sums in ms over both throws; dispatch of 9 is -0.5 ms, clamped to 0.
	for _, c := range []struct {
		stage ops.Stage
		sumMS float64
	}{
		{ops.StageDecide, 1 + 1},
		{ops.StageJournal, 4 + 4.5},
		{ops.StageDispatch, 1 + 0},
		{ops.StagePublish, 2 + 1},
		{ops.StageDecision, 18 + 11},
	} {
		s := m.Stages[c.stage].Snapshot()
		if s.Count != 2 || math.Abs(s.Sum*1000-c.sumMS) > 1e-6 {
			t.Errorf("stage %s: %d observations summing %.3f ms, want 2 summing %.3f ms", c.stage, s.Count, s.Sum*1000, c.sumMS)
		}
	}
	// Acknowledgements of other records do not pile up.
	for seq := uint64(10); seq < 5000; seq++ {
		l.acked(seq, at(40), at(41))
	}
	if n := len(l.early); n > 2*keepBehind {
		t.Errorf("%d early acknowledgements kept; want at most %d", n, 2*keepBehind)
	}
}

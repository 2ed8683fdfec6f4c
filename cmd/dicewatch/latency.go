package main

import (
	"sync"
	"time"

	"github.com/dicewatch/dicewatch/ops"
)

// throwLatency follows one decision through the daemon in wall time, from
// the camera handing over the frame that showed the dice at rest to the
// broker acknowledging the decision. The table loop fills it up to
// Durable; the publisher's acknowledgement completes it.
type throwLatency struct {
	Seq      uint64
	Frame    int   // the deciding (at-rest) frame's index in the source
	FrameMS  int64 // its stream time
	AtRestMS int64 // the throw's at-rest time (equals FrameMS when decided on a frame)
	// Delivered: the source handed the deciding frame over. Detected:
	// vision finished motion and reading on it and passed it on.
	Delivered, Detected time.Time
	// Decided: rules.Decide returned. Durable: the decision record was
	// appended and fsync'd.
	Decided, Durable time.Time
	// Sent: the publisher handed the record to the MQTT client. Acked:
	// the broker acknowledged it.
	Sent, Acked time.Time
}

// restFrame is the at-rest frame of the open throw as vision reported it.
type restFrame struct {
	index               int
	atMS                int64
	delivered, detected time.Time
}

// latencyLog pairs the table loop's half of each decision's timing with
// the publisher's acknowledgement, observes the per-throw stage histograms
// and hands complete records to done (benchmarks). Safe for concurrent use:
// the table loop calls decided, the publisher acked.
type latencyLog struct {
	m    *ops.Metrics
	done func(throwLatency)

	mu   sync.Mutex
	open map[uint64]throwLatency
	// early holds acknowledgements that arrived before the table loop
	// registered the record (the publisher sees a record as soon as it is
	// durable, possibly before Append has returned to the table loop).
	// Every record kind is acknowledged; entries far behind are dropped.
	early map[uint64][2]time.Time
}

func newLatencyLog(m *ops.Metrics, done func(throwLatency)) *latencyLog {
	return &latencyLog{m: m, done: done, open: map[uint64]throwLatency{}, early: map[uint64][2]time.Time{}}
}

// keepBehind bounds both maps: a record this many seqs behind the newest
// acknowledgement is no longer waited for (it was acknowledged in an
// earlier broker session, or never will be in this process).
const keepBehind = 1024

// decided takes a journalled decision (Seq..Durable set).
func (l *latencyLog) decided(tl throwLatency) {
	if l.m != nil {
		l.m.ObserveStage(ops.StageDecide, nonNeg(tl.Decided.Sub(tl.Detected)))
		l.m.ObserveStage(ops.StageJournal, nonNeg(tl.Durable.Sub(tl.Decided)))
	}
	l.mu.Lock()
	if a, ok := l.early[tl.Seq]; ok {
		delete(l.early, tl.Seq)
		l.mu.Unlock()
		tl.Sent, tl.Acked = a[0], a[1]
		l.complete(tl)
		return
	}
	l.open[tl.Seq] = tl
	l.mu.Unlock()
}

// acked is the publisher's AckObserver.
func (l *latencyLog) acked(seq uint64, sent, acked time.Time) {
	l.mu.Lock()
	tl, ok := l.open[seq]
	if ok {
		delete(l.open, seq)
	} else {
		l.early[seq] = [2]time.Time{sent, acked}
	}
	if seq%256 == 0 {
		for s := range l.early {
			if s+keepBehind < seq {
				delete(l.early, s)
			}
		}
		for s := range l.open {
			if s+keepBehind < seq {
				delete(l.open, s)
			}
		}
	}
	l.mu.Unlock()
	if ok {
		tl.Sent, tl.Acked = sent, acked
		l.complete(tl)
	}
}

func (l *latencyLog) complete(tl throwLatency) {
	if l.m != nil {
		l.m.ObserveStage(ops.StageDispatch, nonNeg(tl.Sent.Sub(tl.Durable)))
		l.m.ObserveStage(ops.StagePublish, nonNeg(tl.Acked.Sub(tl.Sent)))
		l.m.ObserveStage(ops.StageDecision, nonNeg(tl.Acked.Sub(tl.Delivered)))
	}
	if l.done != nil {
		l.done(tl)
	}
}

// nonNeg clamps a duration at zero: the publisher may pick a record up a
// moment before Append has returned to the table loop.
func nonNeg(d time.Duration) time.Duration { return max(d, 0) }

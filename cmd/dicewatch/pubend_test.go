package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/dicewatch/dicewatch/journal"
	"github.com/dicewatch/dicewatch/mqtt"
)

// failedPublisher stands in for an MQTT publisher that stopped on a
// journal error by itself (a damaged record) just as the run ended for
// another reason, so the daemon's watch on it did not see it first.
type failedPublisher struct{}

func (failedPublisher) Run(context.Context) error {
	return fmt.Errorf("mqtt: read journal: %w", journal.ErrCorrupt)
}
func (failedPublisher) Notify()                       {}
func (failedPublisher) OnCommand(mqtt.CommandHandler) {}
func (failedPublisher) Connected() bool               { return false }
func (failedPublisher) Acked() uint64                 { return 0 }

// TestStopRunReportsPublisherEnded: the run ends (the recording's end,
// or a signal) while the publisher has stopped on a journal error. The
// stop must return that error (exit status 1, not a clean stop), and at
// the end of a recording it must not wait the whole delivery limit for
// acknowledgements a stopped publisher will never give. Before, the
// error was a warning in the log and the daemon exited 0, after 30 s.
func TestStopRunReportsPublisherEnded(t *testing.T) {
	for _, runErr := range []error{errEOF, context.Canceled} {
		t.Run(fmt.Sprint(runErr), func(t *testing.T) {
			var logs bytes.Buffer
			tbl, _ := heldTable(&fullJournal{}, &logs)
			pub := failedPublisher{}
			pubDone := make(chan error, 1)
			pubDone <- pub.Run(context.Background())
			log := slog.New(slog.NewTextHandler(&logs, nil))
			start := time.Now()
			err := stopRun(context.Background(), runErr, tbl, pub, func() uint64 { return 5 }, func() {}, pubDone, nil, log)
			if !errors.Is(err, journal.ErrCorrupt) {
				t.Errorf("stopRun returned %v, want the publisher's journal error; log:\n%s", err, logs.String())
			}
			if took := time.Since(start); took > 10*time.Second {
				t.Errorf("stopRun took %v waiting for a stopped publisher's acknowledgements", took.Round(time.Second))
			}
		})
	}
}

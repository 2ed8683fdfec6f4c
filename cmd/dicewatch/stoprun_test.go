package main

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/dicewatch/dicewatch/mqtt"
)

// stoppingPublisher stands in for the MQTT publisher of a daemon stopped
// while a command is handled: as it stops it journals the command's
// result through the table (mqtt.Publisher.Run returns only once it has,
// TestRunWaitsForCommandInHand).
type stoppingPublisher struct{ tbl *table }

func (p *stoppingPublisher) Run(ctx context.Context) error {
	<-ctx.Done()
	res := mqtt.CommandResult{Event: "command", Command: "noroll", Result: "rejected", Reason: mqtt.ReasonRefused,
		Detail: "context canceled", KeyID: "box-1", Nonce: "nonce-in-hand-at-the-stop"}
	_ = p.tbl.journalAt(time.Now(), res, "event command result")
	return nil
}
func (p *stoppingPublisher) Notify()                       {}
func (p *stoppingPublisher) OnCommand(mqtt.CommandHandler) {}
func (p *stoppingPublisher) Connected() bool               { return true }
func (p *stoppingPublisher) Acked() uint64                 { return 0 }

// TestStopKeepsCommandResultInHand: a daemon stopped (SIGTERM) with its
// journal's disk full and no journal.hold_dir, while a command is being
// handled. The command's nonce is stored, so its result is decided; the
// journal refuses it, so it is held, in memory only, and the stop must
// write it to the log like every other held record it loses. Before, the
// held records were settled before the publisher stopped, and a result
// journalled as it stopped was held after that: lost without a trace.
func TestStopKeepsCommandResultInHand(t *testing.T) {
	j := &fullJournal{full: true}
	var logs bytes.Buffer
	tbl, _ := heldTable(j, &logs)
	heldThrow(t, tbl, 5000, 3, 4)
	pub := &stoppingPublisher{tbl: tbl}
	pubCtx, stopPub := context.WithCancel(context.Background())
	defer stopPub()
	pubDone := make(chan error, 1)
	go func() { pubDone <- pub.Run(pubCtx) }()
	log := slog.New(slog.NewTextHandler(&logs, nil))
	if err := stopRun(context.Background(), context.Canceled, tbl, pub, func() uint64 { return 0 }, stopPub, pubDone, nil, log); err != context.Canceled {
		t.Errorf("stopRun returned %v, want the run's context.Canceled", err)
	}
	out := logs.String()
	for _, want := range []string{`msg="lost held record" kind=roll`, `msg="lost held record" kind=event`, "nonce-in-hand-at-the-stop"} {
		if !strings.Contains(out, want) {
			t.Errorf("the stop's log lacks %q:\n%s", want, out)
		}
	}
	if n, memOnly := tbl.queue().heldCounts(); n == 0 || memOnly != n {
		t.Errorf("after the stop: %d held, %d in memory only; want every held record in memory only (and logged)", n, memOnly)
	}
}

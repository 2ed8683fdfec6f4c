package main

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/dicewatch/dicewatch/mqtt"
)

// TestStaffCallAnsweredAtStop: a no-roll command the table loop has taken
// and answered keeps that answer even when the publisher's context is
// cancelled before the handler looks at it (the table loop answers, then
// returns at a SIGTERM, and the publisher is stopped). The call is on the
// throw: reporting it "rejected: context canceled" would tell the sender
// it was not. Before, the handler took whichever of the answer and the
// cancellation the select picked: about half the time the cancellation.
// On one processor the order is fixed: the handler waits to hand the call
// over, the table loop takes it, answers and the context is cancelled
// before the handler runs again.
func TestStaffCallAnsweredAtStop(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	cmd := mqtt.Command{Name: "noroll", Operator: "op", Role: "boxman"}
	wrong := 0
	const n = 200
	for range n {
		ctx, cancel := context.WithCancel(context.Background())
		staff := make(chan staffRequest)
		done := make(chan error, 1)
		go func() { done <- handleCommand(ctx, cmd, staff) }()
		time.Sleep(100 * time.Microsecond) // the handler waits on staff
		r := <-staff
		r.reply <- nil
		cancel()
		if err := <-done; err != nil {
			wrong++
		}
	}
	if wrong > 0 {
		t.Errorf("%d of %d answered staff calls reported as %v", wrong, n, context.Canceled)
	}
}

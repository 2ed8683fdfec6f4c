package mqtt

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/dicewatch/dicewatch/journal"
	"github.com/dicewatch/dicewatch/mqtt/mqtttest"
)

// TestRunWaitsForCommandInHand: a command whose handler is still at work
// when the publisher is stopped (SIGTERM while the table loop hands over a
// staff call) has its nonce stored: it is decided, refused or not, and its
// result must be journalled before Run returns, while the daemon can still
// journal it, hold it, or log it as lost. Before, Run returned with the
// handler still running; its result came after the daemon's stop (its
// journal closed) and was lost without a trace.
func TestRunWaitsForCommandInHand(t *testing.T) {
	b := mqtttest.StartBroker(t, mqtttest.WithoutPersistence())
	cfg := cmdConfig(b.URL(), t.TempDir())
	j, err := journal.Open(t.TempDir(), journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	p, err := NewPublisher(cfg, j, Birth{Version: "stop"}, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	entered := make(chan struct{})
	p.OnCommand(func(ctx context.Context, c Command) error {
		close(entered)
		<-ctx.Done()
		time.Sleep(time.Second) // the table loop's answer, slow to come
		return errors.New("the table stopped")
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	waitFor(t, 10*time.Second, "connected", p.Connected)
	go func() {
		// Published at QoS 1; the result is not waited for: the publisher
		// is stopped before it could go out.
		_, _ = SendCommand(context.Background(), SendOptions{Conn: Config{Broker: b.URL(), Table: "t1"},
			KeyID: "box-1", Key: boxKey, Command: "noroll", Args: json.RawMessage(`{"cause":"stop"}`)})
	}()
	select {
	case <-entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the command never reached the handler")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	// Run has returned: the result is in the journal now, not later.
	r := j.Reader(1)
	defer r.Close()
	var results []CommandResult
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		var res CommandResult
		if rec.Kind == "event" && json.Unmarshal(rec.Body, &res) == nil && res.Event == "command" {
			results = append(results, res)
		}
	}
	if len(results) != 1 || results[0].Result != "rejected" || results[0].KeyID != "box-1" {
		t.Errorf("command results journalled by the time Run returned: %+v, want the one rejected", results)
	}
}

// TestCommandAfterRunTurnedAway: a command that comes once Run has
// returned is turned away unverified: rejected as the daemon stopping, no
// handler called, nothing journalled (the journal may be closed by then)
// and its nonce not stored, so the sender may send it again.
func TestCommandAfterRunTurnedAway(t *testing.T) {
	p, j := offlinePublisher(t)
	called := false
	p.OnCommand(func(context.Context, Command) error { called = true; return nil })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := p.Run(ctx); err != nil {
		t.Fatalf("Run: %v", err)
	}
	res := p.HandleCommand("noroll", sign(t, boxKey, "box-1", noroll("after the stop")))
	if res.Result != "rejected" || res.Reason != ReasonInternal || res.Detail != "the daemon is stopping" {
		t.Errorf("command after Run: %+v, want rejected as the daemon stopping", res)
	}
	if called {
		t.Error("the handler was called after Run returned")
	}
	if n := j.LastSeq(); n != 0 {
		t.Errorf("%d records journalled after Run returned, want none", n)
	}
	if n := len(p.nonces.seen); n != 0 {
		t.Errorf("%d nonces stored after Run returned, want none", n)
	}
}

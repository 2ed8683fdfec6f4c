package mqtt

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/dicewatch/dicewatch/mqtt/mqtttest"
)

// TestPublishOfflineLeavesQueuedCommands: PublishOffline connects with the
// daemon's client id and persistent session. A command queued for that
// session while the daemon was down is delivered to the connection but,
// with no handler, not acknowledged: it is still queued for the next
// daemon that connects, which gets it. The retained status is the
// offline one.
func TestPublishOfflineLeavesQueuedCommands(t *testing.T) {
	b := mqtttest.StartBroker(t)
	cfg := Config{Broker: b.URL(), Table: "q1", StateDir: t.TempDir()}
	cfg.SetDefaults()
	connect := func(h paho.MessageHandler) paho.Client {
		t.Helper()
		c := paho.NewClient(paho.NewClientOptions().AddBroker(b.URL()).SetClientID(cfg.ClientID).SetCleanSession(false).
			SetAutoReconnect(false).SetDefaultPublishHandler(h))
		if tok := c.Connect(); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
			t.Fatalf("connect: %v", tok.Error())
		}
		return c
	}
	// The daemon's earlier run: subscribed to its commands, at QoS 1.
	d := connect(nil)
	if tok := d.Subscribe(cfg.Prefix+"cmd/+", 1, nil); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatalf("subscribe: %v", tok.Error())
	}
	d.Disconnect(100)
	// A command sent while it is down.
	s := paho.NewClient(paho.NewClientOptions().AddBroker(b.URL()).SetClientID("console"))
	if tok := s.Connect(); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatalf("connect: %v", tok.Error())
	}
	if tok := s.Publish(cfg.Prefix+"cmd/noroll", 1, false, "queued"); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatalf("publish: %v", tok.Error())
	}
	s.Disconnect(100)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := PublishOffline(ctx, cfg, Birth{Version: "test"}, "0123456789abcdef", 7, ReasonJournalDamaged, "damaged"); err != nil {
		t.Fatal(err)
	}
	sub := mqtttest.Subscribe(t, b.URL(), mqtttest.SubscriberOptions{ClientID: "late"}, cfg.Prefix+"status")
	msgs := sub.Wait(5*time.Second, func(m []mqtttest.Message) bool { return len(m) > 0 })
	if len(msgs) == 0 || !msgs[0].Retained {
		t.Fatalf("retained status %v", msgs)
	}
	var st struct{ Status, Reason, Detail string }
	if err := json.Unmarshal(msgs[0].Payload, &st); err != nil || st.Status != "offline" || st.Reason != ReasonJournalDamaged || st.Detail != "damaged" {
		t.Fatalf("retained status %s (%v), want offline, %s, damaged", msgs[0].Payload, err, ReasonJournalDamaged)
	}

	got := make(chan string, 4)
	d = connect(func(_ paho.Client, m paho.Message) { got <- string(m.Payload()) })
	defer d.Disconnect(100)
	select {
	case p := <-got:
		if p != "queued" {
			t.Errorf("the next session got %q, want the queued command", p)
		}
	case <-time.After(5 * time.Second):
		t.Error("the command queued while the daemon was down is gone after PublishOffline")
	}
}

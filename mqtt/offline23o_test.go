package mqtt

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/dicewatch/dicewatch/mqtt/mqtttest"
)

// TestPublishOfflineTakesOverALiveSession: the last run was killed and
// the broker has not yet noticed (its keepalive has not run out), so a
// connection with the daemon's client id is still open, with its will
// (offline, connection_lost) set, when the next start refuses the
// journal. PublishOffline's connect takes the session over: the broker
// drops the old connection and publishes its will. The retained status
// must end as journal_damaged, not the old will's connection_lost
// published after it (review23o).
func TestPublishOfflineTakesOverALiveSession(t *testing.T) {
	b := mqtttest.StartBroker(t)
	cfg := Config{Broker: b.URL(), Table: "q2", StateDir: t.TempDir()}
	cfg.SetDefaults()
	will := statusPayload(cfg, Birth{Version: "old"}, "0123456789abcdef", 5, time.Now(), false, ReasonConnectionLost, "")
	online := statusPayload(cfg, Birth{Version: "old"}, "0123456789abcdef", 5, time.Now(), true, "", "")
	kicked := make(chan error, 1)
	o, err := clientOptions(cfg, will, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	o.SetKeepAlive(60 * time.Second).SetConnectionLostHandler(func(_ paho.Client, err error) { kicked <- err })
	old := paho.NewClient(o)
	if tok := old.Connect(); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatalf("connect: %v", tok.Error())
	}
	defer old.Disconnect(0)
	if tok := old.Publish(cfg.Prefix+"status", 1, true, online); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatalf("publish: %v", tok.Error())
	}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	start := time.Now()
	if err := PublishOffline(ctx, cfg, Birth{Version: "test"}, "0123456789abcdef", 5, ReasonJournalDamaged, "damaged"); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("PublishOffline took %v over a live session", took)
	}
	select {
	case <-kicked:
	case <-time.After(5 * time.Second):
		t.Error("the old connection was not dropped by the takeover")
	}
	// Let anything the broker still had to send go out first.
	time.Sleep(300 * time.Millisecond)
	sub := mqtttest.Subscribe(t, b.URL(), mqtttest.SubscriberOptions{ClientID: "late"}, cfg.Prefix+"status")
	msgs := sub.Wait(5*time.Second, func(m []mqtttest.Message) bool { return len(m) > 0 })
	if len(msgs) == 0 {
		t.Fatal("no retained status")
	}
	var st Status
	if err := json.Unmarshal(msgs[len(msgs)-1].Payload, &st); err != nil {
		t.Fatal(err)
	}
	if st.Status != "offline" || st.Reason != ReasonJournalDamaged {
		t.Errorf("retained status after the takeover: %s, want offline journal_damaged", msgs[len(msgs)-1].Payload)
	}
}

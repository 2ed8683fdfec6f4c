package mqtt

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dicewatch/dicewatch/journal"
	"github.com/dicewatch/dicewatch/journal/journaltest"
	"github.com/dicewatch/dicewatch/mqtt/mqtttest"
)

// TestJournalErrorPublishesOffline: the publisher's journal has a record
// it cannot read (its bytes damaged on disk, in a segment before the
// last, where opening the journal does not look). Run publishes up to
// it, then returns the journal's error, and the retained status a
// subscriber arriving later sees is offline. Before, Run dropped the
// connection at once: the acknowledgements in flight were not counted
// (acked 0 here), and the offline status was the broker's will, sent
// only if the connection broke before the client's DISCONNECT went out
// (after a clean DISCONNECT the birth, online, would have stayed).
func TestJournalErrorPublishesOffline(t *testing.T) {
	b := mqtttest.StartBroker(t, mqtttest.WithoutPersistence())
	jdir := t.TempDir()
	j, err := journal.Open(jdir, journal.Options{SegmentBytes: 1024})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 30; i++ {
		if _, err := j.Append("roll", testNow, map[string]any{"verdict": "valid", "values": []int{3, 4}, "total": 7, "mark": fmt.Sprintf("record-%02d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if err := journaltest.Damage(jdir, "record-05"); err != nil {
		t.Fatal(err)
	}
	j, err = journal.Open(jdir, journal.Options{SegmentBytes: 1024})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if j.LastSeq() != 30 {
		t.Fatalf("the journal reopened with %d records, want 30 (the damage in an earlier segment than the last)", j.LastSeq())
	}
	p, err := NewPublisher(testConfig(b.URL(), t.TempDir()), j, Birth{Version: "test"}, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- p.Run(context.Background()) }()
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return on the damaged record")
	}
	if !errors.Is(err, journal.ErrCorrupt) {
		t.Errorf("Run returned %v, want the journal's ErrCorrupt", err)
	}
	if p.Acked() != 4 {
		t.Errorf("acked %d, want 4 (every record before the damaged one)", p.Acked())
	}
	// A subscriber arriving now gets the retained status only.
	sub := mqtttest.Subscribe(t, b.URL(), mqtttest.SubscriberOptions{ClientID: "late"}, "dicewatch/t1/status")
	msgs := sub.Wait(5*time.Second, func(m []mqtttest.Message) bool { return len(m) > 0 })
	if len(msgs) == 0 {
		t.Fatal("no retained status")
	}
	// Offline for a reason of its own (since session 21; it was shutdown,
	// as for a stop), naming the record: a table that stays offline
	// until a person repairs its journal is not a table shut down.
	if s := string(msgs[len(msgs)-1].Payload); !strings.Contains(s, `"schema":"dicewatch/status/v2"`) {
		t.Errorf("retained status %s: want schema dicewatch/status/v2 (v1 has no journal_damaged)", s)
	}
	if s := string(msgs[len(msgs)-1].Payload); !strings.Contains(s, `"status":"offline"`) || !strings.Contains(s, `"reason":"journal_damaged"`) ||
		!strings.Contains(s, "seq 5") || !strings.Contains(s, "dicewatch journal repair") {
		t.Errorf("retained status after the publisher stopped on the journal: %s; want offline, journal_damaged (its own word, not a will sent by chance), naming seq 5 and the repair", s)
	}
	validateAll(t, msgs)
}

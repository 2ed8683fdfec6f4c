package main

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/dicewatch/dicewatch/mqtt"
	"github.com/dicewatch/dicewatch/mqtt/mqtttest"
	"github.com/dicewatch/dicewatch/schema"
	"github.com/dicewatch/dicewatch/vision/scene"
	"github.com/dicewatch/dicewatch/vision/source/sourcetest"
)

// TestDaemonStatusWhenJournalRefusedAtStart: journal.Open refuses the
// journal at start (a record damaged in the newest segment, whole records
// after it), so the daemon exits 65 before its publisher runs. The
// retained status, which said online (a run killed before its will went
// out), must say offline with reason journal_damaged, a detail naming the
// damage and what to do, the journal's id and newest readable seq, and
// pass the status schema. Until ops23 it was left saying online while the
// table published nothing. A broker that takes the connection and never
// answers must not hold the exit up past the status's short wait.
func TestDaemonStatusWhenJournalRefusedAtStart(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the daemon against mosquitto: skipped with -short")
	}
	sess, dir := validSession(t, 7, 1)
	jdir := filepath.Join(t.TempDir(), "journal")
	epoch, seg, before := damagedNewestJournal(t, jdir)
	broker := mqtttest.StartBroker(t)
	// What the status said last: online.
	c := paho.NewClient(paho.NewClientOptions().AddBroker(broker.URL()).SetClientID("last-run"))
	if tok := c.Connect(); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatalf("connect: %v", tok.Error())
	}
	online := `{"schema":"dicewatch/status/v2","table":"po","id":"` + epoch + `-status-000000000001","ts":"2026-11-27T10:00:00.000Z","status":"online","client_id":"dicewatch-po","last_seq":6}`
	if tok := c.Publish("dicewatch/po/status", 1, true, online); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatalf("publish: %v", tok.Error())
	}
	c.Disconnect(100)

	cfg := daemonConfig{Table: "po", Source: scriptedCamera, Calibration: filepath.Join(dir, scene.FileCalibration),
		Journal: jdir, Broker: broker.URL(), Extra: noClips}.Parse(t, "openstatus.yaml")
	var logs lockedBuffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	cam := sessionCamera(sess, [][]int{sourcetest.FrameRange(0, sess.Frames()-1)}, nil)
	if code := runDaemon(cfg, runFlags{exitAtEOF: true, openSource: cam.Open}, log); code != exitJournalDamaged {
		t.Fatalf("exit status %d, want %d; log:\n%s", code, exitJournalDamaged, logTail(logs.String(), 20))
	}
	if after, _ := os.ReadFile(seg); !bytes.Equal(after, before) {
		t.Error("the start changed the damaged segment")
	}
	sub := mqtttest.Subscribe(t, broker.URL(), mqtttest.SubscriberOptions{ClientID: "late"}, "dicewatch/po/status")
	msgs := sub.Wait(5*time.Second, func(m []mqtttest.Message) bool { return len(m) > 0 })
	if len(msgs) == 0 {
		t.Fatal("no retained status")
	}
	last := msgs[len(msgs)-1]
	var st mqtt.Status
	if err := json.Unmarshal(last.Payload, &st); err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(last.Payload); err != nil {
		t.Errorf("status %s: %v", last.Payload, err)
	}
	if !last.Retained || st.Status != "offline" || st.Reason != mqtt.ReasonJournalDamaged ||
		!strings.Contains(st.Detail, "seq 3") || !strings.Contains(st.Detail, "dicewatch journal repair") {
		t.Errorf("retained status %s: want offline, reason journal_damaged, a detail naming seq 3 and the repair", last.Payload)
	}
	if !strings.HasPrefix(st.ID, epoch+"-status-") || st.LastSeq != 6 || st.ClientID != "dicewatch-po" {
		t.Errorf("status id %s, last_seq %d, client %s: want the journal's id %s, seq 6 (the newest record that reads back whole), dicewatch-po",
			st.ID, st.LastSeq, st.ClientID, epoch)
	}

	// A broker that takes the connection and says nothing.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			defer conn.Close()
		}
	}()
	old := damagedStatusWait
	damagedStatusWait = time.Second
	defer func() { damagedStatusWait = old }()
	cfg = daemonConfig{Table: "po", Source: scriptedCamera, Calibration: filepath.Join(dir, scene.FileCalibration),
		Journal: jdir, Broker: "tcp://" + ln.Addr().String(), Extra: noClips}.Parse(t, "openstatus-mute.yaml")
	logs = lockedBuffer{}
	start := time.Now()
	code := runDaemon(cfg, runFlags{exitAtEOF: true, openSource: cam.Open}, log)
	took := time.Since(start)
	if code != exitJournalDamaged || took > 4*time.Second {
		t.Errorf("with a mute broker: exit status %d after %v, want %d within the status's wait (1 s) and little more; log:\n%s",
			code, took.Round(time.Millisecond), exitJournalDamaged, logTail(logs.String(), 20))
	}
	if !strings.Contains(logs.String(), "could not be set offline") {
		t.Errorf("the log does not say the status was not set:\n%s", logTail(logs.String(), 20))
	}
}

package main

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/dicewatch/dicewatch/mqtt"
	"github.com/dicewatch/dicewatch/mqtt/mqtttest"
	"github.com/dicewatch/dicewatch/vision/scene"
	"github.com/dicewatch/dicewatch/vision/source/sourcetest"
)

// TestDaemonStatusAfterRefusedStartIsRepaired: a start the journal
// refuses leaves the retained status offline, journal_damaged, with
// that status as the will of its short session. Once the journal is
// repaired the next start must take the status back: online while it
// runs (a retained journal_damaged left over, or its will published
// late, would show a running table as down), then shutdown when it
// stops; journal_damaged must not come again (review23o).
func TestDaemonStatusAfterRefusedStartIsRepaired(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the daemon against mosquitto: skipped with -short")
	}
	sess, dir := validSession(t, 7, 1)
	jdir := filepath.Join(t.TempDir(), "journal")
	damagedNewestJournal(t, jdir)
	broker := mqtttest.StartBroker(t)
	cfg := daemonConfig{Table: "pr", Source: scriptedCamera, Calibration: filepath.Join(dir, scene.FileCalibration),
		Journal: jdir, Broker: broker.URL(), Extra: noClips}.Parse(t, "openstatus-repair.yaml")
	var logs lockedBuffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	cam := sessionCamera(sess, [][]int{sourcetest.FrameRange(0, sess.Frames()-1)}, nil)
	if code := runDaemon(cfg, runFlags{exitAtEOF: true, openSource: cam.Open}, log); code != exitJournalDamaged {
		t.Fatalf("exit status %d, want %d; log:\n%s", code, exitJournalDamaged, logTail(logs.String(), 20))
	}
	var out, errb bytes.Buffer
	if code := cmdJournal([]string{"repair", "--journal", jdir}, nil, &out, &errb); code != 0 {
		t.Fatalf("repair: status %d\n%s%s", code, out.String(), errb.String())
	}
	sub := mqtttest.Subscribe(t, broker.URL(), mqtttest.SubscriberOptions{ClientID: "surveillance"}, "dicewatch/pr/status")
	if m := sub.Wait(5*time.Second, func(m []mqtttest.Message) bool { return len(m) > 0 }); len(m) == 0 {
		t.Fatal("no retained status after the refused start")
	}
	logs = lockedBuffer{}
	cam = sessionCamera(sess, [][]int{sourcetest.FrameRange(0, sess.Frames()-1)}, nil)
	if code := runDaemon(cfg, runFlags{exitAtEOF: true, openSource: cam.Open}, log); code != 0 {
		t.Fatalf("the start after the repair: exit status %d; log:\n%s", code, logTail(logs.String(), 20))
	}
	time.Sleep(500 * time.Millisecond) // a late will would come now
	// The subscriber subscribes on connect and again after it, so the
	// retained status comes twice: one per id is kept.
	var seen []string
	ids := map[string]bool{}
	for _, m := range sub.Messages() {
		if ids[m.ID] {
			continue
		}
		ids[m.ID] = true
		var st mqtt.Status
		if err := json.Unmarshal(m.Payload, &st); err != nil {
			t.Fatal(err)
		}
		seen = append(seen, st.Status+"/"+st.Reason)
	}
	want := []string{"offline/journal_damaged", "online/", "offline/shutdown"}
	if len(seen) != len(want) {
		t.Fatalf("statuses %v, want %v", seen, want)
	}
	for i := range want {
		if seen[i] != want[i] {
			t.Fatalf("statuses %v, want %v", seen, want)
		}
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dicewatch/dicewatch/journal/journaltest"
	"github.com/dicewatch/dicewatch/mqtt"
	"github.com/dicewatch/dicewatch/mqtt/mqtttest"
	"github.com/dicewatch/dicewatch/vision/scene"
	"github.com/dicewatch/dicewatch/vision/source/sourcetest"
)

// TestDaemonRestartOnFullDisk: a daemon without journal.hold_dir runs a
// throw with its journal and MQTT state on a small tmpfs, stops, and is
// started again after the disk has filled. It starts (before, the start
// failed when a command's nonce was stored: the nonce store rewrites its
// file at start, a new file the full disk has no room for), warns at start that held records are in memory
// only, decides the throw, holds its decision (the journal refuses it),
// and at the stop, the disk still full, writes what it still holds to the
// log (the decision whole, or its snapshot named where the decision found
// room in the segment's last page). It never returns an error.
func TestDaemonRestartOnFullDisk(t *testing.T) {
	if testing.Short() {
		t.Skip("renders a session and runs the daemon twice: skipped with -short")
	}
	disk := journaltest.SmallDisk(t, "24m")
	sess, dir := validSession(t, 5, 1)
	broker := mqtttest.StartBroker(t)
	cfg := daemonConfig{Table: "rf", Source: scriptedCamera, Calibration: filepath.Join(dir, scene.FileCalibration),
		Journal: filepath.Join(disk, "journal"), Broker: broker.URL(), Extra: noClips}.Parse(t, "restartfull.yaml")
	run := func(name string) string {
		t.Helper()
		cam := sessionCamera(sess, [][]int{sourcetest.FrameRange(0, sess.Frames()-1)}, nil)
		logs, err := runLogged(cfg, runFlags{exitAtEOF: true, openSource: cam.Open})
		if err != nil {
			t.Fatalf("%s: daemon stopped with %v; log (last 30 lines):\n%s", name, err, logTail(logs, 30))
		}
		return logs
	}
	first := run("first run, room on the disk")
	if !strings.Contains(first, "journal.hold_dir is not set") {
		t.Errorf("no start-up warning without journal.hold_dir:\n%s", first)
	}
	for _, f := range []string{"nonces", "acked"} {
		if _, err := os.Stat(filepath.Join(disk, "mqtt", f)); err != nil {
			t.Errorf("the first run left no %s: %v", f, err)
		}
	}
	// A signed command's nonce from the first run (the store keeps it
	// until it expires).
	ns, err := mqtt.OpenNonceStore(filepath.Join(disk, "mqtt"), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ns.Add("box-1", "5b0c7f3e9a214d8c8e6f1a2b3c4d5e6f", time.Now().Add(time.Hour), time.Now()); err != nil {
		t.Fatal(err)
	}
	ns.Close()
	if err := journaltest.Fill(filepath.Join(disk, "filler")); err != nil {
		t.Fatal(err)
	}
	second := run("restart on the full disk")
	for _, want := range []string{
		"journal.hold_dir is not set",
		"holding them in memory only",
		`msg="lost held record"`,
	} {
		if !strings.Contains(second, want) {
			t.Errorf("restart on the full disk: the log lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("second run's log (last 30 lines):\n%s", logTail(second, 30))
	}
}

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dicewatch/dicewatch/journal"
	"github.com/dicewatch/dicewatch/journal/journaltest"
	"github.com/dicewatch/dicewatch/mqtt/mqtttest"
	"github.com/dicewatch/dicewatch/schema"
	"github.com/dicewatch/dicewatch/vision/scene"
	"github.com/dicewatch/dicewatch/vision/source/sourcetest"
)

// damagedRecords is how many records damagedJournal writes.
const damagedRecords = 30

// damagedJournal makes a journal at jdir, in small segments, of
// damagedRecords events (marks earlier-01, earlier-02, ...) and damages
// earlier-03's bytes on disk: an early segment, where opening the
// journal does not look, so only a reader of its records finds it.
func damagedJournal(t *testing.T, jdir string) {
	t.Helper()
	j, err := journal.Open(jdir, journal.Options{SegmentBytes: 1024})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= damagedRecords; i++ {
		if _, err := j.Append("event", time.Now(), map[string]any{"event": "test", "mark": fmt.Sprintf("earlier-%02d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if err := journaltest.Damage(jdir, "earlier-03"); err != nil {
		t.Fatal(err)
	}
}

// TestDaemonStopsWhenPublisherStops: the daemon's journal holds a record
// the publisher cannot read (its bytes damaged on disk in an early
// segment, where opening the journal does not look), so the publisher's
// Run returns on it as it starts. The daemon must not go on deciding
// throws nothing publishes: it raises the publisher's fault, journals it
// (to go out on the next start), and returns the error (exit status 1:
// systemd starts it again), the broker's retained status offline, and
// nothing decided lost. Before, it ran the whole recording, its
// decisions unpublished, and stopped cleanly (exit status 0).
func TestDaemonStopsWhenPublisherStops(t *testing.T) {
	if testing.Short() {
		t.Skip("renders a session and runs the daemon: skipped with -short")
	}
	sess, dir := validSession(t, 7, 2)
	jdir := filepath.Join(t.TempDir(), "journal")
	damagedJournal(t, jdir)
	const before = damagedRecords
	broker := mqtttest.StartBroker(t)
	cfg := daemonConfig{Table: "ps", Source: scriptedCamera, Calibration: filepath.Join(dir, scene.FileCalibration),
		Journal: jdir, Broker: broker.URL(), Extra: noClips}.Parse(t, "pubstop.yaml")
	cam := sessionCamera(sess, [][]int{sourcetest.FrameRange(0, sess.Frames()-1)}, nil)
	start := time.Now()
	logs, err := runLogged(cfg, runFlags{exitAtEOF: true, openSource: cam.Open})
	took := time.Since(start)
	if err == nil || !errors.Is(err, journal.ErrCorrupt) {
		t.Fatalf("daemon returned %v after %v, want the publisher's journal error (exit status 1); log (last 30 lines):\n%s",
			err, took.Round(time.Millisecond), logTail(logs, 30))
	}
	for _, want := range []string{"publisher stopped", "the daemon stops"} {
		if !strings.Contains(logs, want) {
			t.Errorf("the log lacks %q", want)
		}
	}
	if strings.Contains(logs, "lost held record") {
		t.Errorf("records lost at the stop:\n%s", logTail(logs, 30))
	}
	// The fault is in the journal, after the records there before.
	var fault bool
	for _, f := range journalFaults(t, jdir, before+1) {
		if f.What == "publisher" {
			fault = true
			if f.State != "raised" || !strings.Contains(f.Detail, "corrupt") {
				t.Errorf("publisher fault %+v: want raised, naming the journal's damage", f)
			}
		}
	}
	if !fault {
		t.Error("no publisher fault in the journal")
	}
	sub := mqtttest.Subscribe(t, broker.URL(), mqtttest.SubscriberOptions{ClientID: "late"}, "dicewatch/ps/status")
	msgs := sub.Wait(5*time.Second, func(m []mqtttest.Message) bool { return len(m) > 0 })
	if len(msgs) == 0 || !strings.Contains(string(msgs[len(msgs)-1].Payload), `"status":"offline"`) {
		t.Errorf("retained status %v: want offline", msgs)
	}
}

// faultBody is a fault event's body.
type faultBody struct{ Event, What, State, Detail string }

// journalFaults reads the fault events in the journal in dir from seq
// from on (the journal closed).
func journalFaults(t *testing.T, dir string, from uint64) []faultBody {
	t.Helper()
	j, err := journal.Open(dir, journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	r := j.Reader(from)
	defer r.Close()
	var out []faultBody
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("reading the journal from seq %d: %v", from, err)
		}
		var body faultBody
		if rec.Kind == "event" && json.Unmarshal(rec.Body, &body) == nil && body.Event == "fault" {
			out = append(out, body)
		}
	}
}

// TestDaemonProcessStopsOnDamagedJournalUntilRepaired: the same as a
// process, as systemd runs it. `dicewatch run` on a recording whose
// journal holds a damaged record exits with status 65 (the unit's
// RestartPreventExitStatus: every start would meet the same record),
// long before the recording's end, and leaves the retained status
// offline with reason journal_damaged. `dicewatch journal check` names
// the record (status 1); `dicewatch journal repair` keeps it aside and
// writes an event in its place (status 0); the next start publishes
// every record from the first, the damaged one as its journal_damaged
// event, then the first run's publisher fault, then the throws of the
// recording, and exits cleanly at its end. Before, the daemon exited 1,
// systemd started it again every few seconds for ever with the status
// saying shutdown, and nothing but editing the files by hand got it
// going again.
func TestDaemonProcessStopsOnDamagedJournalUntilRepaired(t *testing.T) {
	if testing.Short() {
		t.Skip("renders a recording and runs the daemon: skipped with -short")
	}
	dir := t.TempDir()
	if _, err := scene.Generate(dir, scene.Config{Seed: 11, Throws: 2, Kinds: []scene.Kind{"valid", "valid"},
		Camera: scene.DefaultCamera()}); err != nil {
		t.Fatal(err)
	}
	jdir := filepath.Join(dir, "journal")
	damagedJournal(t, jdir)
	const before = damagedRecords
	broker := mqtttest.StartBroker(t)
	// A persistent QoS 1 consumer, as the MQTT contract asks of one.
	sub := mqtttest.Subscribe(t, broker.URL(), mqtttest.SubscriberOptions{ClientID: "surveillance"}, "dicewatch/px/+")
	cfgPath := daemonConfig{Table: "px", Source: "file:" + filepath.Join(dir, scene.FileVideo) + "?pace=realtime",
		Calibration: filepath.Join(dir, scene.FileCalibration), Journal: jdir, Broker: broker.URL(), Extra: noClips,
	}.Write(t, filepath.Join(dir, "dicewatch.yaml"))
	run := dicewatchProcess(t, "run", "--config", cfgPath, "--exit-at-eof")
	var stderr lockedBuffer
	run.Stderr = &stderr
	err := run.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != exitJournalDamaged {
		t.Fatalf("daemon exited with %v, want status %d; log (last 20 lines):\n%s", err, exitJournalDamaged, logTail(stderr.String(), 20))
	}
	// Status 65 for the damaged record, not for anything else that
	// stops a start (a config or calibration the daemon refuses).
	for _, want := range []string{"publisher stopped", "corrupt", "dicewatch journal repair"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("the log lacks %q:\n%s", want, logTail(stderr.String(), 20))
		}
	}
	if strings.Contains(stderr.String(), "msg=decision") {
		t.Errorf("the daemon decided throws after its publisher stopped:\n%s", logTail(stderr.String(), 20))
	}
	status := mqtttest.Subscribe(t, broker.URL(), mqtttest.SubscriberOptions{ClientID: "late"}, "dicewatch/px/status")
	msgs := status.Wait(5*time.Second, func(m []mqtttest.Message) bool { return len(m) > 0 })
	if len(msgs) == 0 || !strings.Contains(string(msgs[len(msgs)-1].Payload), `"reason":"journal_damaged"`) {
		t.Errorf("retained status %v: want offline, journal_damaged", msgs)
	}

	// The technician: check names the record, repair keeps it aside.
	var out lockedBuffer
	check := dicewatchProcess(t, "journal", "check", "--config", cfgPath)
	check.Stdout, check.Stderr = &out, &out
	if err := check.Run(); !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(out.String(), "seq 3..3 lost") {
		t.Fatalf("journal check: %v, want status 1 naming seq 3:\n%s", err, out.String())
	}
	out = lockedBuffer{}
	repair := dicewatchProcess(t, "journal", "repair", "--journal", jdir)
	repair.Stdout, repair.Stderr = &out, &out
	if err := repair.Run(); err != nil || !strings.Contains(out.String(), "repaired: 1 lost record") {
		t.Fatalf("journal repair: %v:\n%s", err, out.String())
	}
	kept, _ := filepath.Glob(filepath.Join(jdir, journal.DamagedDir, "*", "seg-*.log"))
	if len(kept) != 1 {
		t.Errorf("%d segments kept aside, want 1", len(kept))
	}

	run = dicewatchProcess(t, "run", "--config", cfgPath, "--exit-at-eof")
	stderr = lockedBuffer{}
	run.Stderr = &stderr
	if err := run.Run(); err != nil {
		t.Fatalf("daemon after the repair exited with %v, want 0; log (last 20 lines):\n%s", err, logTail(stderr.String(), 20))
	}
	got := sub.Wait(10*time.Second, func(m []mqtttest.Message) bool {
		n := 0
		for _, x := range m {
			if x.Topic == "dicewatch/px/roll" {
				n++
			}
		}
		return n >= 2
	})
	seen := map[uint64]string{}
	var rolls int
	for _, m := range append(msgs, got...) {
		if err := schema.Validate(m.Payload); err != nil {
			t.Errorf("%s: %v: %s", m.Topic, err, m.Payload)
		}
	}
	for _, m := range got {
		if m.Seq > 0 {
			seen[m.Seq] = string(m.Payload)
		}
		if m.Topic == "dicewatch/px/roll" {
			rolls++
		}
	}
	for s := uint64(1); s <= before+1; s++ {
		p, ok := seen[s]
		switch {
		case !ok:
			t.Errorf("seq %d never published", s)
		case s == 3 && !strings.Contains(p, `"event":"journal_damaged"`):
			t.Errorf("seq 3: %s, want the journal_damaged event", p)
		case s != 3 && s <= before && !strings.Contains(p, fmt.Sprintf("earlier-%02d", s)):
			t.Errorf("seq %d: %s, want the record as journalled", s, p)
		case s == before+1 && !strings.Contains(p, `"what":"publisher"`):
			t.Errorf("seq %d: %s, want the first run's publisher fault", s, p)
		}
	}
	if rolls != 2 {
		t.Errorf("%d rolls published after the repair, want the recording's 2", rolls)
	}
}

// TestDaemonExits65OnDamagedNewestSegment: a record damaged in the newest
// segment, with whole records after it, stops the start with the damaged
// journal's status (the unit does not restart it) and leaves the segment
// for journal repair. Before session 21 (review22a) the start cut the
// segment there and gave the cut records' seqs and ids to new records.
func TestDaemonExits65OnDamagedNewestSegment(t *testing.T) {
	if testing.Short() {
		t.Skip("renders a session: skipped with -short")
	}
	sess, dir := validSession(t, 7, 1)
	jdir := filepath.Join(t.TempDir(), "journal")
	_, seg, before := damagedNewestJournal(t, jdir)
	broker := mqtttest.StartBroker(t)
	cfg := daemonConfig{Table: "pn", Source: scriptedCamera, Calibration: filepath.Join(dir, scene.FileCalibration),
		Journal: jdir, Broker: broker.URL(), Extra: noClips}.Parse(t, "pubnewest.yaml")
	var logs lockedBuffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	cam := sessionCamera(sess, [][]int{sourcetest.FrameRange(0, sess.Frames()-1)}, nil)
	if code := runDaemon(cfg, runFlags{exitAtEOF: true, openSource: cam.Open}, log); code != exitJournalDamaged {
		t.Fatalf("exit status %d, want %d; log:\n%s", code, exitJournalDamaged, logTail(logs.String(), 20))
	}
	if after, _ := os.ReadFile(seg); !bytes.Equal(after, before) {
		t.Error("the start changed the damaged segment")
	}
	if !strings.Contains(logs.String(), "dicewatch journal repair") {
		t.Errorf("the log does not say to repair:\n%s", logTail(logs.String(), 20))
	}
}

// damagedNewestJournal makes a journal at jdir of one segment, six events
// (marks newest-01..newest-06), and damages newest-03's bytes on disk:
// whole records follow it, so journal.Open refuses the journal. It returns
// the journal's id, the segment's path and its bytes.
func damagedNewestJournal(t *testing.T, jdir string) (epoch, seg string, b []byte) {
	t.Helper()
	j, err := journal.Open(jdir, journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 6; i++ {
		if _, err := j.Append("event", time.Now(), map[string]any{"event": "test", "mark": fmt.Sprintf("newest-%02d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if err := journaltest.Damage(jdir, "newest-03"); err != nil {
		t.Fatal(err)
	}
	segs, _ := filepath.Glob(filepath.Join(jdir, "seg-*.log"))
	if len(segs) != 1 {
		t.Fatalf("segments %v, want one", segs)
	}
	b, err = os.ReadFile(segs[0])
	if err != nil {
		t.Fatal(err)
	}
	return j.Epoch(), segs[0], b
}

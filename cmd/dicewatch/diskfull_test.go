package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dicewatch/dicewatch/journal"
	"github.com/dicewatch/dicewatch/journal/journaltest"
	"github.com/dicewatch/dicewatch/mqtt/mqtttest"
	"github.com/dicewatch/dicewatch/rules"
	"github.com/dicewatch/dicewatch/schema"
	"github.com/dicewatch/dicewatch/vision/scene"
	"github.com/dicewatch/dicewatch/vision/source/sourcetest"
)

// TestDaemonDiskFull runs the daemon, publishing to a real mosquitto, with
// its journal (and MQTT state) on a small tmpfs and its clip ring on a
// tiny one that is always full. After two throws the journal's disk is
// filled; the third throw's decision cannot be journalled then; then room
// is made and a fourth throw follows. Checked: the clips failing never
// keeps a decision back; the daemon does not stop; throw 3's decision is
// held, not lost: once the journal takes records again a journal fault
// (raised, saying how many records are held) is published, then throw 3's
// decision with the time it was made, then the fault cleared, all before
// throw 4's decision; every decision is published, in throw order, with
// valid payloads; seq has no gaps up to the journal's last; the clips'
// full file system has its own "nearly full" fault (disk:clips), and the
// MQTT state none apart from the journal's.
func TestDaemonDiskFull(t *testing.T) {
	if testing.Short() {
		t.Skip("renders a session and runs the daemon: skipped with -short")
	}
	disk := journaltest.SmallDisk(t, "24m")
	clipDisk := journaltest.SmallDisk(t, "64k")
	if err := journaltest.Fill(filepath.Join(clipDisk, "filler")); err != nil {
		t.Fatal(err)
	}
	sess, dir := validSession(t, 3, 4)
	tr := sess.Truth()
	// The disk is filled once the table is clear after throw 2. A full
	// disk still leaves the journal the rest of its segment's last page:
	// the camera then drops a frame at a time until throw 3 is near, and
	// the fault events of those outages use that up (they are held, like
	// throw 3's decision after them). Room is made before throw 4.
	fillAt := tr[1].EndFrame + 1
	freeAt := (tr[2].EndFrame + tr[3].StartFrame) / 2
	runs := [][]int{sourcetest.FrameRange(0, fillAt)}
	for k := fillAt + 1; k < tr[2].StartFrame-4; k++ {
		runs = append(runs, []int{k})
	}
	runs = append(runs, sourcetest.FrameRange(tr[2].StartFrame-4, sess.Frames()-1))
	broker := mqtttest.StartBroker(t)
	sub := mqtttest.Subscribe(t, broker.URL(), mqtttest.SubscriberOptions{ClientID: "diskfull-sub"}, "dicewatch/df/#")
	cfg := daemonConfig{Table: "df", Source: scriptedCamera, Calibration: filepath.Join(dir, scene.FileCalibration),
		Journal: filepath.Join(disk, "journal"), Broker: broker.URL(),
		Extra: fmt.Sprintf("evidence:\n  dir: %s\n", filepath.Join(clipDisk, "clips"))}.Parse(t, "diskfull.yaml")
	filler := filepath.Join(disk, "filler")
	var fillErr error
	cam := sessionCamera(sess, runs, func(k int) {
		switch k {
		case fillAt:
			fillErr = journaltest.Fill(filler)
		case freeAt:
			fillErr = errors.Join(fillErr, os.Remove(filler))
		}
	})
	logs, err := runLogged(cfg, runFlags{exitAtEOF: true, openSource: cam.Open})
	defer func() {
		if t.Failed() {
			t.Logf("daemon log (last 40 lines):\n%s", logTail(logs, 40))
		}
	}()
	if err != nil {
		t.Fatalf("daemon stopped with %v", err)
	}
	if fillErr != nil {
		t.Fatal(fillErr)
	}
	isDecision := func(m mqtttest.Message) bool {
		return strings.HasSuffix(m.Topic, "/roll") || strings.HasSuffix(m.Topic, "/noroll")
	}
	msgs := sub.Wait(20*time.Second, func(ms []mqtttest.Message) bool {
		n := 0
		for _, m := range ms {
			if isDecision(m) {
				n++
			}
		}
		return n >= 4
	})
	var prev uint64
	var decisions []decisionBody
	var raisedAt, clearedAt uint64
	var raisedTS time.Time
	var decisionSeq []uint64
	var decisionTS []time.Time
	var evidenceFault bool
	diskFaults := map[string]int{} // "nearly full" faults raised, by what
	var raisedDetail string
	snaps := map[string]int{} // snapshots by decision id
	for _, m := range msgs {
		if m.Retained || strings.HasSuffix(m.Topic, "/status") {
			continue // status has no seq
		}
		if err := schema.Validate(m.Payload); err != nil {
			t.Errorf("%s: %v\n%s", m.Topic, err, m.Payload)
		}
		if prev != 0 && m.Seq != prev+1 {
			t.Errorf("seq %d after %d: a gap", m.Seq, prev)
		}
		prev = m.Seq
		if isDecision(m) {
			var d decisionBody
			if err := json.Unmarshal(m.Payload, &d); err != nil {
				t.Fatal(err)
			}
			var head struct {
				TS time.Time `json:"ts"`
			}
			if err := json.Unmarshal(m.Payload, &head); err != nil {
				t.Fatal(err)
			}
			decisions = append(decisions, d)
			decisionSeq = append(decisionSeq, m.Seq)
			decisionTS = append(decisionTS, head.TS)
			continue
		}
		if strings.HasSuffix(m.Topic, "/snapshot") {
			var sn struct {
				DecisionID string `json:"decision_id"`
			}
			if err := json.Unmarshal(m.Payload, &sn); err != nil {
				t.Fatal(err)
			}
			snaps[sn.DecisionID]++
		}
		var ev struct {
			Event, What, State, Detail string
			TS                         time.Time
		}
		if strings.HasSuffix(m.Topic, "/event") && json.Unmarshal(m.Payload, &ev) == nil && ev.Event == "fault" {
			t.Logf("seq %d: fault %s %s %.160s", m.Seq, ev.What, ev.State, ev.Detail)
			switch {
			case ev.What == "journal" && ev.State == "raised":
				if raisedAt != 0 {
					t.Errorf("journal fault raised again at seq %d (first at %d)", m.Seq, raisedAt)
				}
				raisedAt, raisedDetail, raisedTS = m.Seq, ev.Detail, ev.TS
			case ev.What == "journal" && ev.State == "cleared":
				clearedAt = m.Seq
			case ev.What == "evidence" && ev.State == "raised":
				evidenceFault = true
			case strings.HasPrefix(ev.What, "disk") && ev.State == "raised":
				diskFaults[ev.What]++
			}
		}
	}
	for i, d := range decisions {
		t.Logf("decision %d: %s at rest %d ms", i+1, describeDecision(rules.Decision{Verdict: d.Verdict, Values: d.Values, Reasons: d.Reasons}), d.AtRestMS)
	}
	if len(decisions) != 4 {
		t.Fatalf("%d decisions published, want 4: throws 1 to 4 (throw 3's held while the disk was full)", len(decisions))
	}
	for i := range decisions {
		if got := decisions[i].AtRestMS; got < tr[i].StartMS || got > tr[i].ClearMS {
			t.Errorf("decision %d at rest at %d ms is not throw %d's (%d..%d ms)", i+1, got, i+1, tr[i].StartMS, tr[i].ClearMS)
		}
		if decisions[i].Verdict != rules.Valid {
			t.Errorf("decision %d: %s, want valid (every throw is)", i+1, decisions[i].Verdict)
		}
	}
	// At most one snapshot per decision, and none for a decision that
	// was not published.
	for id, n := range snaps {
		if n > 1 {
			t.Errorf("decision %s has %d snapshots", id, n)
		}
	}
	if raisedAt == 0 || clearedAt == 0 {
		t.Fatalf("journal fault raised at seq %d, cleared at %d: want both", raisedAt, clearedAt)
	}
	// Throw 3's decision was held: written after the fault was raised,
	// before it was cleared, and before throw 4's; with its own time,
	// from before the journal took records again.
	if s := decisionSeq[2]; s < raisedAt || s > clearedAt {
		t.Errorf("throw 3's decision at seq %d is not between the journal fault raised (%d) and cleared (%d)", s, raisedAt, clearedAt)
	}
	if decisionSeq[3] < clearedAt {
		t.Errorf("the journal fault cleared (seq %d) came after throw 4's decision (seq %d)", clearedAt, decisionSeq[3])
	}
	if !decisionTS[2].Before(raisedTS) {
		t.Errorf("throw 3's decision has ts %s, not before the fault raised when it was written (%s): not its own time", decisionTS[2], raisedTS)
	}
	if !strings.Contains(raisedDetail, "held") {
		t.Errorf("the journal fault does not say records are held: %q", raisedDetail)
	}
	// Every record journalled was published: seq ran without a gap to
	// the journal's last.
	j, err := journal.Open(filepath.Join(disk, "journal"), journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	last := j.LastSeq()
	j.Close()
	if prev != last {
		t.Errorf("published up to seq %d, the journal holds up to %d", prev, last)
	}
	if !evidenceFault {
		t.Errorf("no evidence fault from the full clip disk")
	}
	// The disk watch's first check finds the clips' file system full: its
	// own fault, raised once. The MQTT state shares the journal's file
	// system, so it has no fault of its own.
	if diskFaults["disk:clips"] != 1 || diskFaults["disk:state"] != 0 {
		t.Errorf("disk faults raised %v: want disk:clips once, no disk:state", diskFaults)
	}
}

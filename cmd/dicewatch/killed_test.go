package main

import (
	"bytes"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dicewatch/dicewatch/journal"
	"github.com/dicewatch/dicewatch/mqtt/mqtttest"
	"github.com/dicewatch/dicewatch/vision/scene"
)

// TestDaemonKilledBeforePublish runs the daemon as a process with its
// broker down, so every decision is journalled (fsync'd) and none can be
// published, kills it with SIGKILL once two decisions are in the journal,
// then starts the broker and the daemon again on the same journal: every
// record the first run journalled must be published, with its seq and id,
// before anything the second run decides.
func TestDaemonKilledBeforePublish(t *testing.T) {
	if testing.Short() {
		t.Skip("renders a recording and runs the daemon twice: skipped with -short")
	}
	dir := t.TempDir()
	if _, err := scene.Generate(dir, scene.Config{Seed: 11, Throws: 3, Kinds: []scene.Kind{"valid"},
		Camera: scene.DefaultCamera()}); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "tcp://" + ln.Addr().String()
	ln.Close()
	jdir := filepath.Join(dir, "journal")
	writeCfg := func(name, broker string) string {
		return daemonConfig{Table: "kb", Source: "file:" + filepath.Join(dir, scene.FileVideo) + "?pace=fast",
			Calibration: filepath.Join(dir, scene.FileCalibration), Journal: jdir, Broker: broker, Extra: noClips,
		}.Write(t, filepath.Join(dir, name))
	}
	// First run: the broker is down.
	run, stderr, exited := startDaemon(t, "run", "--config", writeCfg("down.yaml", down))
	decisionsIn := func() (recs []journal.Record, n int) {
		_ = journal.ReadDir(jdir, func(r journal.Record) error {
			recs = append(recs, r)
			if r.Kind == "roll" || r.Kind == "noroll" {
				n++
			}
			return nil
		})
		return recs, n
	}
	deadline := time.Now().Add(90 * time.Second)
	for {
		if _, n := decisionsIn(); n >= 2 {
			break
		}
		select {
		case err := <-exited:
			t.Fatalf("the daemon exited before deciding: %v\n%s", err, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			_ = run.Process.Kill()
			t.Fatalf("no two decisions journalled in 90 s\n%s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := run.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-exited
	if strings.Contains(stderr.String(), "connected component=mqtt") {
		t.Fatal("the first run reached a broker")
	}
	recs, n := decisionsIn()
	t.Logf("killed with %d records journalled, %d of them decisions", len(recs), n)

	// Second run: the broker is up.
	broker := mqtttest.StartBroker(t)
	sub := mqtttest.Subscribe(t, broker.URL(), mqtttest.SubscriberOptions{ClientID: "killed-sub"}, "dicewatch/kb/#")
	run2 := dicewatchProcess(t, "run", "--config", writeCfg("up.yaml", broker.URL()), "--exit-at-eof")
	var stderr2 bytes.Buffer
	run2.Stderr = &stderr2
	if err := run2.Run(); err != nil {
		t.Fatalf("second run: %v\n%s", err, stderr2.String())
	}
	last := recs[len(recs)-1].Seq
	msgs := sub.Wait(20*time.Second, func(ms []mqtttest.Message) bool {
		for _, m := range ms {
			if m.Seq >= last && !m.Retained {
				return true
			}
		}
		return false
	})
	bySeq := map[uint64]mqtttest.Message{}
	var order []uint64
	for _, m := range msgs {
		if m.Seq == 0 || m.Retained {
			continue
		}
		if _, dup := bySeq[m.Seq]; !dup {
			order = append(order, m.Seq)
		}
		bySeq[m.Seq] = m
	}
	for _, r := range recs {
		m, ok := bySeq[r.Seq]
		switch {
		case !ok:
			t.Errorf("seq %d (%s), journalled before the kill, was never published", r.Seq, r.Kind)
		case m.ID != r.ID || !strings.HasSuffix(m.Topic, "/"+r.Kind):
			t.Errorf("seq %d published as %s id %s; journalled as %s id %s", r.Seq, m.Topic, m.ID, r.Kind, r.ID)
		}
	}
	for i, s := range order {
		if s != uint64(i)+1 {
			t.Errorf("published seq %v: not 1, 2, 3... in order", order)
			break
		}
	}
}

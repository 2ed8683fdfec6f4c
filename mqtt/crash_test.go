package mqtt

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dicewatch/dicewatch/journal"
	"github.com/dicewatch/dicewatch/mqtt/mqtttest"
)

const crashDecisions = 1000

// decisionBody alternates valid rolls and no-rolls like a table would.
func decisionBody(seq uint64) (string, map[string]any) {
	if seq%5 == 0 {
		return "noroll", map[string]any{"verdict": "no_roll", "reasons": []string{"cocked"}, "game": "g1"}
	}
	a, b := int(seq%6)+1, int(seq/6%6)+1
	return "roll", map[string]any{"verdict": "valid", "values": []int{a, b}, "total": a + b, "game": "g1"}
}

func received(m []mqtttest.Message) int {
	n := 0
	seen := map[uint64]bool{}
	for _, x := range m {
		if x.Seq != 0 && !seen[x.Seq] {
			seen[x.Seq] = true
			n++
		}
	}
	return n
}

// TestBrokerKilledTwice: kill -9 the broker twice while 1,000 decisions
// are journalled and published; a persistent subscriber must receive every
// seq 1..1000 in order (re-deliveries keep their id).
func TestBrokerKilledTwice(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test")
	}
	b := mqtttest.StartBroker(t)
	sub := mqtttest.Subscribe(t, b.URL(), mqtttest.SubscriberOptions{ClientID: "surveillance-1"}, "dicewatch/t1/roll", "dicewatch/t1/noroll")
	cfg := testConfig(b.URL(), t.TempDir())
	cfg.ResendOnReconnect = 200
	cfg.RetryMaxMS = 100
	r := startRig(t, cfg, t.TempDir(), nil)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	prodDone := make(chan error, 1)
	go func() {
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for seq := uint64(1); seq <= crashDecisions; seq++ {
			select {
			case <-ctx.Done():
				prodDone <- ctx.Err()
				return
			case <-tick.C:
			}
			kind, body := decisionBody(seq)
			if _, err := r.j.Append(kind, testNow, body); err != nil {
				prodDone <- err
				return
			}
			r.p.Notify()
		}
		prodDone <- nil
	}()

	for _, at := range []int{250, 600} {
		sub.Wait(30*time.Second, func(m []mqtttest.Message) bool { return received(m) >= at })
		b.Kill()
		t.Logf("broker killed after the subscriber had %d decisions (journal at %d)", received(sub.Messages()), r.j.LastSeq())
		b.Restart()
	}
	if err := <-prodDone; err != nil {
		t.Fatal(err)
	}
	msgs := sub.Wait(60*time.Second, func(m []mqtttest.Message) bool { return received(m) >= crashDecisions })
	if p := mqtttest.CheckSequence(msgs, 1, crashDecisions); p != "" {
		t.Fatal(p)
	}
	t.Logf("%d messages for %d decisions (%d re-deliveries)", len(msgs), crashDecisions, len(msgs)-crashDecisions)
	validateAll(t, msgs)
}

// The helper daemon: a child process (this test binary re-executed) that
// journals decisions up to crashDecisions and publishes them.
const helperEnv = "DICEWATCH_MQTT_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "1" {
		os.Exit(helperDaemon())
	}
	os.Exit(m.Run())
}

func helperDaemon() int {
	url, jdir, state := os.Getenv("HELPER_BROKER"), os.Getenv("HELPER_JOURNAL"), os.Getenv("HELPER_STATE")
	j, err := journal.Open(jdir, journal.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 1
	}
	defer j.Close()
	cfg := testConfig(url, state)
	cfg.ResendOnReconnect = 200
	cfg.RetryMaxMS = 100
	p, err := NewPublisher(cfg, j, Birth{Version: "helper"}, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 1
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	tick := time.NewTicker(2 * time.Millisecond)
	for seq := j.NextSeq(); seq <= crashDecisions; seq++ {
		<-tick.C
		kind, body := decisionBody(seq)
		if _, err := j.Append(kind, testNow, body); err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			return 1
		}
		p.Notify()
	}
	// Keep publishing until the parent stops us.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, os.Interrupt)
	<-sig
	cancel()
	<-done
	return 0
}

type helper struct {
	cmd  *exec.Cmd
	done chan struct{}
}

func startHelper(t *testing.T, url, jdir, state string) *helper {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=1", "HELPER_BROKER="+url, "HELPER_JOURNAL="+jdir, "HELPER_STATE="+state)
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = childAttr()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h := &helper{cmd: cmd, done: make(chan struct{})}
	go func() { cmd.Wait(); close(h.done) }()
	t.Cleanup(func() { h.signal(syscall.SIGKILL) })
	return h
}

func (h *helper) signal(s syscall.Signal) {
	select {
	case <-h.done:
		return
	default:
	}
	h.cmd.Process.Signal(s)
	<-h.done
}

// TestDaemonKilled: kill -9 the publishing daemon (a child process) while it
// journals and publishes 1,000 decisions, then restart it on the same
// journal and state: every seq 1..1000 arrives in order, and the broker
// publishes the offline will when the daemon dies.
func TestDaemonKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test")
	}
	b := mqtttest.StartBroker(t)
	sub := mqtttest.Subscribe(t, b.URL(), mqtttest.SubscriberOptions{ClientID: "surveillance-2"},
		"dicewatch/t1/roll", "dicewatch/t1/noroll", "dicewatch/t1/status")
	jdir, state := t.TempDir(), t.TempDir()
	h := startHelper(t, b.URL(), jdir, state)
	for _, at := range []int{300, 700} {
		sub.Wait(30*time.Second, func(m []mqtttest.Message) bool { return received(m) >= at })
		h.signal(syscall.SIGKILL)
		t.Logf("daemon killed after the subscriber had %d decisions", received(sub.Messages()))
		sub.Wait(10*time.Second, func(m []mqtttest.Message) bool {
			last := m[len(m)-1]
			return strings.HasSuffix(last.Topic, "/status") && strings.Contains(string(last.Payload), `"reason":"connection_lost"`)
		})
		h = startHelper(t, b.URL(), jdir, state)
	}
	msgs := sub.Wait(60*time.Second, func(m []mqtttest.Message) bool { return received(m) >= crashDecisions })
	h.signal(syscall.SIGTERM)
	if p := mqtttest.CheckSequence(msgs, 1, crashDecisions); p != "" {
		t.Fatal(p)
	}
	t.Logf("%d messages for %d decisions (including status)", len(msgs), crashDecisions)
	validateAll(t, msgs)
	// The journal on disk holds exactly 1..1000 after the kills.
	n := 0
	if err := journal.ReadDir(jdir, func(r journal.Record) error {
		n++
		if r.Seq != uint64(n) {
			return fmt.Errorf("journal seq %d at position %d", r.Seq, n)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if n != crashDecisions {
		t.Fatalf("journal holds %d records", n)
	}
	if data, err := os.ReadFile(filepath.Join(state, cursorFile)); err != nil {
		t.Fatal(err)
	} else if f := strings.Fields(string(data)); len(f) != 3 {
		t.Fatalf("cursor %q", data)
	} else if acked, err := loadCursor(filepath.Join(state, cursorFile), f[1]); err != nil || acked != crashDecisions {
		t.Errorf("cursor after clean stop: %d (%v), file %q", acked, err, data)
	}
}

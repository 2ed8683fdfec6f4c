package mqtt

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/dicewatch/dicewatch/journal"
	"github.com/dicewatch/dicewatch/mqtt/mqtttest"
	"github.com/dicewatch/dicewatch/schema"
)

var testNow = time.Date(2026, 11, 22, 7, 30, 0, 0, time.UTC)

type rig struct {
	t      *testing.T
	cfg    Config
	j      *journal.Journal
	p      *Publisher
	cancel context.CancelFunc
	done   chan error
}

func testConfig(url, state string) Config {
	c := Config{Broker: url, Table: "t1", StateDir: state, RetryMaxMS: 200, ResendOnReconnect: 50}
	c.SetDefaults()
	return c
}

func testLogger(t testing.TB) *slog.Logger {
	if testing.Verbose() {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.DiscardHandler)
}

// startRig opens the journal in dir and runs a publisher until cleanup.
func startRig(t *testing.T, cfg Config, jdir string, setup func(*Publisher)) *rig {
	t.Helper()
	j, err := journal.Open(jdir, journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPublisher(cfg, j, Birth{Version: "test", ConfigHash: "c0ffee", CalibrationHash: "ca1"}, testLogger(t))
	if err != nil {
		j.Close()
		t.Fatal(err)
	}
	if setup != nil {
		setup(p)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &rig{t: t, cfg: cfg, j: j, p: p, cancel: cancel, done: make(chan error, 1)}
	go func() { r.done <- p.Run(ctx) }()
	t.Cleanup(r.stop)
	return r
}

func (r *rig) stop() {
	if r.cancel == nil {
		return
	}
	r.cancel()
	r.cancel = nil
	if err := <-r.done; err != nil {
		r.t.Errorf("Run: %v", err)
	}
	r.j.Close()
}

func (r *rig) appendRolls(n int) {
	r.t.Helper()
	for i := 0; i < n; i++ {
		if _, err := r.j.Append("roll", testNow, map[string]any{"verdict": "valid", "values": []int{3, 4}, "total": 7}); err != nil {
			r.t.Fatal(err)
		}
		r.p.Notify()
	}
}

func TestPublishInOrderWithStatusAndShutdown(t *testing.T) {
	b := mqtttest.StartBroker(t, mqtttest.WithoutPersistence())
	sub := mqtttest.Subscribe(t, b.URL(), mqtttest.SubscriberOptions{}, "dicewatch/t1/#")
	r := startRig(t, testConfig(b.URL(), t.TempDir()), t.TempDir(), nil)
	r.appendRolls(20)
	if _, err := r.j.Append("state", testNow, map[string]any{"phase": "point", "point": 6}); err != nil {
		t.Fatal(err)
	}
	dec, _, _ := r.j.LastOfKind("roll", 0)
	if _, err := r.j.Append("snapshot", testNow, NewSnapshot(dec, []byte{0xff, 0xd8, 0xff, 0xe0, 1, 2, 3}, 640, 480)); err != nil {
		t.Fatal(err)
	}
	if _, err := r.j.Append("noroll", testNow, map[string]any{"verdict": "no_roll", "reasons": []string{"staff_call"}}); err != nil {
		t.Fatal(err)
	}
	r.p.Notify()
	msgs := sub.Wait(20*time.Second, func(m []mqtttest.Message) bool { return mqtttest.CheckSequence(m, 1, 23) == "" })
	topics := map[string]bool{}
	for _, m := range msgs {
		topics[m.Topic[len("dicewatch/t1/"):]] = true
	}
	for _, want := range []string{"status", "roll", "noroll", "state", "snapshot"} {
		if !topics[want] {
			t.Errorf("nothing on %s", want)
		}
	}
	validateAll(t, msgs)
	var online bool
	for _, m := range msgs {
		if m.Topic == "dicewatch/t1/status" && strings.Contains(string(m.Payload), `"status":"online"`) {
			online = true
			for _, want := range []string{`"version":"test"`, `"config_hash":"c0ffee"`, `"calibration_hash":"ca1"`} {
				if !strings.Contains(string(m.Payload), want) {
					t.Errorf("birth lacks %s: %s", want, m.Payload)
				}
			}
		}
	}
	if !online {
		t.Error("no online status")
	}
	r.stop()
	msgs = sub.Wait(10*time.Second, func(m []mqtttest.Message) bool {
		return len(m) > 0 && strings.Contains(string(m[len(m)-1].Payload), `"status":"offline"`)
	})
	last := msgs[len(msgs)-1]
	if last.Topic != "dicewatch/t1/status" || !strings.Contains(string(last.Payload), `"reason":"shutdown"`) {
		t.Errorf("last message %s %s, want offline shutdown status", last.Topic, last.Payload)
	}
	validateAll(t, msgs)
	// The cursor was persisted: everything acknowledged.
	if r.p.Acked() != 23 {
		t.Errorf("acked %d, want 23", r.p.Acked())
	}
}

func TestRetainedStatusAndStateForLateSubscriber(t *testing.T) {
	b := mqtttest.StartBroker(t, mqtttest.WithoutPersistence())
	r := startRig(t, testConfig(b.URL(), t.TempDir()), t.TempDir(), nil)
	r.appendRolls(3)
	if _, err := r.j.Append("state", testNow, map[string]any{"phase": "come_out"}); err != nil {
		t.Fatal(err)
	}
	r.p.Notify()
	early := mqtttest.Subscribe(t, b.URL(), mqtttest.SubscriberOptions{}, "dicewatch/t1/#")
	early.Wait(10*time.Second, func(m []mqtttest.Message) bool {
		for _, x := range m {
			if x.Seq == 4 {
				return true
			}
		}
		return false
	})
	late := mqtttest.Subscribe(t, b.URL(), mqtttest.SubscriberOptions{}, "dicewatch/t1/status", "dicewatch/t1/state")
	msgs := late.Wait(10*time.Second, func(m []mqtttest.Message) bool { return len(m) >= 2 })
	var gotState, gotStatus bool
	for _, m := range msgs {
		if !m.Retained {
			continue
		}
		gotState = gotState || (m.Topic == "dicewatch/t1/state" && m.Seq == 4)
		gotStatus = gotStatus || (m.Topic == "dicewatch/t1/status" && strings.Contains(string(m.Payload), "online"))
	}
	if !gotState || !gotStatus {
		t.Fatalf("retained state %v status %v: %v", gotState, gotStatus, msgs)
	}
}

func TestWillIsRetainedOffline(t *testing.T) {
	j, err := journal.Open(t.TempDir(), journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	p, err := NewPublisher(testConfig("tcp://127.0.0.1:1", t.TempDir()), j, Birth{Version: "v"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	opts, err := p.clientOptions(make(chan error, 1))
	if err != nil {
		t.Fatal(err)
	}
	if !opts.WillEnabled || !opts.WillRetained || opts.WillQos != 1 || opts.WillTopic != "dicewatch/t1/status" {
		t.Fatalf("will: enabled %v retained %v qos %d topic %q", opts.WillEnabled, opts.WillRetained, opts.WillQos, opts.WillTopic)
	}
	validatePayload(t, "dicewatch/t1/status", opts.WillPayload)
	// The will is made at connect, once: it names the status version the
	// daemon publishes, as the birth and the shutdown do.
	if !strings.Contains(string(opts.WillPayload), `"schema":"dicewatch/status/v2"`) {
		t.Errorf("will payload %s, want schema dicewatch/status/v2", opts.WillPayload)
	}
	if !strings.Contains(string(opts.WillPayload), `"status":"offline"`) || !strings.Contains(string(opts.WillPayload), `"reason":"connection_lost"`) {
		t.Errorf("will payload %s", opts.WillPayload)
	}
	if opts.CleanSession || opts.ClientID != "dicewatch-t1" {
		t.Errorf("session: clean %v client id %q, want persistent dicewatch-t1", opts.CleanSession, opts.ClientID)
	}
}

func TestCursorPersistsAcrossRestart(t *testing.T) {
	b := mqtttest.StartBroker(t, mqtttest.WithoutPersistence())
	state, jdir := t.TempDir(), t.TempDir()
	cfg := testConfig(b.URL(), state)
	cfg.ResendOnReconnect = 2
	sub := mqtttest.Subscribe(t, b.URL(), mqtttest.SubscriberOptions{}, "dicewatch/t1/roll")
	r := startRig(t, cfg, jdir, nil)
	r.appendRolls(10)
	sub.Wait(10*time.Second, func(m []mqtttest.Message) bool { return mqtttest.CheckSequence(m, 1, 10) == "" })
	r.stop()
	data, err := os.ReadFile(filepath.Join(state, cursorFile))
	if err != nil || !strings.HasPrefix(string(data), "10 ") {
		t.Fatalf("cursor file %q %v", data, err)
	}
	r2 := startRig(t, cfg, jdir, nil)
	r2.appendRolls(5)
	msgs := sub.Wait(10*time.Second, func(m []mqtttest.Message) bool { return mqtttest.CheckSequence(m, 1, 15) == "" })
	// Only the resend window (9, 10) is repeated, not 1..8.
	count := map[uint64]int{}
	for _, m := range msgs {
		count[m.Seq]++
	}
	for seq := uint64(1); seq <= 8; seq++ {
		if count[seq] != 1 {
			t.Errorf("seq %d delivered %d times", seq, count[seq])
		}
	}
}

func TestEncodeMergesEnvelope(t *testing.T) {
	rec := journal.Record{Seq: 7, ID: "ab-7", Kind: "roll", TS: time.Date(2026, 1, 2, 3, 4, 5, 600e6, time.FixedZone("x", 3600)), Body: json.RawMessage(`{"total":7}`)}
	got := string(Encode("t1", rec))
	want := `{"schema":"dicewatch/roll/v1","table":"t1","seq":7,"id":"ab-7","ts":"2026-01-02T02:04:05.600Z","total":7}`
	if got != want {
		t.Errorf("Encode =\n%s\nwant\n%s", got, want)
	}
	rec.Body = json.RawMessage(`{}`)
	var m map[string]any
	if err := json.Unmarshal(Encode("t1", rec), &m); err != nil {
		t.Errorf("empty body: %v", err)
	}
}

// validatePayload checks one message against the schema files.
func validatePayload(t *testing.T, topic string, payload []byte) {
	t.Helper()
	if strings.Contains(topic, "/cmd/") {
		if err := schema.ValidateAs("cmd-envelope", payload); err != nil {
			t.Errorf("%s: %v\n%s", topic, err, payload)
		}
		return
	}
	if err := schema.Validate(payload); err != nil {
		t.Errorf("%s: %v\n%s", topic, err, payload)
	}
	kind := topic[strings.LastIndexByte(topic, '/')+1:]
	var env struct{ Schema string }
	json.Unmarshal(payload, &env)
	if env.Schema != Schema(kind) {
		t.Errorf("%s: schema %q does not match topic", topic, env.Schema)
	}
}

func validateAll(t *testing.T, msgs []mqtttest.Message) {
	t.Helper()
	for _, m := range msgs {
		validatePayload(t, m.Topic, m.Payload)
	}
}

// TestTLSWithClientCertificate: a TLS-only broker that requires a client
// certificate; the daemon connects with tls.ca/cert/key, and a client
// that does not trust the broker's CA, or has no certificate, fails.
func TestTLSWithClientCertificate(t *testing.T) {
	pki := mqtttest.WriteTestPKI(t)
	b := mqtttest.StartBroker(t, mqtttest.WithoutPersistence(), mqtttest.WithTLS(mqtttest.TLSFiles{
		CAFile: pki.CAFile, CertFile: pki.ServerCert, KeyFile: pki.ServerKey, RequireClientCert: true}))
	if !strings.HasPrefix(b.URL(), "ssl://") {
		t.Fatalf("url %s", b.URL())
	}
	sub := mqtttest.Subscribe(t, b.URL(), mqtttest.SubscriberOptions{Configure: func(o *paho.ClientOptions) {
		o.SetTLSConfig(pki.ClientTLS(t))
	}}, "dicewatch/t1/#")
	cfg := testConfig(b.URL(), t.TempDir())
	cfg.TLS = TLS{CA: pki.CAFile, Cert: pki.ClientCert, Key: pki.ClientKey}
	r := startRig(t, cfg, t.TempDir(), nil)
	r.appendRolls(3)
	msgs := sub.Wait(10*time.Second, func(m []mqtttest.Message) bool { return mqtttest.CheckSequence(m, 1, 3) == "" })
	validateAll(t, msgs)

	for name, c := range map[string]TLS{
		"no client certificate": {CA: pki.CAFile},
		"CA not trusted":        {},
	} {
		bad := testConfig(b.URL(), t.TempDir())
		bad.TLS = c
		bad.ClientID = "dicewatch-bad"
		j, err := journal.Open(t.TempDir(), journal.Options{})
		if err != nil {
			t.Fatal(err)
		}
		p, err := NewPublisher(bad, j, Birth{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		connected, err := p.session(context.Background())
		if connected || err == nil {
			t.Errorf("%s: connected %v err %v", name, connected, err)
		}
		p.nonces.Close()
		j.Close()
	}
}

// TestStartsWhileBrokerDown: the daemon starts with the broker down, keeps
// journalling, and delivers everything once the broker comes up.
func TestStartsWhileBrokerDown(t *testing.T) {
	b := mqtttest.StartBroker(t)
	sub := mqtttest.Subscribe(t, b.URL(), mqtttest.SubscriberOptions{ClientID: "late-broker-sub"}, "dicewatch/t1/roll")
	b.Stop()
	r := startRig(t, testConfig(b.URL(), t.TempDir()), t.TempDir(), nil)
	r.appendRolls(25)
	if r.p.Connected() || r.p.Acked() != 0 {
		t.Fatalf("connected %v acked %d with the broker down", r.p.Connected(), r.p.Acked())
	}
	b.Restart()
	msgs := sub.Wait(30*time.Second, func(m []mqtttest.Message) bool { return mqtttest.CheckSequence(m, 1, 25) == "" })
	validateAll(t, msgs)
}

// waitFor polls cond until it holds, failing the test after limit.
func waitFor(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-deadline.C:
			t.Fatalf("timed out waiting for %s", what)
		case <-tick.C:
		}
	}
}

// TestRetainedRepublishedAfterBrokerLosesThem: a broker without
// persistence is killed and restarted, losing its retained messages; the
// publisher republishes status and the newest state on reconnect.
func TestRetainedRepublishedAfterBrokerLosesThem(t *testing.T) {
	b := mqtttest.StartBroker(t, mqtttest.WithoutPersistence())
	cfg := testConfig(b.URL(), t.TempDir())
	cfg.ResendOnReconnect = 1 // only the last record is re-sent: state must come from the republish
	r := startRig(t, cfg, t.TempDir(), nil)
	if _, err := r.j.Append("state", testNow, map[string]any{"phase": "point", "point": 8}); err != nil {
		t.Fatal(err)
	}
	r.appendRolls(5)
	waitFor(t, 10*time.Second, "all 6 acknowledged", func() bool { return r.p.Acked() == 6 })
	b.Kill()
	b.Restart()
	waitFor(t, 10*time.Second, "the second session", func() bool { return r.p.sessions.Load() >= 2 })
	late := mqtttest.Subscribe(t, b.URL(), mqtttest.SubscriberOptions{}, "dicewatch/t1/status", "dicewatch/t1/state")
	msgs := late.Wait(10*time.Second, func(m []mqtttest.Message) bool {
		var state, status bool
		for _, x := range m {
			state = state || (x.Retained && x.Topic == "dicewatch/t1/state" && x.Seq == 1)
			status = status || (x.Retained && x.Topic == "dicewatch/t1/status" && strings.Contains(string(x.Payload), `"online"`))
		}
		return state && status
	})
	validateAll(t, msgs)
}

// TestBacklogLargerThanInflightDrains: a backlog already in the journal
// (a restart, a reconnect, a burst appended without waiting) is published
// to the end with no further Append or Notify to wake the publisher, even
// when every in-flight publish completes before the publisher looks again.
func TestBacklogLargerThanInflightDrains(t *testing.T) {
	b := mqtttest.StartBroker(t, mqtttest.WithoutPersistence())
	jdir := t.TempDir()
	j, err := journal.Open(jdir, journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const n = 2000
	var last journal.Record
	for i := 0; i < n; i++ {
		if last, err = j.AppendNoWait("roll", time.Now(), map[string]any{"verdict": "valid", "values": []int{1, 2}, "total": 3}); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.WaitDurable(last.Seq); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(b.URL(), t.TempDir())
	cfg.MaxInflight = 1
	r := startRig(t, cfg, jdir, nil)
	waitFor(t, 60*time.Second, "the whole backlog acknowledged", func() bool { return r.p.Acked() == n })
}

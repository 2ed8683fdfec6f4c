package mqtt

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dicewatch/dicewatch/journal"
	"github.com/dicewatch/dicewatch/mqtt/mqtttest"
	"github.com/dicewatch/dicewatch/schema"
)

// fixedKey derives a deterministic key from a label (tests only).
func fixedKey(label string) ed25519.PrivateKey {
	seed := make([]byte, ed25519.SeedSize)
	copy(seed, label)
	return ed25519.NewKeyFromSeed(seed)
}

var (
	boxKey    = fixedKey("boxperson-key")
	dealerKey = fixedKey("dealer-key")
	otherKey  = fixedKey("attacker-key")
)

func cmdConfig(url, state string) Config {
	c := testConfig(url, state)
	c.Commands.Keys = []Key{
		{ID: "box-1", Operator: "E1234", Role: "boxperson", PublicKey: EncodePublicKey(boxKey.Public().(ed25519.PublicKey))},
		{ID: "deal-7", Operator: "E5678", Role: "dealer", PublicKey: EncodePublicKey(dealerKey.Public().(ed25519.PublicKey))},
	}
	return c
}

func sign(t testing.TB, key ed25519.PrivateKey, keyID string, p CommandPayload) []byte {
	t.Helper()
	if p.Table == "" {
		p.Table = "t1"
	}
	if p.Nonce == "" {
		p.Nonce = NewNonce()
	}
	if p.TS.IsZero() {
		p.TS = testNow
	}
	b, err := SignCommand(key, keyID, p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func noroll(cause string) CommandPayload {
	return CommandPayload{Command: "noroll", Args: json.RawMessage(`{"cause":"` + cause + `"}`)}
}

type cmdCase struct {
	name   string
	topic  string // command name from the topic
	msg    func(t testing.TB) []byte
	reason string // "" means accepted
}

func commandCases() []cmdCase {
	var replay []byte
	replayMsg := func(t testing.TB) []byte {
		if replay == nil {
			replay = sign(t, boxKey, "box-1", noroll("replayed call"))
		}
		return replay
	}
	return []cmdCase{
		{"accepted noroll", "noroll", func(t testing.TB) []byte { return sign(t, boxKey, "box-1", noroll("dice left separately")) }, ""},
		{"accepted game by boxperson", "game", func(t testing.TB) []byte {
			return sign(t, boxKey, "box-1", CommandPayload{Command: "game", Args: json.RawMessage(`{"action":"new_game"}`)})
		}, ""},
		{"replay first use", "noroll", replayMsg, ""},
		{"replayed", "noroll", replayMsg, ReasonReplayed},
		{"forged: other key under box-1", "noroll", func(t testing.TB) []byte { return sign(t, otherKey, "box-1", noroll("forged")) }, ReasonBadSignature},
		{"forged: payload altered", "noroll", func(t testing.TB) []byte {
			var env Envelope
			json.Unmarshal(sign(t, boxKey, "box-1", noroll("original")), &env)
			p, _ := base64.StdEncoding.DecodeString(env.Payload)
			p = []byte(strings.Replace(string(p), "original", "altered!", 1))
			env.Payload = base64.StdEncoding.EncodeToString(p)
			b, _ := json.Marshal(env)
			return b
		}, ReasonBadSignature},
		{"expired", "noroll", func(t testing.TB) []byte {
			p := noroll("late")
			p.TS = testNow.Add(-31 * time.Second)
			return sign(t, boxKey, "box-1", p)
		}, ReasonExpired},
		{"from the future", "noroll", func(t testing.TB) []byte {
			p := noroll("early")
			p.TS = testNow.Add(31 * time.Second)
			return sign(t, boxKey, "box-1", p)
		}, ReasonNotYetValid},
		{"wrong role for noroll", "noroll", func(t testing.TB) []byte { return sign(t, dealerKey, "deal-7", noroll("dealer tries")) }, ReasonForbidden},
		{"unknown key", "noroll", func(t testing.TB) []byte { return sign(t, otherKey, "nobody", noroll("who")) }, ReasonUnknownKey},
		{"unsigned", "noroll", func(t testing.TB) []byte {
			var env Envelope
			json.Unmarshal(sign(t, boxKey, "box-1", noroll("x")), &env)
			env.Sig = ""
			b, _ := json.Marshal(env)
			return b
		}, ReasonUnsigned},
		{"empty object", "noroll", func(testing.TB) []byte { return []byte(`{}`) }, ReasonUnsigned},
		{"malformed: not JSON", "noroll", func(testing.TB) []byte { return []byte("NO ROLL!!") }, ReasonMalformed},
		{"malformed: truncated", "noroll", func(t testing.TB) []byte { b := sign(t, boxKey, "box-1", noroll("x")); return b[:len(b)/2] }, ReasonMalformed},
		{"malformed: unknown field", "noroll", func(testing.TB) []byte { return []byte(`{"key_id":"box-1","payload":"e30=","sig":"x","extra":1}`) }, ReasonMalformed},
		{"malformed: missing cause", "noroll", func(t testing.TB) []byte {
			return sign(t, boxKey, "box-1", CommandPayload{Command: "noroll", Args: json.RawMessage(`{}`)})
		}, ReasonMalformed},
		{"malformed: binary", "noroll", func(testing.TB) []byte { return []byte{0xff, 0xfe, 0x00} }, ReasonMalformed},
		{"wrong table", "noroll", func(t testing.TB) []byte {
			p := noroll("x")
			p.Table = "t2"
			return sign(t, boxKey, "box-1", p)
		}, ReasonWrongTable},
		{"wrong topic", "shooter", func(t testing.TB) []byte { return sign(t, boxKey, "box-1", noroll("x")) }, ReasonWrongTopic},
		{"unknown command", "shutdown", func(t testing.TB) []byte {
			return sign(t, boxKey, "box-1", CommandPayload{Command: "shutdown", Args: json.RawMessage(`{"action":"now"}`)})
		}, ReasonUnknownCommand},
	}
}

// TestCommandVerification runs every case through HandleCommand and
// checks the journalled result event, which is what is published.
func TestCommandVerification(t *testing.T) {
	p, j := offlinePublisher(t)
	var got []Command
	p.OnCommand(func(_ context.Context, c Command) error {
		got = append(got, c)
		return nil
	})
	accepted := 0
	for _, c := range commandCases() {
		t.Run(c.name, func(t *testing.T) {
			before := j.LastSeq()
			res := p.HandleCommand(c.topic, c.msg(t))
			if j.LastSeq() != before+1 {
				t.Fatalf("no result journalled")
			}
			rec, _, _ := j.LastOfKind("event", 0)
			var logged CommandResult
			if err := json.Unmarshal(rec.Body, &logged); err != nil {
				t.Fatal(err)
			}
			if logged != res {
				t.Errorf("journalled %+v, returned %+v", logged, res)
			}
			if err := schema.Validate(Encode("t1", rec)); err != nil {
				t.Error(err)
			}
			if c.reason == "" {
				accepted++
				if res.Result != "accepted" || res.Operator == "" {
					t.Fatalf("want accepted, got %+v", res)
				}
				return
			}
			if res.Result != "rejected" || res.Reason != c.reason {
				t.Fatalf("got %s/%s (%s), want rejected/%s", res.Result, res.Reason, res.Detail, c.reason)
			}
		})
	}
	if len(got) != accepted {
		t.Errorf("handler saw %d commands, %d accepted", len(got), accepted)
	}
	if len(got) > 0 && (got[0].Operator != "E1234" || got[0].Role != "boxperson" || !strings.Contains(string(got[0].Args), "dice left separately")) {
		t.Errorf("first command %+v", got[0])
	}
}

// offlinePublisher is a publisher for a broker that is never reached, with
// its journal and state in temporary folders and its clock at testNow.
func offlinePublisher(t *testing.T) (*Publisher, *journal.Journal) {
	t.Helper()
	j, err := journal.Open(t.TempDir(), journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	p, err := NewPublisher(cmdConfig("tcp://127.0.0.1:1", t.TempDir()), j, Birth{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p.SetClock(func() time.Time { return testNow })
	return p, j
}

func TestHandlerRefusal(t *testing.T) {
	p, _ := offlinePublisher(t)
	p.OnCommand(func(context.Context, Command) error { return errors.New("no throw in progress") })
	res := p.HandleCommand("noroll", sign(t, boxKey, "box-1", noroll("late call")))
	if res.Result != "rejected" || res.Reason != ReasonRefused || res.Detail != "no throw in progress" || res.Operator != "E1234" {
		t.Fatalf("%+v", res)
	}
}

// TestReplayAcrossRestart: a nonce used before a restart is still refused
// after it.
func TestReplayAcrossRestart(t *testing.T) {
	state, jdir := t.TempDir(), t.TempDir()
	msg := sign(t, boxKey, "box-1", noroll("once only"))
	for i, want := range []string{"accepted", "rejected"} {
		j, err := journal.Open(jdir, journal.Options{})
		if err != nil {
			t.Fatal(err)
		}
		p, err := NewPublisher(cmdConfig("tcp://127.0.0.1:1", state), j, Birth{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		p.SetClock(func() time.Time { return testNow.Add(time.Duration(i) * time.Second) })
		res := p.HandleCommand("noroll", msg)
		p.nonces.Close()
		j.Close()
		if res.Result != want || (want == "rejected" && res.Reason != ReasonReplayed) {
			t.Fatalf("run %d: %+v, want %s", i, res, want)
		}
	}
	// Expired entries are dropped when the store is reopened.
	ns, err := OpenNonceStore(state, testNow.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	defer ns.Close()
	if len(ns.seen) != 0 {
		t.Errorf("expired nonces kept: %d", len(ns.seen))
	}
}

// TestCommandsOverBrokerWithPasswordAndACL: a broker with a password file
// and an ACL. The daemon connects with its credentials from password_file;
// a client without them is refused; an operator console sends commands
// with SendCommand and reads each result from the event topic.
func TestCommandsOverBrokerWithPasswordAndACL(t *testing.T) {
	b := mqtttest.StartBroker(t,
		mqtttest.WithUsers(map[string]string{"table-t1": "daemon-pass-1", "console": "console-pass", "surveillance": "watch-pass"}),
		mqtttest.WithACL(strings.Join([]string{
			"user table-t1", "topic readwrite dicewatch/t1/#", "",
			"user console", "topic write dicewatch/t1/cmd/#", "topic read dicewatch/t1/event", "",
			"user surveillance", "topic read dicewatch/t1/#", "",
		}, "\n")))
	dir := t.TempDir()
	pwDaemon := filepath.Join(dir, "daemon.pw")
	pwConsole := filepath.Join(dir, "console.pw")
	os.WriteFile(pwDaemon, []byte("table-t1:daemon-pass-1\n"), 0o600)
	os.WriteFile(pwConsole, []byte("console:console-pass\n"), 0o600)

	sub := mqtttest.Subscribe(t, b.URL(), mqtttest.SubscriberOptions{Username: "surveillance", Password: "watch-pass"}, "dicewatch/t1/#")
	cfg := cmdConfig(b.URL(), t.TempDir())
	cfg.PasswordFile = pwDaemon
	var logBuf syncBuffer
	j, err := journal.Open(t.TempDir(), journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPublisher(cfg, j, Birth{Version: "acl"}, slogTo(&logBuf))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var accepted []Command
	p.OnCommand(func(_ context.Context, c Command) error {
		mu.Lock()
		defer mu.Unlock()
		accepted = append(accepted, c)
		return nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	defer func() {
		cancel()
		<-done
		j.Close()
	}()
	sub.Wait(10*time.Second, func(m []mqtttest.Message) bool {
		return len(m) > 0 && strings.Contains(string(m[0].Payload), `"online"`)
	})

	conn := Config{Broker: b.URL(), Table: "t1", PasswordFile: pwConsole}
	send := func(key ed25519.PrivateKey, keyID, cmd, args string, now time.Time) CommandResult {
		t.Helper()
		res, err := SendCommand(ctx, SendOptions{Conn: conn, KeyID: keyID, Key: key, Command: cmd, Args: json.RawMessage(args), Now: now, Wait: 10 * time.Second})
		if err != nil {
			t.Fatalf("SendCommand %s: %v", cmd, err)
		}
		return res
	}
	now := time.Now()
	if r := send(boxKey, "box-1", "noroll", `{"cause":"not simultaneous"}`, now); r.Result != "accepted" {
		t.Errorf("boxperson noroll: %+v", r)
	}
	if r := send(dealerKey, "deal-7", "noroll", `{"cause":"dealer"}`, now); r.Reason != ReasonForbidden {
		t.Errorf("dealer noroll: %+v", r)
	}
	if r := send(boxKey, "box-1", "noroll", `{"cause":"old"}`, now.Add(-time.Hour)); r.Reason != ReasonExpired {
		t.Errorf("expired: %+v", r)
	}
	if r := send(otherKey, "box-1", "noroll", `{"cause":"forged"}`, now); r.Reason != ReasonBadSignature {
		t.Errorf("forged: %+v", r)
	}
	// Clients without credentials, or with wrong ones, are refused.
	for _, bad := range []string{"", "console:wrong"} {
		c := conn
		c.PasswordFile = ""
		if bad != "" {
			c.PasswordFile = filepath.Join(dir, "bad.pw")
			os.WriteFile(c.PasswordFile, []byte(bad+"\n"), 0o600)
		}
		_, err := SendCommand(ctx, SendOptions{Conn: c, KeyID: "box-1", Key: boxKey, Command: "noroll", Args: json.RawMessage(`{"cause":"x"}`)})
		if err == nil || !strings.Contains(err.Error(), "connect") {
			t.Errorf("credentials %q: %v, want refused", bad, err)
		}
	}
	msgs := sub.Wait(10*time.Second, func(m []mqtttest.Message) bool {
		n := 0
		for _, x := range m {
			if strings.HasSuffix(x.Topic, "/event") {
				n++
			}
		}
		return n >= 4
	})
	validateAll(t, msgs)
	mu.Lock()
	if len(accepted) != 1 {
		t.Errorf("%d commands reached the daemon, want 1", len(accepted))
	}
	mu.Unlock()
	for _, secret := range []string{"daemon-pass-1", "console-pass"} {
		if strings.Contains(logBuf.String(), secret) {
			t.Errorf("log contains a password")
		}
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func slogTo(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// TestJournalResultsWith: with a result journal set, a command's result
// goes to it (with the command's time), not straight to the journal.
func TestJournalResultsWith(t *testing.T) {
	p, j := offlinePublisher(t)
	var got []any
	var at []time.Time
	p.JournalResultsWith(func(ts time.Time, body any) error {
		got, at = append(got, body), append(at, ts)
		return nil
	})
	c := commandCases()[0]
	res := p.HandleCommand(c.topic, c.msg(t))
	if j.LastSeq() != 0 {
		t.Errorf("the result went straight to the journal (last seq %d)", j.LastSeq())
	}
	if len(got) != 1 || got[0] != res || !at[0].Equal(testNow) {
		t.Fatalf("result journal got %v at %v, want %+v at %s", got, at, res, testNow)
	}
}

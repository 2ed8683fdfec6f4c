package mqtttest

import (
	"fmt"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"
)

func publish(t *testing.T, url string, o SubscriberOptions, topic string, payload string) error {
	t.Helper()
	opts := paho.NewClientOptions().AddBroker(url).SetClientID(fmt.Sprintf("pub-%d", time.Now().UnixNano()))
	if o.Username != "" {
		opts.SetUsername(o.Username).SetPassword(o.Password)
	}
	c := paho.NewClient(opts)
	tok := c.Connect()
	if !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		return fmt.Errorf("connect: %w", tok.Error())
	}
	defer c.Disconnect(100)
	pt := c.Publish(topic, 1, false, payload)
	if !pt.WaitTimeout(5*time.Second) || pt.Error() != nil {
		return fmt.Errorf("publish: %w", pt.Error())
	}
	return nil
}

func TestBrokerPublishKillRestart(t *testing.T) {
	b := StartBroker(t)
	if b.PID() == 0 {
		t.Fatal("no pid")
	}
	sub := Subscribe(t, b.URL(), SubscriberOptions{ClientID: "sub-persist"}, "x/#")
	if err := publish(t, b.URL(), SubscriberOptions{}, "x/1", `{"seq":1,"id":"a-1"}`); err != nil {
		t.Fatal(err)
	}
	sub.Wait(10*time.Second, func(m []Message) bool { return len(m) >= 1 })
	pid := b.PID()
	b.Kill()
	if b.PID() != 0 {
		t.Fatal("still running after Kill")
	}
	b.Restart()
	if b.PID() == 0 || b.PID() == pid {
		t.Fatalf("restart pid %d (was %d)", b.PID(), pid)
	}
	// The subscriber reconnects by itself and still gets new messages.
	if err := publish(t, b.URL(), SubscriberOptions{}, "x/2", `{"seq":2,"id":"a-2"}`); err != nil {
		t.Fatal(err)
	}
	msgs := sub.Wait(20*time.Second, func(m []Message) bool { return len(m) >= 2 })
	if p := CheckSequence(msgs, 1, 2); p != "" {
		t.Fatal(p)
	}
}

func TestBrokerPasswordAndACL(t *testing.T) {
	b := StartBroker(t,
		WithUsers(map[string]string{"daemon": "s3cret", "viewer": "look"}),
		WithACL("user daemon\ntopic readwrite t/#\n\nuser viewer\ntopic read t/#\n"))
	good := SubscriberOptions{Username: "daemon", Password: "s3cret"}
	sub := Subscribe(t, b.URL(), SubscriberOptions{Username: "viewer", Password: "look"}, "t/#")
	if err := publish(t, b.URL(), good, "t/a", "1"); err != nil {
		t.Fatalf("authorised publish: %v", err)
	}
	sub.Wait(10*time.Second, func(m []Message) bool { return len(m) == 1 })
	for _, bad := range []SubscriberOptions{{}, {Username: "daemon", Password: "wrong"}, {Username: "nobody", Password: "x"}} {
		if err := publish(t, b.URL(), bad, "t/a", "2"); err == nil {
			t.Errorf("connect as %q was accepted", bad.Username)
		}
	}
}

func TestCheckSequence(t *testing.T) {
	m := func(seq uint64, id string) Message { return Message{Seq: seq, ID: id} }
	cases := []struct {
		name string
		msgs []Message
		ok   bool
	}{
		{"in order", []Message{m(1, "a"), m(2, "b"), m(3, "c")}, true},
		{"dup same id", []Message{m(1, "a"), m(2, "b"), m(1, "a"), m(2, "b"), m(3, "c")}, true},
		{"dup other id", []Message{m(1, "a"), m(2, "b"), m(2, "x"), m(3, "c")}, false},
		{"gap", []Message{m(1, "a"), m(3, "c")}, false},
		{"reorder", []Message{m(1, "a"), m(3, "c"), m(2, "b")}, false},
		{"short", []Message{m(1, "a"), m(2, "b")}, false},
		{"non-seq ignored", []Message{{Topic: "status"}, m(1, "a"), m(2, "b"), m(3, "c")}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := CheckSequence(c.msgs, 1, 3); (got == "") != c.ok {
				t.Errorf("CheckSequence = %q, want ok=%v", got, c.ok)
			}
		})
	}
}

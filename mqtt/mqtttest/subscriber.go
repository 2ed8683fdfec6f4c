package mqtttest

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"
)

// Message is one received message. Seq and ID are parsed from a JSON
// payload's "seq" and "id" fields when present.
type Message struct {
	Topic    string
	Payload  []byte
	Retained bool
	Seq      uint64
	ID       string
	// Received is when the subscriber got it (for latency measurements).
	Received time.Time
}

// Subscriber is a QoS 1 subscriber with a persistent session (a fixed
// client id and CleanSession false) that reconnects on its own and records
// every message in arrival order.
type Subscriber struct {
	t      testing.TB
	client paho.Client

	mu      sync.Mutex
	msgs    []Message
	changed chan struct{}
}

// SubscriberOptions tune Subscribe. The zero value is anonymous with a
// generated client id.
type SubscriberOptions struct {
	ClientID string
	Username string
	Password string
	// Configure may adjust the paho options last (TLS, for example).
	Configure func(*paho.ClientOptions)
}

// Subscribe connects to url and subscribes to each topic filter at QoS 1,
// again after every reconnect. It fails the test if the first connection
// or subscription fails. It disconnects in t.Cleanup.
func Subscribe(t testing.TB, url string, o SubscriberOptions, filters ...string) *Subscriber {
	t.Helper()
	s := &Subscriber{t: t, changed: make(chan struct{})}
	if o.ClientID == "" {
		o.ClientID = fmt.Sprintf("mqtttest-sub-%d", time.Now().UnixNano())
	}
	subs := map[string]byte{}
	for _, f := range filters {
		subs[f] = 1
	}
	opts := paho.NewClientOptions().AddBroker(url).SetClientID(o.ClientID).
		SetCleanSession(false).SetAutoReconnect(true).SetConnectRetry(true).
		SetConnectRetryInterval(50 * time.Millisecond).SetMaxReconnectInterval(200 * time.Millisecond).
		SetOrderMatters(true).SetKeepAlive(5 * time.Second)
	if o.Username != "" {
		opts.SetUsername(o.Username).SetPassword(o.Password)
	}
	opts.SetDefaultPublishHandler(s.record)
	opts.SetOnConnectHandler(func(c paho.Client) {
		// The broker may have lost the session in a crash: subscribe again.
		c.SubscribeMultiple(subs, s.record)
	})
	if o.Configure != nil {
		o.Configure(opts)
	}
	s.client = paho.NewClient(opts)
	tok := s.client.Connect()
	if !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		t.Fatalf("mqtttest: subscriber connect: %v", tok.Error())
	}
	st := s.client.SubscribeMultiple(subs, s.record)
	if !st.WaitTimeout(10*time.Second) || st.Error() != nil {
		t.Fatalf("mqtttest: subscribe: %v", st.Error())
	}
	t.Cleanup(func() { s.client.Disconnect(100) })
	return s
}

func (s *Subscriber) record(_ paho.Client, m paho.Message) {
	msg := Message{Topic: m.Topic(), Payload: append([]byte(nil), m.Payload()...), Retained: m.Retained(), Received: time.Now()}
	var env struct {
		Seq uint64 `json:"seq"`
		ID  string `json:"id"`
	}
	if json.Unmarshal(msg.Payload, &env) == nil {
		msg.Seq, msg.ID = env.Seq, env.ID
	}
	s.mu.Lock()
	s.msgs = append(s.msgs, msg)
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()
}

// Messages returns a copy of everything received so far.
func (s *Subscriber) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.msgs...)
}

// Wait blocks until cond holds for the messages received so far, and
// returns them. It fails the test if that takes longer than limit.
func (s *Subscriber) Wait(limit time.Duration, cond func([]Message) bool) []Message {
	s.t.Helper()
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		msgs := append([]Message(nil), s.msgs...)
		ch := s.changed
		s.mu.Unlock()
		if cond(msgs) {
			return msgs
		}
		select {
		case <-ch:
		case <-deadline.C:
			s.t.Fatalf("mqtttest: condition not met after %v (%d messages)", limit, len(msgs))
			return msgs
		}
	}
}

// Disconnect ends the subscriber's connection now.
func (s *Subscriber) Disconnect() { s.client.Disconnect(100) }

// CheckSequence checks messages carrying a seq (on any topic) as a
// consumer that de-duplicates by id would: taking each seq at its first
// arrival, the seqs must be exactly from..to in increasing order, and every
// repeat of a seq must carry the same id. It returns a description of the
// first problem, or "" if there is none.
func CheckSequence(msgs []Message, from, to uint64) string {
	ids := map[uint64]string{}
	next := from
	for _, m := range msgs {
		if m.Seq == 0 {
			continue
		}
		if id, seen := ids[m.Seq]; seen {
			if id != m.ID {
				return fmt.Sprintf("seq %d re-delivered with id %q, first had %q", m.Seq, m.ID, id)
			}
			continue
		}
		if m.Seq != next {
			return fmt.Sprintf("new seq %d arrived when %d was expected", m.Seq, next)
		}
		ids[m.Seq] = m.ID
		next++
	}
	if next != to+1 {
		return fmt.Sprintf("received %d..%d, want %d..%d", from, next-1, from, to)
	}
	return ""
}

package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"
)

// cmdWatch subscribes to a table's topics and prints each message decoded,
// one line per message, as it arrives. It is the demo's window onto the
// broker and a technician's quick check of a live table.
func cmdWatch(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("watch", flag.ContinueOnError)
	fs.SetOutput(stderr)
	broker := fs.String("broker", "tcp://127.0.0.1:1883", "broker URL")
	prefix := fs.String("prefix", "dicewatch/+/", "topic prefix to watch (MQTT wildcards allowed)")
	count := fs.Int("count", 0, "exit after this many roll/noroll decisions (0: run until interrupted)")
	timeout := fs.Duration("timeout", 0, "give up after this long (0: no limit)")
	raw := fs.Bool("raw", false, "print the JSON payloads as received")
	ready := fs.String("ready-file", "", "create this file once subscribed (for scripts)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *timeout)
		defer cancel()
	}

	var mu sync.Mutex
	seqs := newSeqWatch()
	decisions := 0
	done := make(chan struct{})
	var once sync.Once
	handler := func(_ paho.Client, m paho.Message) {
		mu.Lock()
		defer mu.Unlock()
		if *raw {
			fmt.Fprintf(stdout, "%s %s\n", m.Topic(), m.Payload())
		} else {
			fmt.Fprintln(stdout, describe(m.Topic(), m.Payload(), m.Retained())+seqs.note(m.Payload(), m.Retained()))
		}
		if strings.HasSuffix(m.Topic(), "/roll") || strings.HasSuffix(m.Topic(), "/noroll") {
			decisions++
			if *count > 0 && decisions >= *count {
				once.Do(func() { close(done) })
			}
		}
	}
	opts := paho.NewClientOptions().AddBroker(*broker).
		SetClientID(fmt.Sprintf("dicewatch-watch-%d", os.Getpid())).
		SetCleanSession(true).SetConnectRetry(true).SetConnectRetryInterval(200 * time.Millisecond).
		SetAutoReconnect(true).
		SetOnConnectHandler(func(c paho.Client) {
			topics := map[string]byte{}
			// Every outbound topic: seq is shared by them, so a gap in
			// what is printed is a gap in what was received.
			for _, t := range []string{"status", "roll", "noroll", "state", "event", "snapshot"} {
				topics[*prefix+t] = 1
			}
			tok := c.SubscribeMultiple(topics, handler)
			tok.Wait()
			if tok.Error() != nil {
				fmt.Fprintf(stderr, "watch: subscribe: %v\n", tok.Error())
				return
			}
			if *ready != "" {
				_ = os.WriteFile(*ready, []byte("subscribed\n"), 0o644)
			}
		})
	c := paho.NewClient(opts)
	tok := c.Connect()
	select {
	case <-tok.Done():
		if tok.Error() != nil {
			fmt.Fprintf(stderr, "watch: connect %s: %v\n", *broker, tok.Error())
			return 1
		}
	case <-ctx.Done():
	}
	select {
	case <-done:
	case <-ctx.Done():
	}
	c.Disconnect(250)
	mu.Lock()
	defer mu.Unlock()
	if *count > 0 && decisions < *count {
		fmt.Fprintf(stderr, "watch: saw %d of %d decisions before stopping\n", decisions, *count)
		return 1
	}
	return 0
}

// describe renders one message for a person.
func describe(topic string, payload []byte, retained bool) string {
	var m map[string]any
	if err := json.Unmarshal(payload, &m); err != nil {
		return fmt.Sprintf("%-8s (not JSON: %v) %q", lastPart(topic), err, payload)
	}
	kind := lastPart(topic)
	seq := num(m["seq"])
	head := fmt.Sprintf("%s %-8s seq=%-4s", clock(m["ts"]), kind, seq)
	if retained {
		head += " (retained)"
	}
	switch kind {
	case "roll":
		return fmt.Sprintf("%s VALID   %v total=%v%s", head, ints(m["values"]), num(m["total"]), extra(m))
	case "noroll":
		s := fmt.Sprintf("%s %s reasons=%s", head, strings.ToUpper(strings.ReplaceAll(fmt.Sprint(m["verdict"]), "_", " ")), strs(m["reasons"]))
		if v, ok := m["values"]; ok {
			s += " read=" + ints(v)
		}
		return s + extra(m)
	case "snapshot":
		size := 0
		if b, ok := m["jpeg"].(string); ok {
			size = len(b) * 3 / 4 // base64
		}
		return fmt.Sprintf("%s picture of decision %v: %dx%d JPEG, %d KB", head, m["decision_id"], int(numF(m["width"])), int(numF(m["height"])), size/1024)
	case "status":
		s := fmt.Sprintf("%s %-8s %v", clock(m["ts"]), kind, m["status"])
		if r, ok := m["reason"]; ok {
			s += fmt.Sprintf(" (%v)", r)
		}
		if v, ok := m["version"]; ok {
			s += fmt.Sprintf(" version=%v config=%v calibration=%v", v, m["config_hash"], m["calibration_hash"])
		}
		if n, ok := m["last_seq"]; ok {
			s += " last_seq=" + num(n)
		}
		if d, ok := m["detail"]; ok {
			s += fmt.Sprintf(" detail=%q", fmt.Sprint(d))
		}
		if retained {
			s += " (retained)"
		}
		return s
	case "state":
		keys := []string{"phase", "point", "puck", "outcome", "invalid_streak"}
		var parts []string
		for _, k := range keys {
			if v, ok := m[k]; ok {
				parts = append(parts, fmt.Sprintf("%s=%v", k, fmtVal(v)))
			}
		}
		return fmt.Sprintf("%s %s", head, strings.Join(parts, " "))
	default:
		var parts []string
		keys := make([]string, 0, len(m))
		for k := range m {
			switch k {
			case "schema", "table", "seq", "id", "ts":
				continue
			}
			keys = append(keys, k)
		}
		// What the event is, then what and its state or result, then the rest.
		first := map[string]int{"event": 1, "what": 2, "state": 3, "command": 4, "result": 5, "reason": 6}
		sort.Slice(keys, func(a, b int) bool {
			fa, fb := first[keys[a]], first[keys[b]]
			switch {
			case fa != 0 && fb != 0:
				return fa < fb
			case fa != 0 || fb != 0:
				return fa != 0
			}
			return keys[a] < keys[b]
		})
		for _, k := range keys {
			parts = append(parts, fmt.Sprintf("%s=%v", k, fmtVal(m[k])))
		}
		return fmt.Sprintf("%s %s", head, strings.Join(parts, " "))
	}
}

func extra(m map[string]any) string {
	var s string
	if a := strs(m["advisories"]); a != "[]" {
		s += " advisories=" + a
	}
	if t, ok := m["throw"].(float64); ok {
		s += fmt.Sprintf(" throw=%d", int(t))
	}
	if c, ok := m["clip"].(map[string]any); ok {
		s += fmt.Sprintf(" clip=%v", c["file"])
	}
	return s
}

// clock is a payload's ts as the time of day in UTC with milliseconds
// (the date is left out; "--:--:--.---" if it is missing or bad).
func clock(v any) string {
	s, _ := v.(string)
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return "--:--:--.---"
	}
	return t.UTC().Format("15:04:05.000")
}

func numF(v any) float64 {
	f, _ := v.(float64)
	return f
}

// seqWatch follows each table's seq across the messages printed, as the
// MQTT contract tells a consumer to: a seq at or below the last is a
// re-delivery (same id, skip it); one past last+1 is a gap. Retained
// messages (sent on subscribing, possibly old) are not followed.
type seqWatch struct{ last map[string]uint64 }

func newSeqWatch() *seqWatch { return &seqWatch{last: map[string]uint64{}} }

// note is what to add to a message's line: "", a re-delivery, or a gap.
func (w *seqWatch) note(payload []byte, retained bool) string {
	var m struct {
		Table string  `json:"table"`
		Seq   *uint64 `json:"seq"`
	}
	if retained || json.Unmarshal(payload, &m) != nil || m.Seq == nil {
		return ""
	}
	last, seen := w.last[m.Table]
	switch {
	case !seen:
		w.last[m.Table] = *m.Seq
		return ""
	case *m.Seq <= last:
		return "  (re-delivery: already seen)"
	case *m.Seq > last+1:
		w.last[m.Table] = *m.Seq
		if *m.Seq == last+2 {
			return fmt.Sprintf("  (GAP: seq %d not received)", last+1)
		}
		return fmt.Sprintf("  (GAP: seq %d..%d not received)", last+1, *m.Seq-1)
	default:
		w.last[m.Table] = *m.Seq
		return ""
	}
}

func lastPart(topic string) string {
	i := strings.LastIndex(topic, "/")
	return topic[i+1:]
}

func num(v any) string {
	if f, ok := v.(float64); ok {
		return fmt.Sprintf("%d", int64(f))
	}
	return fmt.Sprint(v)
}

func ints(v any) string {
	a, _ := v.([]any)
	parts := make([]string, len(a))
	for i, x := range a {
		parts[i] = num(x)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func strs(v any) string {
	a, _ := v.([]any)
	parts := make([]string, len(a))
	for i, x := range a {
		parts[i] = fmt.Sprint(x)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func fmtVal(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case float64:
		return num(x)
	case string:
		return x
	default:
		b, _ := json.Marshal(x)
		return string(b)
	}
}

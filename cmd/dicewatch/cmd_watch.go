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
	decisions := 0
	done := make(chan struct{})
	var once sync.Once
	handler := func(_ paho.Client, m paho.Message) {
		mu.Lock()
		defer mu.Unlock()
		if *raw {
			fmt.Fprintf(stdout, "%s %s\n", m.Topic(), m.Payload())
		} else {
			fmt.Fprintln(stdout, describe(m.Topic(), m.Payload(), m.Retained()))
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
			for _, t := range []string{"status", "roll", "noroll", "state", "event"} {
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
	head := fmt.Sprintf("%-7s seq=%-4s", kind, seq)
	if retained {
		head += " (retained)"
	}
	switch kind {
	case "roll":
		return fmt.Sprintf("%s VALID  %v total=%v%s", head, ints(m["values"]), num(m["total"]), extra(m))
	case "noroll":
		return fmt.Sprintf("%s NO ROLL reasons=%s%s", head, strs(m["reasons"]), extra(m))
	case "status":
		return fmt.Sprintf("%-7s %v version=%v config=%v calibration=%v%s", kind, m["status"], m["version"], m["config_hash"], m["calibration_hash"], map[bool]string{true: " (retained)"}[retained])
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
		sort.Strings(keys)
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
	return s
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

package sensors_test

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/dicewatch/dicewatch/sensors"
)

// TestReplayOfOwnOutputIsIdentity checks, on random raw level sequences
// with bounce, spikes, long holds and bursts, that the events the filter
// makes replay through it to the same events: what makes a recorded trace
// replay to the run that recorded it.
func TestReplayOfOwnOutputIsIdentity(t *testing.T) {
	cfg := tableConfig()
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := 0; trial < 300; trial++ {
		var rawIn []sensors.Event
		for _, in := range cfg.Inputs {
			at := int64(rng.IntN(50))
			level := false
			for i := 0; i < 40; i++ {
				switch rng.IntN(4) {
				case 0:
					at += int64(rng.IntN(4)) // bounce
				case 1:
					at += int64(rng.IntN(40))
				case 2:
					at += int64(rng.IntN(400))
				default:
					at += int64(rng.IntN(6000)) // long holds go stuck
				}
				level = !level
				rawIn = append(rawIn, raw(at, in.Name, level))
			}
			if rng.IntN(5) == 0 {
				rawIn = append(rawIn, ev(at/2, in.Name, sensors.KindDisconnected, false), ev(at/2+300, in.Name, sensors.KindDisconnectedClear, false))
			}
		}
		var end int64
		for _, e := range rawIn {
			end = max(end, e.AtMS)
		}
		end += 20000
		live := replayAll(t, cfg, rawIn, end)
		again := replayAll(t, cfg, live, end)
		if !reflect.DeepEqual(byInput(again), byInput(live)) {
			t.Fatalf("trial %d: replay differs\nlive   %v\nreplay %v", trial, live, again)
		}
	}
}

// byInput splits events per input, keeping their order: events of one
// input replay in the same order; events of different inputs at the same
// millisecond may interleave differently.
func byInput(events []sensors.Event) map[string][]sensors.Event {
	m := map[string][]sensors.Event{}
	for _, e := range events {
		m[e.Name] = append(m[e.Name], e)
	}
	return m
}

// replayAll replays events in steps of 33 ms (video frames) up to end.
func replayAll(t *testing.T, cfg sensors.Config, in []sensors.Event, end int64) []sensors.Event {
	t.Helper()
	r, err := sensors.NewReplay(cfg, in)
	if err != nil {
		t.Fatal(err)
	}
	var out []sensors.Event
	for ms := int64(0); ms < end; ms += 33 {
		out = append(out, r.Until(ms)...)
	}
	return append(out, r.Until(end)...)
}

func TestTraceRoundTrip(t *testing.T) {
	events := []sensors.Event{
		edgeEv(0, "rail_left", true), ev(3000, "rail_left", sensors.KindStuck, true),
		ev(12, "present", sensors.KindDisconnected, false), edgeEv(7, "button", false),
	}
	var buf bytes.Buffer
	w := sensors.NewTraceWriter(&buf)
	for _, e := range events {
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	wantText := `{"t_ms":0,"role":"rail","name":"rail_left","kind":"edge","active":true}` + "\n"
	if !strings.HasPrefix(buf.String(), wantText) {
		t.Fatalf("first line %q, want %q", strings.SplitAfter(buf.String(), "\n")[0], wantText)
	}
	got, err := sensors.ReadTrace(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, events) {
		t.Fatalf("read back %v, want %v", got, events)
	}
}

func TestReadTraceErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"not json", "{\"t_ms\":1,\"role\":\"rail\",\"name\":\"a\",\"kind\":\"edge\",\"active\":true}\nnope\n", "trace line 2: invalid character"},
		{"missing time", `{"role":"rail","name":"a","kind":"edge","active":true}`, "trace line 1: missing t_ms"},
		{"negative time", `{"t_ms":-5,"role":"rail","name":"a","kind":"edge","active":true}`, "t_ms -5 is negative"},
		{"unknown role", `{"t_ms":5,"role":"floor","name":"a","kind":"edge","active":true}`, `unknown role "floor"`},
		{"unknown kind", `{"t_ms":5,"role":"rail","name":"a","kind":"blink","active":true}`, `unknown kind "blink"`},
		{"missing name", `{"t_ms":5,"role":"rail","name":"","kind":"edge","active":true}`, "missing name"},
		{"missing active", `{"t_ms":5,"role":"rail","name":"a","kind":"edge"}`, "missing active"},
		{"array", `[1,2]`, "trace line 1: json: cannot unmarshal array"},
		{"too long", `{"t_ms":5,"name":"` + strings.Repeat("x", 70000) + `"}`, "token too long"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := sensors.ReadTrace(strings.NewReader(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestNewReplayChecksConfig(t *testing.T) {
	tests := []struct {
		name string
		in   sensors.Event
		want string
	}{
		{"unknown input", sensors.Event{AtMS: 1, Role: sensors.RoleRail, Name: "rail_9", Kind: sensors.KindEdge}, `input "rail_9" is not in the config`},
		{"role differs", sensors.Event{AtMS: 1, Role: sensors.RoleBowl, Name: "wall", Kind: sensors.KindEdge}, `input "wall" has role "bowl" in the trace but "back_wall" in the config`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := sensors.NewReplay(tableConfig(), []sensors.Event{tc.in})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// FuzzReadTrace: the parser never panics; what it accepts writes back and
// reads again unchanged, and replays without panicking.
func FuzzReadTrace(f *testing.F) {
	f.Add([]byte(`{"t_ms":0,"role":"rail","name":"rail_left","kind":"edge","active":true}` + "\n"))
	f.Add([]byte("\n\n{\"t_ms\":9,\"role\":\"bowl\",\"name\":\"b\",\"kind\":\"stuck\",\"active\":true,\"extra\":1}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		events, err := sensors.ReadTrace(bytes.NewReader(b))
		if err != nil {
			return
		}
		var buf bytes.Buffer
		w := sensors.NewTraceWriter(&buf)
		for _, e := range events {
			if err := w.Write(e); err != nil {
				t.Fatal(err)
			}
		}
		again, err := sensors.ReadTrace(&buf)
		if err != nil {
			t.Fatalf("written trace does not read back: %v\n%s", err, buf.String())
		}
		if len(events) != len(again) || (len(events) > 0 && !reflect.DeepEqual(events, again)) {
			t.Fatalf("round trip changed events:\n%v\n%v", events, again)
		}
		// Replay under a config made from the trace's own inputs.
		var cfg sensors.Config
		seen := map[string]bool{}
		for i, e := range events {
			if seen[e.Name] || len(cfg.Inputs) > 20 {
				continue
			}
			seen[e.Name] = true
			cfg.Inputs = append(cfg.Inputs, sensors.Input{Name: e.Name, Role: e.Role, Pin: "P" + string(rune('A'+i%26)) + e.Name,
				Active: "high", DenoiseMS: i % 7, DebounceMS: i % 31, StuckAfterMS: 100 * (i % 3), ChatterPerS: i % 5})
		}
		r, err := sensors.NewReplay(cfg, events)
		if err != nil {
			return
		}
		r.Until(r.LastMS() + 1000)
	})
}

func TestReplayDropsDuplicateLines(t *testing.T) {
	// Every line twice, as when a trace is written by two writers.
	once := pulses("wall", 0, 40, 12)
	var twice []sensors.Event
	for _, e := range once {
		twice = append(twice, e, e)
	}
	a, b := replayAll(t, tableConfig(), once, 3000), replayAll(t, tableConfig(), twice, 3000)
	if !reflect.DeepEqual(a, b) || len(a) != 12 {
		t.Fatalf("doubled trace replays to %v, want the single trace's %v (12 edges, no chatter)", b, a)
	}
}

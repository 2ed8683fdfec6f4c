package sensors

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"sync"
)

// TraceWriter writes events as a sensor trace: one JSON object per line,
// written through to w as each event happens.
type TraceWriter struct {
	mu  sync.Mutex
	w   io.Writer
	err error
}

// NewTraceWriter writes a trace to w.
func NewTraceWriter(w io.Writer) *TraceWriter { return &TraceWriter{w: w} }

// Write appends one event. After the first failure it writes nothing more
// and returns that error (see Err).
func (t *TraceWriter) Write(e Event) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err != nil {
		return t.err
	}
	b, err := json.Marshal(e)
	if err == nil {
		_, err = t.w.Write(append(b, '\n'))
	}
	if err != nil {
		t.err = fmt.Errorf("sensors: write trace: %w", err)
	}
	return t.err
}

// Err is the first write error, or nil.
func (t *TraceWriter) Err() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

// maxTraceMS bounds trace times (about 31 years) so deadlines never
// overflow.
const maxTraceMS = int64(1) << 50

// maxTraceLine bounds one trace line.
const maxTraceLine = 64 << 10

// ReadTrace parses a sensor trace. Blank lines are skipped; every other
// line must be a JSON object with t_ms (>= 0), a known role and kind, a
// name and active. Unknown fields are allowed. Errors name the line.
func ReadTrace(r io.Reader) ([]Event, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxTraceLine)
	var out []Event
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		e, err := parseTraceLine(line)
		if err != nil {
			return nil, fmt.Errorf("sensors: trace line %d: %w", n, err)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("sensors: trace line %d: %w", n+1, err)
	}
	return out, nil
}

func parseTraceLine(b []byte) (Event, error) {
	var raw struct {
		AtMS   *int64  `json:"t_ms"`
		Role   *Role   `json:"role"`
		Name   *string `json:"name"`
		Kind   *Kind   `json:"kind"`
		Active *bool   `json:"active"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return Event{}, err
	}
	switch {
	case raw.AtMS == nil:
		return Event{}, fmt.Errorf("missing t_ms")
	case *raw.AtMS < 0:
		return Event{}, fmt.Errorf("t_ms %d is negative", *raw.AtMS)
	case *raw.AtMS > maxTraceMS:
		return Event{}, fmt.Errorf("t_ms %d is out of range", *raw.AtMS)
	case raw.Role == nil:
		return Event{}, fmt.Errorf("missing role")
	case raw.Name == nil || *raw.Name == "":
		return Event{}, fmt.Errorf("missing name")
	case raw.Kind == nil:
		return Event{}, fmt.Errorf("missing kind")
	case raw.Active == nil:
		return Event{}, fmt.Errorf("missing active")
	}
	switch *raw.Role {
	case RoleRail, RoleBowl, RoleBackWall, RoleNoRollButton, RoleDicePresent:
	default:
		return Event{}, fmt.Errorf("unknown role %q", *raw.Role)
	}
	switch *raw.Kind {
	case KindEdge, KindStuck, KindStuckCleared, KindChatter, KindChatterClear, KindDisconnected, KindDisconnectedClear:
	default:
		return Event{}, fmt.Errorf("unknown kind %q", *raw.Kind)
	}
	return Event{AtMS: *raw.AtMS, Role: *raw.Role, Name: *raw.Name, Kind: *raw.Kind, Active: *raw.Active}, nil
}

// Replay feeds a recorded trace through the same filter and fault code as
// live pins, in step with video: Until(frameMS) returns the events up to a
// frame's time. Edge lines are raw levels to that code; chatter,
// disconnected and their clears are hardware observations; stuck and
// stuck_cleared are derived again from the edges, so recorded ones are
// not copied. Replaying a trace recorded with the same config yields the
// events that were recorded, in the same order for each input (events of
// different inputs in the same millisecond may interleave differently).
type Replay struct {
	m     *machine
	lines []Event
	next  int
}

// NewReplay checks every line against the config (the input must exist
// with the same role), orders lines by time, keeping file order for equal
// times, and drops a line identical to the previous one of its input.
func NewReplay(cfg Config, lines []Event) (*Replay, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	start := int64(0)
	if len(lines) > 0 {
		start = lines[0].AtMS
	}
	m := newMachine(cfg.Inputs, 0)
	for i, e := range lines {
		j, ok := m.byName[e.Name]
		if !ok {
			return nil, fmt.Errorf("sensors: replay: trace event %d: input %q is not in the config", i+1, e.Name)
		}
		if r := cfg.Inputs[j].Role; r != e.Role {
			return nil, fmt.Errorf("sensors: replay: trace event %d: input %q has role %q in the trace but %q in the config", i+1, e.Name, e.Role, r)
		}
		start = min(start, e.AtMS)
	}
	m = newMachine(cfg.Inputs, start)
	ls := append([]Event(nil), lines...)
	sort.SliceStable(ls, func(a, b int) bool { return ls[a].AtMS < ls[b].AtMS })
	// A line equal to the previous line of its input is a duplicate (a
	// trace written twice over): the filter never emits the same event
	// twice in a row for one input, and a repeated edge would count twice
	// towards chatter.
	last := map[string]Event{}
	kept := ls[:0]
	for _, e := range ls {
		if prev, ok := last[e.Name]; ok && prev == e {
			continue
		}
		last[e.Name] = e
		kept = append(kept, e)
	}
	return &Replay{m: m, lines: kept}, nil
}

// Until applies every trace line at or before ms, fires what is due by ms,
// and returns the events that produced, in order. Calls must not go back
// in time.
func (r *Replay) Until(ms int64) []Event {
	for r.next < len(r.lines) && r.lines[r.next].AtMS <= ms {
		e := r.lines[r.next]
		r.next++
		i := r.m.byName[e.Name]
		if e.Kind == KindEdge {
			r.m.sample(i, e.AtMS, e.Active)
			continue
		}
		r.m.observe(i, e.AtMS, e.Kind)
	}
	r.m.advance(ms)
	return r.m.drain()
}

// Done reports whether every trace line has been applied.
func (r *Replay) Done() bool { return r.next >= len(r.lines) }

// LastMS is the time of the last trace line (0 for an empty trace).
func (r *Replay) LastMS() int64 {
	if len(r.lines) == 0 {
		return 0
	}
	return r.lines[len(r.lines)-1].AtMS
}

package sensors

import "math"

// chatterWindowMS is the window over which chatter_per_s counts raw edges.
const chatterWindowMS = 1000

// never is a deadline that does not come.
const never = int64(math.MaxInt64)

// channel is the state of one input: the filter from raw samples to
// debounced edges, and its faults. Levels are in active terms (true: beam
// broken, button pressed), never electrical.
type channel struct {
	in Input

	reported  bool  // the level last reported as an edge
	raw       bool  // the latest raw level
	rawSince  int64 // when raw last changed
	lockUntil int64 // no edge is confirmed before this (debounce)

	activeSince int64 // edge time of the last active edge
	stuck       bool
	stuckAt     int64

	edges           []int64 // the last chatter_per_s+1 raw edge times
	chatter         bool
	chatterObserved bool // raised by a recorded observation, cleared only by one

	disconnected bool
}

// confirmAt is when a pending raw level becomes an edge, or never.
func (c *channel) confirmAt() int64 {
	if c.raw == c.reported {
		return never
	}
	return max(c.rawSince+int64(c.in.DenoiseMS), c.lockUntil)
}

func (c *channel) stuckDue() int64 {
	if !c.reported || c.stuck || c.in.StuckAfterMS <= 0 {
		return never
	}
	return c.activeSince + int64(c.in.StuckAfterMS)
}

func (c *channel) chatterClearAt() int64 {
	if !c.chatter || c.chatterObserved {
		return never
	}
	keep := c.in.ChatterPerS / 2
	// The clear is due when all but keep of the remembered edges have left
	// the window. While chatter is raised at least limit+1 > keep edges
	// are remembered.
	return c.edges[len(c.edges)-keep-1] + chatterWindowMS
}

// machine runs every input's filter against one clock. Live pins and
// replayed traces both drive it through sample, observe and advance; it
// never reads a clock itself, so it is deterministic in its inputs.
type machine struct {
	chans  []*channel
	byName map[string]int
	now    int64
	out    []Event
}

func newMachine(inputs []Input, startMS int64) *machine {
	m := &machine{byName: map[string]int{}, now: startMS}
	for i, in := range inputs {
		m.chans = append(m.chans, &channel{in: in, rawSince: startMS, lockUntil: math.MinInt64})
		m.byName[in.Name] = i
	}
	return m
}

func (m *machine) emit(c *channel, at int64, k Kind) {
	m.out = append(m.out, Event{AtMS: at, Role: c.in.Role, Name: c.in.Name, Kind: k, Active: c.reported})
}

// next is the earliest pending deadline.
func (m *machine) next() int64 {
	d := never
	for _, c := range m.chans {
		d = min(d, c.confirmAt(), c.stuckDue(), c.chatterClearAt())
	}
	return d
}

// advance fires every deadline up to t, earliest first (ties in input
// order, then confirm, stuck, chatter clear).
func (m *machine) advance(t int64) {
	for {
		best, at, what := -1, never, 0
		for i, c := range m.chans {
			for w, d := range [3]int64{c.confirmAt(), c.stuckDue(), c.chatterClearAt()} {
				if d < at {
					best, at, what = i, d, w
				}
			}
		}
		if best < 0 || at > t {
			break
		}
		c := m.chans[best]
		switch what {
		case 0:
			m.confirm(c)
		case 1:
			c.stuck, c.stuckAt = true, at
			m.emit(c, at, KindStuck)
		case 2:
			c.chatter = false
			m.emit(c, at, KindChatterClear)
		}
	}
	m.now = max(m.now, t)
}

func (m *machine) confirm(c *channel) {
	c.reported = c.raw
	at := c.rawSince
	c.lockUntil = at + int64(c.in.DebounceMS)
	m.emit(c, at, KindEdge)
	if c.reported {
		c.activeSince = at
		return
	}
	if c.stuck {
		c.stuck = false
		m.emit(c, max(at, c.stuckAt), KindStuckCleared)
	}
}

// sample takes a raw edge of input i at time t with its level afterwards.
// Samples of one input must come in time order.
func (m *machine) sample(i int, t int64, active bool) {
	m.advance(t)
	c := m.chans[i]
	if active != c.raw {
		c.raw, c.rawSince = active, t
	}
	if lim := c.in.ChatterPerS; lim > 0 {
		c.edges = append(c.edges, t)
		if len(c.edges) > lim+1 {
			c.edges = append(c.edges[:0], c.edges[len(c.edges)-lim-1:]...)
		}
		if !c.chatter && len(c.edges) == lim+1 && c.edges[0] > t-chatterWindowMS {
			c.chatter = true
			m.emit(c, t, KindChatter)
		}
	}
	m.advance(t)
}

// observe applies a fault the hardware reported (a health pin) or a trace
// recorded: chatter, disconnected and their clears. Stuck is derived from
// edges, so recorded stuck lines are not observations. It reports whether
// the kind is an observation.
func (m *machine) observe(i int, t int64, k Kind) bool {
	c := m.chans[i]
	switch k {
	case KindChatter, KindChatterClear, KindDisconnected, KindDisconnectedClear:
	default:
		return false
	}
	m.advance(t)
	switch k {
	case KindChatter:
		if !c.chatter {
			c.chatter = true
			m.emit(c, t, k)
		}
		c.chatterObserved = true
	case KindChatterClear:
		if c.chatter {
			c.chatter = false
			m.emit(c, t, k)
		}
		c.chatterObserved = false
	case KindDisconnected:
		if !c.disconnected {
			c.disconnected = true
			m.emit(c, t, k)
		}
	case KindDisconnectedClear:
		if c.disconnected {
			c.disconnected = false
			m.emit(c, t, k)
		}
	}
	return true
}

// drain returns the events emitted since the last drain.
func (m *machine) drain() []Event {
	out := m.out
	m.out = nil
	return out
}

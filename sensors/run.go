package sensors

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"periph.io/x/conn/v3/gpio"
)

// Resolver finds a pin by the name in the config. The daemon's resolver
// uses periph's registry and the GPIO character device; tests resolve to
// gpiotest pins (see sensorstest).
type Resolver func(name string) (gpio.PinIO, error)

// Clock is the stream clock: milliseconds on the same monotonic clock as
// frame timestamps.
type Clock interface {
	NowMS() int64
	// At returns a channel closed once the clock reaches ms, and a stop
	// function that releases it early.
	At(ms int64) (<-chan struct{}, func())
}

// MonotonicClock counts milliseconds since Origin on the process's
// monotonic clock. Give it the origin frame timestamps are taken from.
type MonotonicClock struct {
	Origin time.Time
}

var _ Clock = MonotonicClock{}

// NowMS implements Clock.
func (c MonotonicClock) NowMS() int64 { return time.Since(c.Origin).Milliseconds() }

// At implements Clock.
func (c MonotonicClock) At(ms int64) (<-chan struct{}, func()) {
	ch := make(chan struct{})
	t := time.AfterFunc(time.Until(c.Origin.Add(time.Duration(ms)*time.Millisecond)), func() { close(ch) })
	return ch, func() { t.Stop() }
}

// ErrMissingPin is matched by errors.Is when a configured pin does not
// exist; the error text names the pin and the input.
var ErrMissingPin = errors.New("pin not found")

// Sensors is the set of opened inputs. Run owns them.
type Sensors struct {
	cfg  Config
	clk  Clock
	pins []watched

	// PollTimeout bounds each WaitForEdge call, so Run notices its context
	// ending within about this long. Zero means 200 ms.
	PollTimeout time.Duration
}

type watched struct {
	input  int
	health bool
	pin    gpio.PinIO
	active gpio.Level
}

// Open validates the config and opens every input (and health pin) for
// both edges through resolve. A pin that does not resolve is an error
// naming it.
func Open(cfg Config, resolve Resolver, clk Clock) (*Sensors, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s := &Sensors{cfg: cfg, clk: clk}
	open := func(i int, in Input, health bool) error {
		name, lvl := in.Pin, in.Active
		if health {
			name, lvl = in.HealthPin, in.HealthActive
		}
		p, err := resolve(name)
		if err == nil && p == nil {
			err = ErrMissingPin
		}
		if err != nil {
			return fmt.Errorf("sensors: input %q: pin %q: %w", in.Name, name, err)
		}
		pull, _ := parsePull(in.Pull) // a health pin takes its input's pull
		if err := p.In(pull, gpio.BothEdges); err != nil {
			return fmt.Errorf("sensors: input %q: pin %q: set input: %w", in.Name, name, err)
		}
		act, _ := parseLevel(lvl)
		s.pins = append(s.pins, watched{input: i, health: health, pin: p, active: act})
		return nil
	}
	for i, in := range cfg.Inputs {
		if err := open(i, in, false); err != nil {
			return nil, err
		}
		if in.HealthPin != "" {
			if err := open(i, in, true); err != nil {
				return nil, err
			}
		}
	}
	return s, nil
}

type rawSample struct {
	w     int // index into pins
	atMS  int64
	level gpio.Level
	fault Kind // not empty: the pin failed (disconnected) or works again
}

// failuresToDisconnect is how many WaitForEdge calls in a row must fail
// at once (well before their timeout) for a pin to count as disconnected.
const failuresToDisconnect = 3

// watch is one pin's reader: it waits for edges and hands each level, with
// the time it was read, to Run. A pin whose WaitForEdge keeps failing at
// once (a GPIO chip gone, a line taken away) is reported disconnected,
// and connected again when it next waits out its timeout or sees an edge.
func (s *Sensors) watch(ctx context.Context, i int, p gpio.PinIn, poll time.Duration, samples chan<- rawSample) {
	send := func(r rawSample) bool {
		r.w, r.atMS = i, s.clk.NowMS()
		select {
		case samples <- r:
			return true
		case <-ctx.Done():
			return false
		}
	}
	fails, down := 0, false
	for ctx.Err() == nil {
		t0 := time.Now()
		if !p.WaitForEdge(poll) {
			if time.Since(t0) >= poll/4 {
				fails = 0
				if down {
					down = false
					send(rawSample{fault: KindDisconnectedClear})
				}
				continue
			}
			if fails++; fails >= failuresToDisconnect && !down {
				down = true
				send(rawSample{fault: KindDisconnected})
			}
			if down {
				// Back off rather than spin on a failing pin.
				t := time.NewTimer(poll)
				select {
				case <-t.C:
				case <-ctx.Done():
					t.Stop()
				}
			}
			continue
		}
		fails = 0
		if down {
			down = false
			if !send(rawSample{fault: KindDisconnectedClear}) {
				return
			}
		}
		if !send(rawSample{level: p.Read()}) {
			return
		}
	}
}

// Run reads every input until ctx ends, sending each debounced edge and
// fault change on out in order, and writing it to rec first when rec is
// not nil. It never drops an event: a full out blocks it. At start each
// input is read once; an input already active yields an edge at the start
// time, and a health pin not at its healthy level yields disconnected. Run
// returns nil when ctx ends, after its pin goroutines have returned.
func (s *Sensors) Run(ctx context.Context, out chan<- Event, rec *TraceWriter) error {
	poll := s.PollTimeout
	if poll <= 0 {
		poll = 200 * time.Millisecond
	}
	start := s.clk.NowMS()
	m := newMachine(s.cfg.Inputs, start)
	for i, w := range s.pins {
		if l := w.pin.Read(); w.health || l == w.active {
			s.apply(m, rawSample{w: i, atMS: start, level: l})
		}
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	samples := make(chan rawSample, 256)
	var wg sync.WaitGroup
	for i, w := range s.pins {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.watch(ctx, i, w.pin, poll, samples)
		}()
	}
	defer func() {
		cancel()
		wg.Wait()
		for _, w := range s.pins {
			_ = w.pin.Halt()
		}
	}()

	flush := func() bool {
		for _, e := range m.drain() {
			if rec != nil {
				rec.Write(e)
			}
			select {
			case out <- e:
			case <-ctx.Done():
				return false
			}
		}
		return true
	}
	drain := func() {
		for {
			select {
			case r := <-samples:
				s.apply(m, r)
			default:
				return
			}
		}
	}
	for {
		if !flush() {
			return nil
		}
		var timer <-chan struct{}
		stop := func() {}
		if d := m.next(); d != never {
			timer, stop = s.clk.At(d)
		}
		select {
		case <-ctx.Done():
			stop()
			return nil
		case r := <-samples:
			stop()
			s.apply(m, r)
		case <-timer:
			// Samples stamped before now are applied before the deadline
			// fires, so the order matches a replay of the same trace.
			drain()
			m.advance(s.clk.NowMS())
		}
	}
}

func (s *Sensors) apply(m *machine, r rawSample) {
	w := s.pins[r.w]
	if r.fault != "" {
		m.observe(w.input, r.atMS, r.fault)
		return
	}
	ok := r.level == w.active
	if !w.health {
		m.sample(w.input, r.atMS, ok)
		return
	}
	k := KindDisconnectedClear
	if !ok {
		k = KindDisconnected
	}
	m.observe(w.input, r.atMS, k)
}

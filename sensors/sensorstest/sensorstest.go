// Package sensorstest has fakes for testing code built on package sensors
// without hardware or sleeps: a GPIO pin built on periph's gpiotest whose
// edges are handed over synchronously, a settable stream clock, and a
// resolver over a fixed set of pins.
package sensorstest

import (
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/gpio/gpiotest"

	"github.com/dicewatch/dicewatch/sensors"
)

// Pin is a gpiotest.Pin whose edges are sent with Edge, which returns only
// once the reader has taken the edge and called WaitForEdge again (so it
// has read the level and the clock). Unlike a bare gpiotest.Pin, an edge
// sent before In is not dropped: Edge waits for a reader.
type Pin struct {
	*gpiotest.Pin

	edges   chan edge
	halt    chan struct{}
	once    sync.Once
	pending chan struct{} // ack of the edge last handed over; reader-owned
	failing atomic.Bool
}

type edge struct {
	level gpio.Level
	ack   chan struct{}
}

var _ gpio.PinIO = (*Pin)(nil)

// NewPin returns a pin named name at level.
func NewPin(name string, num int, level gpio.Level) *Pin {
	return &Pin{
		Pin:   &gpiotest.Pin{N: name, Num: num, L: level, EdgesChan: make(chan gpio.Level)},
		edges: make(chan edge),
		halt:  make(chan struct{}),
	}
}

// In implements gpio.PinIn. Unlike gpiotest, the level is left as set (the
// fake's level is what the wiring holds, whatever the pull).
func (p *Pin) In(pull gpio.Pull, e gpio.Edge) error {
	p.Lock()
	defer p.Unlock()
	p.P = pull
	return nil
}

// WaitForEdge implements gpio.PinIn. Halt makes it return false, and so
// does Fail, at once, as a failing device does.
func (p *Pin) WaitForEdge(timeout time.Duration) bool {
	if p.pending != nil {
		close(p.pending)
		p.pending = nil
	}
	if p.failing.Load() {
		return false
	}
	var after <-chan time.Time
	if timeout >= 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		after = t.C
	}
	select {
	case e := <-p.edges:
		_ = p.Out(e.level)
		p.pending = e.ack
		return true
	case <-after:
		return false
	case <-p.halt:
		return false
	}
}

// Halt implements conn.Resource: a waiting WaitForEdge returns false, and
// so does every later one.
func (p *Pin) Halt() error {
	p.once.Do(func() { close(p.halt) })
	return nil
}

// Fail makes WaitForEdge fail at once (true), as it does when the GPIO
// device behind the pin is gone, or work again (false).
func (p *Pin) Fail(on bool) { p.failing.Store(on) }

// Edge sets the pin to level as an edge and returns once the reader has
// handled it. It must not be called after the reader has stopped.
func (p *Pin) Edge(level gpio.Level) {
	ack := make(chan struct{})
	p.edges <- edge{level: level, ack: ack}
	<-ack
}

// Clock is a stream clock that moves only when told. It is safe for
// concurrent use.
type Clock struct {
	mu      sync.Mutex
	now     int64
	waiters []waiter
}

type waiter struct {
	at int64
	ch chan struct{}
}

var _ sensors.Clock = (*Clock)(nil)

// NewClock returns a clock at ms.
func NewClock(ms int64) *Clock { return &Clock{now: ms} }

// NowMS implements sensors.Clock.
func (c *Clock) NowMS() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// At implements sensors.Clock.
func (c *Clock) At(ms int64) (<-chan struct{}, func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan struct{})
	if ms <= c.now {
		close(ch)
		return ch, func() {}
	}
	c.waiters = append(c.waiters, waiter{at: ms, ch: ch})
	return ch, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		for i, w := range c.waiters {
			if w.ch == ch {
				c.waiters = append(c.waiters[:i], c.waiters[i+1:]...)
				return
			}
		}
	}
}

// Set moves the clock to ms (never back) and wakes what is due.
func (c *Clock) Set(ms int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ms < c.now {
		panic(fmt.Sprintf("sensorstest: clock moved back from %d to %d", c.now, ms))
	}
	c.now = ms
	keep := c.waiters[:0]
	for _, w := range c.waiters {
		if w.at <= ms {
			close(w.ch)
		} else {
			keep = append(keep, w)
		}
	}
	c.waiters = keep
}

// ForConfig makes a fake pin for every input, health pin and output of
// cfg, each at its inactive (or healthy) level, and returns them keyed by
// pin name.
func ForConfig(cfg sensors.Config) map[string]*Pin {
	out := map[string]*Pin{}
	var names []string
	lv := map[string]gpio.Level{}
	add := func(pin, active string, healthy bool) {
		l := gpio.Level(active == "low") // inactive level
		if healthy {
			l = !l
		}
		names = append(names, pin)
		lv[pin] = l
	}
	for _, in := range cfg.Inputs {
		add(in.Pin, in.Active, false)
		if in.HealthPin != "" {
			add(in.HealthPin, in.HealthActive, true)
		}
	}
	for _, o := range cfg.Outputs {
		add(o.Pin, o.Active, false)
	}
	sort.Strings(names)
	for i, n := range names {
		out[n] = NewPin(n, i, lv[n])
	}
	return out
}

// Resolver returns a sensors.Resolver over pins.
func Resolver(pins map[string]*Pin) sensors.Resolver {
	return func(name string) (gpio.PinIO, error) {
		p, ok := pins[name]
		if !ok {
			return nil, nil
		}
		return p, nil
	}
}

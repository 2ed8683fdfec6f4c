package sensors_test

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"periph.io/x/conn/v3/gpio"

	"github.com/dicewatch/dicewatch/sensors"
	"github.com/dicewatch/dicewatch/sensors/sensorstest"
)

// rig runs Sensors.Run over gpiotest-based pins with a settable clock. A
// "sync" input is added: its edge, sent last, proves every event due
// before it has been emitted, so a test can check that nothing else was.
type rig struct {
	t      *testing.T
	cfg    sensors.Config
	clk    *sensorstest.Clock
	pins   map[string]*sensorstest.Pin
	out    chan sensors.Event
	trace  bytes.Buffer
	rec    *sensors.TraceWriter
	cancel context.CancelFunc
	done   chan error
	syncOn bool
	all    []sensors.Event // events from every sync so far
}

func withSync(cfg sensors.Config) sensors.Config {
	cfg.Inputs = append(append([]sensors.Input(nil), cfg.Inputs...),
		sensors.Input{Name: "sync", Role: sensors.RoleDicePresent, Pin: "SYNC", Active: "high"})
	return cfg
}

// newRig opens cfg (plus the sync input) with the pins at their inactive
// levels except those named in active, and starts Run at time start.
func newRig(t *testing.T, cfg sensors.Config, start int64, active ...string) *rig {
	t.Helper()
	cfg = withSync(cfg)
	r := &rig{t: t, cfg: cfg, clk: sensorstest.NewClock(start), pins: sensorstest.ForConfig(cfg),
		out: make(chan sensors.Event, 1024), done: make(chan error, 1)}
	for _, name := range active {
		in := r.input(name)
		r.pins[in.Pin].L = gpio.Level(in.Active == "high")
	}
	s, err := sensors.Open(cfg, sensorstest.Resolver(r.pins), r.clk)
	if err != nil {
		t.Fatal(err)
	}
	s.PollTimeout = 20 * time.Millisecond
	r.rec = sensors.NewTraceWriter(&r.trace)
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	go func() { r.done <- s.Run(ctx, r.out, r.rec) }()
	t.Cleanup(r.stop)
	// Run has read the start time and the levels once its pin readers
	// take edges: a first sync waits for that.
	r.all = append(r.all, r.sync(start)...)
	return r
}

func (r *rig) input(name string) sensors.Input {
	for _, in := range r.cfg.Inputs {
		if in.Name == name {
			return in
		}
	}
	r.t.Fatalf("no input %q", name)
	return sensors.Input{}
}

func (r *rig) stop() {
	if r.cancel == nil {
		return
	}
	r.cancel()
	r.cancel = nil
	if err := <-r.done; err != nil {
		r.t.Errorf("run: %v", err)
	}
}

// set drives input name to its active (or inactive) level at time at.
func (r *rig) set(at int64, name string, active bool) {
	in := r.input(name)
	r.clk.Set(at)
	r.pins[in.Pin].Edge(gpio.Level(active == (in.Active == "high")))
}

// health drives input name's health pin to healthy (or not) at time at.
func (r *rig) health(at int64, name string, ok bool) {
	in := r.input(name)
	r.clk.Set(at)
	r.pins[in.HealthPin].Edge(gpio.Level(ok == (in.HealthActive == "high")))
}

// fail makes input name's pin fail (or work again) at time at, and waits
// for the event that causes.
func (r *rig) fail(at int64, name string, on bool) {
	r.t.Helper()
	in := r.input(name)
	r.clk.Set(at)
	r.pins[in.Pin].Fail(on)
	want := sensors.KindDisconnectedClear
	if on {
		want = sensors.KindDisconnected
	}
	guard := time.NewTimer(10 * time.Second)
	defer guard.Stop()
	for {
		select {
		case e := <-r.out:
			r.all = append(r.all, e)
			if e.Name == name && e.Kind == want {
				return
			}
		case <-guard.C:
			r.t.Fatalf("no %s event after the pin of %s failed=%v", want, name, on)
		}
	}
}

// sync moves the clock to at, toggles the sync input and returns every
// event before the sync edge.
func (r *rig) sync(at int64) []sensors.Event {
	r.t.Helper()
	r.syncOn = !r.syncOn
	r.set(at, "sync", r.syncOn)
	var got []sensors.Event
	guard := time.NewTimer(10 * time.Second)
	defer guard.Stop()
	for {
		select {
		case e := <-r.out:
			if e.Name == "sync" {
				return got
			}
			got = append(got, e)
		case <-guard.C:
			r.t.Fatalf("no sync edge; events so far %v", got)
		}
	}
}

type step struct {
	at     int64
	name   string
	active bool
	health bool // drive the health pin (active: healthy)
	// fail: the input's pin fails at once from now on (active: false) or
	// works again (active: true); the step waits for the event it causes.
	fail bool
}

func lv(at int64, name string, active bool) step { return step{at: at, name: name, active: active} }

func bounce(at int64, name string, active bool, n int, gap int64) []step {
	var out []step
	for i := 0; i < n; i++ {
		out = append(out, lv(at+int64(i)*gap, name, i%2 == 0 == active))
	}
	return out
}

func cat(parts ...[]step) []step {
	var out []step
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func TestLivePins(t *testing.T) {
	tests := []struct {
		name   string
		active []string // inputs active when Run starts
		steps  []step
		until  int64
		want   []sensors.Event
	}{
		{
			name: "bounce within debounce is one event, every role",
			steps: cat(
				bounce(100, "rail_left", true, 5, 3), []step{lv(400, "rail_left", false)},
				bounce(1000, "bowl", true, 7, 2),
				bounce(2000, "wall", true, 3, 4), []step{lv(2010, "wall", false)},
				bounce(3000, "button", true, 5, 1), []step{lv(3004, "button", true)}, []step{lv(3500, "button", false)},
				bounce(4000, "present", true, 9, 5),
			),
			until: 4500,
			want: []sensors.Event{
				edgeEv(100, "rail_left", true), edgeEv(400, "rail_left", false),
				edgeEv(1000, "bowl", true),
				edgeEv(2000, "wall", true), edgeEv(2010, "wall", false),
				edgeEv(3004, "button", true), edgeEv(3500, "button", false),
				edgeEv(4000, "present", true),
			},
		},
		{
			name:  "stuck beam raised and cleared",
			steps: []step{lv(1000, "rail_right", true), lv(7000, "rail_right", false)},
			until: 8000,
			want: []sensors.Event{
				edgeEv(1000, "rail_right", true),
				ev(4000, "rail_right", sensors.KindStuck, true),
				edgeEv(7000, "rail_right", false),
				ev(7000, "rail_right", sensors.KindStuckCleared, false),
			},
		},
		{
			name:   "beam blocked at start is an edge at start and goes stuck",
			active: []string{"rail_left"},
			steps:  []step{lv(3500, "rail_left", false)},
			until:  4000,
			want: []sensors.Event{
				edgeEv(0, "rail_left", true),
				ev(3000, "rail_left", sensors.KindStuck, true),
				edgeEv(3500, "rail_left", false),
				ev(3500, "rail_left", sensors.KindStuckCleared, false),
			},
		},
		{
			name:  "stuck button",
			steps: []step{lv(100, "button", true)},
			until: 10200,
			want:  []sensors.Event{edgeEv(100, "button", true), ev(10100, "button", sensors.KindStuck, true)},
		},
		{
			name:  "chatter raised and cleared",
			steps: bounce(0, "bowl", true, 21, 10),
			until: 2000,
			want: append(alternating("bowl", 0, 10, 20),
				ev(200, "bowl", sensors.KindChatter, false),
				edgeEv(200, "bowl", true),
				ev(1100, "bowl", sensors.KindChatterClear, true)),
		},
		{
			name: "disconnected by the health pin and reconnected",
			steps: []step{
				{at: 500, name: "present", health: true, active: false},
				{at: 900, name: "present", health: true, active: true},
			},
			until: 1000,
			want: []sensors.Event{
				ev(500, "present", sensors.KindDisconnected, false),
				ev(900, "present", sensors.KindDisconnectedClear, false),
			},
		},
		{
			name: "disconnected when the pin fails, reconnected when it works",
			steps: []step{
				lv(100, "wall", true),
				{at: 400, name: "wall", fail: true, active: false},
				{at: 800, name: "wall", fail: true, active: true},
				lv(850, "wall", false),
			},
			until: 1000,
			want: []sensors.Event{
				edgeEv(100, "wall", true),
				ev(400, "wall", sensors.KindDisconnected, true),
				ev(800, "wall", sensors.KindDisconnectedClear, true),
				edgeEv(850, "wall", false),
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, tableConfig(), 0, tc.active...)
			for _, s := range tc.steps {
				switch {
				case s.fail:
					r.fail(s.at, s.name, !s.active)
				case s.health:
					r.health(s.at, s.name, s.active)
				default:
					r.set(s.at, s.name, s.active)
				}
			}
			got := append(r.all, r.sync(tc.until)...)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("events:\n got %v\nwant %v", got, tc.want)
			}
			r.stop()

			// The trace of this run replays to the same events.
			lines, err := sensors.ReadTrace(&r.trace)
			if err != nil {
				t.Fatal(err)
			}
			rp, err := sensors.NewReplay(r.cfg, lines)
			if err != nil {
				t.Fatal(err)
			}
			var replayed []sensors.Event
			for _, e := range rp.Until(tc.until) {
				if e.Name != "sync" {
					replayed = append(replayed, e)
				}
			}
			if !reflect.DeepEqual(byInput(replayed), byInput(got)) || len(replayed) != len(got) {
				t.Errorf("replay of the recorded trace:\n got %v\nlive %v", replayed, got)
			}
		})
	}
}

func TestOpenMissingPin(t *testing.T) {
	cfg := tableConfig()
	pins := sensorstest.ForConfig(cfg)
	delete(pins, "GPIO19")
	_, err := sensors.Open(cfg, sensorstest.Resolver(pins), sensorstest.NewClock(0))
	if !errors.Is(err, sensors.ErrMissingPin) || !strings.Contains(err.Error(), `"GPIO19"`) || !strings.Contains(err.Error(), `"wall"`) {
		t.Fatalf("Open without GPIO19: %v, want ErrMissingPin naming the pin and input", err)
	}

	pins = sensorstest.ForConfig(cfg)
	boom := errors.New("line busy")
	_, err = sensors.Open(cfg, func(name string) (gpio.PinIO, error) {
		if name == "GPIO21" {
			return nil, boom
		}
		return sensorstest.Resolver(pins)(name)
	}, sensorstest.NewClock(0))
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), `"GPIO21"`) {
		t.Fatalf("Open with a failing health pin: %v, want the resolver's error naming GPIO21", err)
	}

	_, err = sensors.OpenLamps(cfg, func(name string) (gpio.PinIO, error) { return nil, nil })
	if !errors.Is(err, sensors.ErrMissingPin) || !strings.Contains(err.Error(), `"GPIO16"`) {
		t.Fatalf("OpenLamps without pins: %v, want ErrMissingPin naming GPIO16", err)
	}
}

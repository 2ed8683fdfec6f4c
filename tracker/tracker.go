// Package tracker owns the throw: it opens a throw when dice appear or move
// in the landing area, fuses per-frame vision observations, sensor events
// and staff calls by their timestamps on the stream clock, and closes the
// throw at rest (or after a maximum duration) into one rules.Throw record,
// which rules.Decide turns into exactly one decision.
//
// tracker is pure Go with no goroutines and no clock reads: time arrives in
// the observations and events, so replays decide exactly as the live run.
package tracker

import (
	"sort"

	"github.com/dicewatch/dicewatch/rules"
	"github.com/dicewatch/dicewatch/sensors"
)

// Observation is what vision saw in one frame, as plain values.
type Observation struct {
	// AtMS is the frame time on the stream clock.
	AtMS int64 `json:"t_ms"`
	// Motion is true when something moved in the landing area.
	Motion bool `json:"motion"`
	// Present is how many dice candidates are in view.
	Present int `json:"present"`
	// Appeared lists the first-appearance times of dice first seen in this frame.
	Appeared []int64 `json:"appeared,omitempty"`
	// Exits are dice that left the view in this frame, mapped to zones.
	Exits []rules.Exit `json:"exits,omitempty"`
	// AtRest is set on the frame that decides: nothing has moved for the
	// settle window. Dice holds what the reader found in that frame.
	AtRest bool        `json:"at_rest,omitempty"`
	Dice   []rules.Die `json:"dice,omitempty"`
	// Clear is true when the landing area is back to the empty table.
	Clear bool `json:"clear,omitempty"`
	// Started is true on the frame vision saw a new throw begin (a first
	// entry onto the empty table).
	Started bool `json:"started,omitempty"`
	// Resumed is true on the first frame after a camera outage: there is
	// no frame before it to measure motion against, so it can show the
	// table empty but never still.
	Resumed bool `json:"resumed,omitempty"`
}

// Config tunes the tracker.
type Config struct {
	Game       rules.Game
	DiceThrown int
	// MaxDurationMS closes a throw that never comes to rest.
	MaxDurationMS int64
	// GraceMS: a staff call or no-roll button press this long after rest
	// still belongs to the throw. The decision waits for it.
	GraceMS int64
	// LeadMS: sensor events this long before the throw opened belong to it
	// (a die can break a beam before the camera sees it).
	LeadMS int64
	// Sensors is the sensor configuration: its inputs say which sensors are
	// fitted (a back-wall sensor makes a throw without a hit no_back_wall).
	Sensors sensors.Config
	// CutMS: a throw open across a camera outage at least this long, whose
	// dice are seen moving after it and then come to rest in view, is
	// decided on its own (no dice seen at rest) and the moving dice are the
	// next throw's: a throw's dice are still by then. Dice found still, or
	// moved off the table (collected), stay the cut throw's. Default 2000.
	CutMS int64
}

type phase int

const (
	idle       phase = iota
	throwing         // dice in the air or rolling
	closing          // at rest; waiting out the staff-call grace
	collecting       // decided; waiting for the table to clear
)

// Tracker builds throw records. It is not safe for concurrent use: one
// goroutine owns it.
type Tracker struct {
	cfg    Config
	phase  phase
	cur    rules.Throw
	restAt int64
	faults map[string]bool // equipment faulted now
	// unseen: equipment restored, but the table not yet seen empty and
	// still since: what happened in the dark may still be on the layout.
	unseen map[string]bool
	// quiet counts the frames in a row measured empty and still while
	// unseen is set (the first frame back from an outage not counted).
	quiet       int
	inputs      sensors.FaultSet // sensor inputs faulted now
	openFaulted []string         // sensor inputs faulted when the throw opened
	events      []sensors.Event  // recent sensor events (bounded)
	calls       []rules.StaffCallRecord
	lastObs     int64
	// cutAt, while the open throw waits to be told from the next (see
	// CutMS), is the time of its last frame before the outage; cutMoved
	// when dice were first seen moving after it (0: not yet), cutLeft the
	// exits seen since.
	cutAt    int64
	cutMoved int64
	cutLeft  []rules.Exit
	// windowTo, when set, ends the closing throw's sensor window (a cut
	// throw: later events may be the next throw's).
	windowTo int64
}

// New returns an idle tracker.
func New(cfg Config) *Tracker {
	if cfg.DiceThrown == 0 {
		cfg.DiceThrown = 2
	}
	if cfg.MaxDurationMS == 0 {
		cfg.MaxDurationMS = 15000
	}
	if cfg.LeadMS == 0 {
		cfg.LeadMS = 1000
	}
	if cfg.CutMS == 0 {
		cfg.CutMS = 2000
	}
	return &Tracker{cfg: cfg, faults: map[string]bool{}, unseen: map[string]bool{}}
}

// Busy reports whether a throw is open (in the air, or at rest awaiting the grace period).
func (t *Tracker) Busy() bool { return t.phase == throwing || t.phase == closing }

// OpenSince reports the open throw's start (stream ms), if a throw is open.
func (t *Tracker) OpenSince() (int64, bool) {
	if !t.Busy() {
		return 0, false
	}
	return t.cur.StartMS, true
}

// Faulted reports whether any equipment or sensor input is faulted now.
func (t *Tracker) Faulted() bool { return len(t.faults) > 0 || t.inputs.Any() }

// unseenQuietFrames is how many frames in a row must show the table empty
// and still before a throw may be valid again after equipment is restored.
const unseenQuietFrames = 2

// Fault marks equipment ("camera", "calibration") faulted or restored. A
// throw open while equipment is faulted is never valid, and neither is one
// that opens after it is restored but before the table has been seen empty
// and still (or cleared after a throw): dice thrown in the dark may still
// be lying there.
func (t *Tracker) Fault(what string, faulted bool) {
	if faulted {
		t.faults[what] = true
		delete(t.unseen, what)
		if t.Busy() {
			t.addFault(what)
		}
		return
	}
	if t.faults[what] {
		t.unseen[what] = true
		t.quiet = 0
	}
	delete(t.faults, what)
}

func (t *Tracker) addFault(what string) {
	for _, f := range t.cur.Faults {
		if f == what {
			return
		}
	}
	t.cur.Faults = append(t.cur.Faults, what)
}

// Sensor takes one sensor event.
func (t *Tracker) Sensor(e sensors.Event) []rules.Throw {
	t.inputs.Apply(e)
	t.events = append(t.events, e)
	if len(t.events) > maxEvents {
		t.events = trimEvents(t.events, maxEvents/2)
	}
	return t.Tick(e.AtMS)
}

// StaffCall takes a no-roll call. It reports whether the call was taken
// into a throw (false: no throw was open or within the grace period).
func (t *Tracker) StaffCall(c rules.StaffCallRecord) bool {
	switch t.phase {
	case throwing:
		t.cur.StaffCalls = append(t.cur.StaffCalls, c)
		return true
	case closing:
		if c.AtMS <= t.restAt+t.cfg.GraceMS {
			t.cur.StaffCalls = append(t.cur.StaffCalls, c)
			return true
		}
	}
	return false
}

// Frame takes one frame's observation and returns the throws it closed.
func (t *Tracker) Frame(o Observation) []rules.Throw {
	prevObs := t.lastObs
	t.lastObs = o.AtMS
	if len(t.unseen) > 0 {
		// Two frames in a row empty and still, each measured against the
		// one before: one is not enough, as a die only just entering at
		// the picture's edge can be under both the motion and the
		// detection threshold for a frame.
		switch {
		case o.Resumed:
			t.quiet = 0
		case o.Clear:
			clear(t.unseen)
		case !t.Busy() && !o.Motion && o.Present == 0 && len(o.Appeared) == 0 && len(o.Exits) == 0:
			if t.quiet++; t.quiet >= unseenQuietFrames {
				clear(t.unseen)
			}
		default:
			t.quiet = 0
		}
	}
	var out []rules.Throw
	switch t.phase {
	case idle:
		if o.Motion && (o.Present > 0 || len(o.Appeared) > 0) || len(o.Exits) > 0 {
			t.open(o.AtMS)
			t.absorb(o)
		}
	case throwing:
		if o.Resumed && prevObs > 0 && o.AtMS-prevObs >= t.cfg.CutMS && !o.AtRest {
			// Back from an outage long enough for this throw's dice to
			// have come to rest in the dark: whose dice are in view is
			// known when they are at rest.
			t.cutAt, t.cutMoved, t.cutLeft = prevObs, 0, nil
			break
		}
		if t.cutAt > 0 {
			if o.Motion && o.Present > 0 && t.cutMoved == 0 {
				t.cutMoved = o.AtMS
			}
			t.cutLeft = append(t.cutLeft, o.Exits...)
			if !o.AtRest {
				break
			}
			if t.cutMoved > 0 && len(o.Dice) > 0 {
				// Dice that moved after the outage and came to rest in
				// view: the next throw, opened when they were first seen
				// moving. The cut throw is decided first, with no dice
				// seen at rest.
				t.cur.AtRestMS = t.cutAt
				t.windowTo = max(t.cur.StartMS, t.cutMoved-t.cfg.LeadMS)
				moved, left := t.cutMoved, t.cutLeft
				out = append(out, t.finish())
				t.open(moved)
				t.cur.Left = left
			} else {
				t.keepCut()
			}
			t.cutAt, t.cutLeft = 0, nil
			t.rest(o)
			break
		}
		t.absorb(o)
		if o.AtRest {
			t.cutAt = 0
			t.rest(o)
		}
	case closing:
		// A hand or stick after rest is the stickperson: it does not
		// restart the throw.
	case collecting:
		switch {
		case o.Started:
			// Vision saw the table clear and a new entry without a
			// separate clear frame: a new throw.
			t.open(o.AtMS)
			t.absorb(o)
		case o.Clear:
			t.phase = idle
		}
	}
	out = append(out, t.Tick(o.AtMS)...)
	return out
}

// Tick advances time without a frame (a stalled camera still closes throws).
func (t *Tracker) Tick(nowMS int64) []rules.Throw {
	switch t.phase {
	case throwing:
		if nowMS-t.cur.StartMS >= t.cfg.MaxDurationMS {
			// Closed when its time ran out, not when the clock was next
			// looked at (at the end of a recording, that is far later).
			end := t.cur.StartMS + t.cfg.MaxDurationMS
			t.cur.AtRestMS = end
			t.restAt = end
			t.phase = closing
			// No at-rest frame: whatever was not read is missing.
			t.keepCut()
		}
	}
	if t.phase == closing && nowMS >= t.restAt+t.cfg.GraceMS {
		th := t.finish()
		return []rules.Throw{th}
	}
	return nil
}

// maxEvents bounds the sensor events kept between throws.
const maxEvents = 4096

// trimEvents cuts evs to about n events by dropping edges, oldest first,
// of the inputs with the most of them: a flapping input gives up its own
// history, never the one press or hit of another input in the same throw
// (dropping the oldest events of all alike lost a no-roll button press
// under a flapping rail beam, and the throw was decided valid). Fault
// events are kept.
func trimEvents(evs []sensors.Event, n int) []sensors.Event {
	count := map[string]int{}
	for _, e := range evs {
		if e.Kind == sensors.KindEdge {
			count[e.Name]++
		}
	}
	excess := len(evs) - n
	// The level L: every input keeps at most L edges, the lowest L that
	// drops at least excess.
	dropAt := func(l int) int {
		d := 0
		for _, c := range count {
			d += max(0, c-l)
		}
		return d
	}
	lo, hi := 0, 0
	for _, c := range count {
		hi = max(hi, c)
	}
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if dropAt(mid) >= excess {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	drop := map[string]int{}
	for name, c := range count {
		drop[name] = max(0, c-lo)
	}
	out := evs[:0]
	for _, e := range evs {
		if e.Kind == sensors.KindEdge && drop[e.Name] > 0 {
			drop[e.Name]--
			continue
		}
		out = append(out, e)
	}
	if len(out) > 2*n {
		// Faults alone (never expected): bound memory, oldest first.
		out = append(out[:0], out[len(out)-n:]...)
	}
	return out
}

func (t *Tracker) open(at int64) {
	t.phase = throwing
	t.cur = rules.Throw{Game: t.cfg.Game, StartMS: at, DiceThrown: t.cfg.DiceThrown}
	t.openFaulted = t.inputs.Faulted()
	for f := range t.faults {
		t.cur.Faults = append(t.cur.Faults, f)
	}
	for f := range t.unseen {
		t.cur.Faults = append(t.cur.Faults, f)
	}
	sort.Strings(t.cur.Faults)
}

func (t *Tracker) absorb(o Observation) {
	t.cur.Left = append(t.cur.Left, o.Exits...)
}

func (t *Tracker) rest(o Observation) {
	t.cur.AtRestMS = o.AtMS
	t.cur.Dice = append([]rules.Die(nil), o.Dice...)
	t.restAt = o.AtMS
	t.phase = closing
}

// keepCut ends the wait of a throw cut by an outage (see CutMS) with no
// next throw told from it: the exits seen since are its own.
func (t *Tracker) keepCut() {
	t.cur.Left = append(t.cur.Left, t.cutLeft...)
	t.cutAt, t.cutLeft = 0, nil
}

func (t *Tracker) finish() rules.Throw {
	th := t.cur
	from, to := th.StartMS-t.cfg.LeadMS, th.AtRestMS+t.cfg.GraceMS
	if t.windowTo > 0 {
		to = min(to, t.windowTo)
		t.windowTo = 0
	}
	var win []sensors.Event
	for _, e := range t.events {
		if e.AtMS >= from && e.AtMS <= to {
			win = append(win, e)
		}
	}
	fu := t.cfg.Sensors.Fuse(win, sensors.Window{
		StartMS: th.StartMS, RestMS: th.AtRestMS, GraceMS: t.cfg.GraceMS, Faulted: t.openFaulted,
	})
	th.Sensors = fu.Evidence
	if missing := th.DiceThrown - len(th.Dice) - len(th.Left); missing > 0 && len(fu.Evidence.RailBreaks) > 0 && !fu.Evidence.Bowl {
		// A rail beam broke during the throw and a die is not on the
		// layout: it went over the rail, between frames or out of view.
		for i := 0; i < missing; i++ {
			th.Left = append(th.Left, rules.Exit{Zone: rules.ZoneOffTable, AtMS: th.AtRestMS, Source: "rail_beam"})
		}
	}
	for _, p := range fu.Presses {
		th.StaffCalls = append(th.StaffCalls, rules.StaffCallRecord{
			Operator: "boxperson_station", Role: "boxperson", Cause: "no-roll button",
			Source: "button", AtMS: p,
		})
	}
	// Drop events up to the end of this throw's window.
	keep := t.events[:0]
	for _, e := range t.events {
		if e.AtMS > to {
			keep = append(keep, e)
		}
	}
	t.events = keep
	t.phase = collecting
	t.cur = rules.Throw{}
	t.cutAt, t.cutLeft = 0, nil
	return th
}

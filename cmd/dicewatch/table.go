package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dicewatch/dicewatch/evidence"
	"github.com/dicewatch/dicewatch/journal"
	"github.com/dicewatch/dicewatch/mqtt"
	"github.com/dicewatch/dicewatch/ops"
	"github.com/dicewatch/dicewatch/rules"
	"github.com/dicewatch/dicewatch/sensors"
	"github.com/dicewatch/dicewatch/tracker"
	"github.com/dicewatch/dicewatch/vision"
)

// appender is the journal as the table loop uses it.
type appender interface {
	Append(kind string, ts time.Time, body any) (journal.Record, error)
	AppendNoWait(kind string, ts time.Time, body any) (journal.Record, error)
	WaitDurable(seq uint64) error
}

// decisionBody is the journalled and published body of a roll or noroll.
type decisionBody struct {
	Game        rules.Game       `json:"game"`
	Verdict     rules.Verdict    `json:"verdict"`
	Values      []int            `json:"values,omitempty"`
	Total       int              `json:"total,omitempty"`
	Reasons     []rules.Reason   `json:"reasons,omitempty"`
	Advisories  []rules.Advisory `json:"advisories,omitempty"`
	Dice        []rules.Die      `json:"dice"`
	StartMS     int64            `json:"start_ms"`
	AtRestMS    int64            `json:"at_rest_ms"`
	Calibration string           `json:"calibration"`
	Config      string           `json:"config"`
	// Clip is the evidence clip of the throw (file name in the clip
	// folder and the stream window it covers); absent with clips off.
	Clip     *evidence.Clip `json:"clip,omitempty"`
	Evidence rules.Throw    `json:"evidence"`
}

// clipRecorder is the evidence recorder as the table loop uses it: both
// calls return at once.
type clipRecorder interface {
	Open(startMS int64) evidence.Clip
	Close(c evidence.Clip, decidedMS int64) evidence.Clip
}

// table is the loop that owns the throw tracker and the game state. One
// goroutine owns it; it turns observations, sensor events and staff calls
// into journalled decisions.
type table struct {
	tr       *tracker.Tracker
	profile  rules.Profile
	j        appender
	notify   func()
	log      *slog.Logger
	calHash  atomic.Value // string: the calibration in force
	cfgHash  string
	now      func() time.Time
	onDecide func(rules.Throw, rules.Decision) // optional observer (lamps, metrics)
	decided  int
	craps    rules.CrapsState
	metrics  *ops.Metrics
	health   *ops.Health
	snap     *ops.Snapshot
	cameraUp atomic.Bool
	lamps    *sensors.Lamps
	lastDec  rules.Decision
	// journalFault is the journal fault as the lamps last showed it; the
	// ticker shows the lamps again when it changes.
	journalFault bool
	// pendingSnap is the annotated deciding frame of the open throw; it is
	// journalled (and published on snapshot) with the decision's id.
	pendingSnap  []byte
	snapW, snapH int
	// lastRef is the decision made on its at-rest frame before that
	// frame's snapshot arrived (lastRecRestMS the frame's time); the
	// snapshot is journalled with its id when it comes (after it, if the
	// decision is held).
	lastRef       *recRef
	lastRecRestMS int64
	// clips, when set, records a clip of each throw; clip is the open
	// throw's, reserved when it opened; frameMS is the last frame's time.
	clips   clipRecorder
	clip    *evidence.Clip
	frameMS int64
	// latency, when set, times each decision decided on an at-rest frame
	// (rest) from that frame to the broker's acknowledgement.
	latency *latencyLog
	rest    restFrame
	// hq puts every record in the journal in order, holding those a full
	// disk refuses (see holdQueue). Other goroutines (the disk check, the
	// clip recorder, a calibration reload) journal through it too.
	jmu sync.Mutex
	hq  *holdQueue
}

// recRef is a decision's record once it is journalled (ok); read and
// written with its holdQueue's lock held.
type recRef struct {
	rec  journal.Record
	ok   bool
	what string
	line int // its line in the hold file (0: not in it)
}

// notWritten reports whether err is the journal refusing one record (a
// full disk) while staying usable; any other error stops the table.
func notWritten(err error) bool { return errors.Is(err, journal.ErrNotWritten) }

// queue is the table's hold queue, made on first use.
func (t *table) queue() *holdQueue {
	t.jmu.Lock()
	defer t.jmu.Unlock()
	if t.hq == nil {
		q := newHoldQueue(t.j, t.now)
		q.opened = func(err error) {
			if q.file == nil {
				t.log.Error("journal refuses records: holding them in memory only until it takes them again (no journal.hold_dir: a stop or restart before then loses them)", "err", err)
				if t.health != nil {
					t.health.Fault(ops.ComponentJournal, clip400("records held in memory only (no journal.hold_dir): a restart loses them; "+err.Error()))
				}
				return
			}
			t.log.Error("journal refuses records: holding them until it takes them again", "err", err)
			if t.health != nil {
				t.health.Fault(ops.ComponentJournal, clip400(err.Error()))
			}
		}
		q.closed = func() {
			t.log.Info("journal writes again; held records journalled, fault cleared")
			if t.health != nil {
				t.health.OK(ops.ComponentJournal)
			}
		}
		q.dropped = func(kind, what string, err error) {
			t.log.Error("not journalled: lost, not published", "kind", kind, "what", what, "err", err)
			if t.metrics != nil {
				t.metrics.JournalNotWritten.With(kind).Inc()
			}
		}
		t.hq = q
	}
	return t.hq
}

// journalEvent journals an event body (after any held records, or held
// itself) and wakes the publisher once what was written is durable. Any
// goroutine may call it; what names the event if it is lost.
func (t *table) journalEvent(body map[string]any, what string) error {
	return t.journalAt(t.now(), body, what)
}

// journalAt is journalEvent for an event made at ts.
func (t *table) journalAt(ts time.Time, body any, what string) error {
	_, _, last, err := t.queue().put(heldRecord{kind: "event", ts: ts, body: body, what: what})
	if err != nil {
		return err
	}
	return t.durable(last)
}

// durable waits for the records up to last (0: none) and wakes the
// publisher.
func (t *table) durable(last uint64) error {
	if last == 0 {
		return nil
	}
	if err := t.j.WaitDurable(last); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	t.runLate()
	if t.notify != nil {
		t.notify()
	}
	return nil
}

// runLate tells the observers of held decisions now journalled and
// durable (metrics, onDecide).
func (t *table) runLate() {
	for _, f := range t.queue().takeLate() {
		f()
	}
}

// retryHeld journals the held records if the journal takes them again
// (force: now, else at most once a second).
func (t *table) retryHeld(force bool) error {
	last, err := t.queue().retry(force)
	if err != nil {
		return err
	}
	return t.durable(last)
}

// snapshotRecord is the record of a decision's snapshot: its body names
// the decision's id, so it is made when it is written.
func snapshotRecord(ts time.Time, ref *recRef, jpeg []byte, w, h int) heldRecord {
	return heldRecord{kind: "snapshot", ts: ts, size: len(jpeg) + 512, what: "snapshot of " + ref.what,
		snap: &snapData{of: ref, jpeg: jpeg, w: w, h: h},
		build: func() (any, bool) {
			if !ref.ok {
				return nil, false
			}
			return mqtt.NewSnapshot(ref.rec, jpeg, w, h), true
		}}
}

func (t *table) setCalibrationHash(h string) { t.calHash.Store(h) }

func (t *table) calibrationHash() string {
	h, _ := t.calHash.Load().(string)
	return h
}

// lampState is what the lamps show: the last decision (held ones too)
// and the faults, the journal's among them.
func (t *table) lampState() sensors.LampState {
	t.journalFault = t.queue().faulted()
	faulted := !t.cameraUp.Load() || t.tr.Faulted() || t.journalFault
	return sensors.StateFor(t.lastDec, faulted, t.tr.Busy())
}

// showLamps drives the table's lamps from the last decision and the faults.
func (t *table) showLamps() {
	st := t.lampState()
	if t.lamps == nil {
		return
	}
	if err := t.lamps.Show(st); err != nil {
		t.log.Warn("lamps", "err", err)
	}
}

// stateBody is the retained game state published after every decision.
type stateBody struct {
	Game rules.Game `json:"game"`
	rules.CrapsReport
}

// restoreState takes the craps state from the newest journalled state, so
// a restart does not forget the point.
// A state held in the hold file (a restart while the disk was full) is
// newer than any journalled one.
func (t *table) restoreState(j *journal.Journal) error {
	rec, ok, err := j.LastOfKind("state", j.LastSeq())
	if raw, held := t.queue().lastHeld("state"); held {
		rec, ok, err = journal.Record{Kind: "state", Body: raw}, true, nil
	}
	if err != nil || !ok {
		return err
	}
	var b struct {
		Phase         rules.Phase `json:"phase"`
		Point         *int        `json:"point"`
		InvalidStreak int         `json:"invalid_streak"`
		MustPass      bool        `json:"shooter_must_pass"`
		PassAdvisory  bool        `json:"pass_advisory"`
	}
	if err := json.Unmarshal(rec.Body, &b); err != nil {
		return fmt.Errorf("state record %d: %w", rec.Seq, err)
	}
	s := rules.CrapsState{Phase: b.Phase, InvalidStreak: b.InvalidStreak, MustPass: b.MustPass, PassAdvisory: b.PassAdvisory}
	if b.Point != nil {
		s.Point = *b.Point
	}
	if !s.Legal() {
		return fmt.Errorf("state record %d is not a legal craps state: %+v", rec.Seq, s)
	}
	t.craps = s
	return nil
}

// vision takes one pipeline event: a camera fault change, or a frame's
// observation (with any replayed sensor events up to that frame first).
func (t *table) vision(ev vision.Event, replay *sensors.Replay, sensorEvent func(sensors.Event) error) error {
	if ev.Fault != nil {
		what := "camera"
		if errors.Is(ev.Fault.Err, vision.ErrCalibrationMismatch) {
			what = "calibration"
		}
		if ev.Fault.Err != nil {
			t.tr.Fault(what, true)
			if t.metrics != nil {
				t.metrics.CameraLost()
				t.health.Fault(what, ev.Fault.Err.Error())
			}
			t.cameraUp.Store(false)
			t.showLamps()
			t.log.Error("fault", "what", what, "err", ev.Fault.Err)
			return t.event(map[string]any{"event": "fault", "what": what, "state": "raised", "detail": clip400(ev.Fault.Err.Error())})
		}
		t.tr.Fault("camera", false)
		t.tr.Fault("calibration", false)
		if t.metrics != nil {
			t.metrics.CameraRecovered()
			t.health.OK(ops.ComponentCamera)
			t.health.OK(ops.ComponentCalibration)
		}
		t.log.Info("fault cleared", "what", what)
		t.showLamps()
		return t.event(map[string]any{"event": "fault", "what": what, "state": "cleared"})
	}
	if len(ev.Snapshot) > 0 {
		return t.snapshot(ev)
	}
	if ev.Obs == nil {
		return nil
	}
	if replay != nil {
		for _, e := range replay.Until(ev.Obs.AtMS) {
			if err := sensorEvent(e); err != nil {
				return err
			}
		}
	}
	o := ev.Obs
	if !t.cameraUp.Load() {
		t.cameraUp.Store(true)
		if t.health != nil {
			t.health.OK(ops.ComponentCamera)
		}
	}
	if t.metrics != nil {
		t.metrics.FrameRead(time.Now())
		t.metrics.ObserveStage(ops.StageCapture, ev.Timing.Capture)
		t.metrics.ObserveStage(ops.StageMotion, ev.Timing.Motion)
		if o.AtRest {
			t.metrics.ObserveStage(ops.StageRead, ev.Timing.Read)
		}
	}
	if o.AtRest {
		t.rest = restFrame{index: ev.Frame.Index, atMS: o.AtMS, delivered: ev.Delivered,
			detected: ev.Delivered.Add(ev.Timing.Motion + ev.Timing.Read)}
	}
	if o.AtRest || o.Clear || len(o.Exits) > 0 || len(o.Appeared) > 0 {
		t.log.Debug("frame", "t_ms", o.AtMS, "motion", o.Motion, "present", o.Present, "appeared", len(o.Appeared),
			"exits", len(o.Exits), "at_rest", o.AtRest, "dice", len(o.Dice), "clear", o.Clear)
	}
	for _, d := range o.Dice {
		t.log.Debug("die at rest", "value", d.Value, "confidence", d.Confidence, "x_mm", d.XMM, "y_mm", d.YMM,
			"zone", d.Zone, "flat", d.Flat, "flatness", d.Flatness, "size_ratio", d.SizeRatio)
	}
	return t.frame(*ev.Obs)
}

// snapshot takes the annotated deciding frame, which vision sends right
// after the at-rest observation: journalled at once with the decision made
// on that frame, or kept for the open throw's decision (staff-call grace).
func (t *table) snapshot(ev vision.Event) error {
	if t.snap != nil {
		t.snap.Set(ev.Snapshot, time.Now())
	}
	if t.lastRef != nil && t.lastRecRestMS == ev.Frame.AtMS {
		ref := t.lastRef
		t.lastRef, t.lastRecRestMS = nil, 0
		_, _, last, err := t.queue().put(snapshotRecord(t.now(), ref, ev.Snapshot, ev.Frame.Width, ev.Frame.Height))
		if err != nil {
			return fmt.Errorf("journal snapshot: %w", err)
		}
		return t.durable(last)
	}
	t.pendingSnap, t.snapW, t.snapH = ev.Snapshot, ev.Frame.Width, ev.Frame.Height
	return nil
}

// event journals an event record.
func (t *table) event(body map[string]any) error {
	return t.journalEvent(body, fmt.Sprintf("event %v %v %v", body["event"], body["what"], body["state"]))
}

func (t *table) frame(o tracker.Observation) error {
	t.frameMS = o.AtMS
	return t.decideAll(t.tr.Frame(o))
}

func (t *table) sensor(e sensors.Event) error {
	if t.metrics != nil {
		t.metrics.SetSensor(e.Name, e.Active, false)
	}
	if e.Kind != sensors.KindEdge {
		// Faults are never silent: journalled, published on event, counted.
		t.log.Warn("sensor fault", "input", e.Name, "role", e.Role, "kind", e.Kind)
		if t.metrics != nil {
			switch e.Kind {
			case sensors.KindStuckCleared, sensors.KindChatterClear, sensors.KindDisconnectedClear:
				t.metrics.ClearSensorFault(e.Name)
			default:
				t.metrics.SensorFault(e.Name, string(e.Kind))
			}
		}
		if err := t.event(map[string]any{"event": "sensor_fault", "input": e.Name, "role": string(e.Role),
			"kind": string(e.Kind), "t_ms": e.AtMS}); err != nil {
			return err
		}
	}
	out := t.tr.Sensor(e)
	t.showLamps()
	return t.decideAll(out)
}

func (t *table) tick(ms int64) error {
	if err := t.retryHeld(false); err != nil {
		return err
	}
	if t.queue().faulted() != t.journalFault {
		// Opened or cleared by any goroutine (a record held, the journal
		// taking them again): the lamps show it.
		t.showLamps()
	}
	return t.decideAll(t.tr.Tick(ms))
}

func (t *table) decideAll(throws []rules.Throw) error {
	for _, th := range throws {
		if err := t.decide(th); err != nil {
			return err
		}
	}
	// A throw that opened: reserve its clip now, so its name is known
	// whenever the throw is decided.
	if start, open := t.tr.OpenSince(); open && t.clips != nil && t.clip == nil {
		if c := t.clips.Open(start); c.File != "" {
			t.clip = &c
		}
	}
	return nil
}

// takeClip closes the decided throw's clip and returns it (nil without clips).
func (t *table) takeClip(th rules.Throw) *evidence.Clip {
	if t.clips == nil {
		return nil
	}
	c := t.clip
	t.clip = nil
	if c == nil {
		// Opened and decided in one step: reserve it now.
		oc := t.clips.Open(th.StartMS)
		if oc.File == "" {
			return nil // the recorder is too far behind: no clip to name
		}
		c = &oc
	}
	closed := t.clips.Close(*c, max(t.frameMS, c.FromMS))
	return &closed
}

// decide makes exactly one decision for a throw and journals it before
// anything else sees it.
//
// The decision is written with AppendNoWait and waited for on its own, so
// the publisher can send it at once; its snapshot and the craps state then
// follow with AppendNoWait and one wait for the last of them (two
// fdatasyncs per decision, not three). Nothing tells the world about the
// decision before it is durable: the publisher only reads durable records,
// and the log line, metrics, lamps and onDecide come after the last wait.
// A crash before the first wait loses only a decision nobody was told of.
// A decision the journal refuses (a full disk) is held by the queue and
// journalled, with its snapshot and state behind it, once the journal
// takes records again. Meanwhile it is not logged as decided; the lamps
// show it with the fault lamp lit (the journal fault), and the metrics and
// onDecide count it once it is journalled and durable.
func (t *table) decide(th rules.Throw) error {
	d := rules.Decide(th, t.profile)
	decided := time.Now()
	body := decisionBody{
		Game: t.profile.Game, Verdict: d.Verdict, Values: d.Values, Total: d.Total,
		Reasons: d.Reasons, Advisories: d.Advisories, Dice: th.Dice,
		StartMS: th.StartMS, AtRestMS: th.AtRestMS,
		Calibration: t.calibrationHash(), Config: t.cfgHash, Evidence: th,
		Clip: t.takeClip(th),
	}
	kind := "noroll"
	if d.Verdict == rules.Valid {
		kind = "roll"
	}
	ref := &recRef{what: fmt.Sprintf("%s %s at_rest_ms %d", kind, describeDecision(d), th.AtRestMS)}
	q := t.queue()
	rec, written, flushed, err := q.put(heldRecord{kind: kind, ts: t.now(), body: body, what: ref.what, ref: ref,
		// Held: counted (and onDecide told) once journalled and durable,
		// like any other decision; a decision lost past the bounds never is.
		late: func(journal.Record) {
			if t.onDecide != nil {
				t.onDecide(th, d)
			}
		}})
	if err != nil {
		return fmt.Errorf("journal %s: %w", kind, err)
	}
	// last is the newest record to wait for; written false: the decision
	// is held (a full disk) and journalled, then published, once the
	// journal takes records again. Until then nobody is told of it.
	last := flushed // held records it wrote first, if any
	if written {
		// The decision alone is made durable first, so the publisher can
		// send it while the snapshot and state follow behind it in a
		// second sync.
		if err := t.j.WaitDurable(rec.Seq); err != nil {
			return fmt.Errorf("journal %s: %w", kind, err)
		}
		last = rec.Seq
		if t.latency != nil && !t.rest.delivered.IsZero() && t.rest.atMS == th.AtRestMS {
			t.latency.decided(throwLatency{Seq: rec.Seq, Frame: t.rest.index, FrameMS: t.rest.atMS, AtRestMS: th.AtRestMS,
				Delivered: t.rest.delivered, Detected: t.rest.detected, Decided: decided, Durable: time.Now()})
		}
		// The decision is durable: wake the publisher and let it have the
		// processor before the snapshot (a large JPEG to encode and fsync)
		// and the state are journalled behind it. On one core the publisher
		// would otherwise wait for both.
		if t.notify != nil {
			t.notify()
			runtime.Gosched()
		}
	}
	t.rest = restFrame{}
	t.decided++
	t.lastRef, t.lastRecRestMS = nil, 0
	if len(t.pendingSnap) > 0 {
		_, _, s, err := q.put(snapshotRecord(t.now(), ref, t.pendingSnap, t.snapW, t.snapH))
		if err != nil {
			return fmt.Errorf("journal snapshot: %w", err)
		}
		last = max(last, s) // 0 when it is held
		t.pendingSnap = nil
	} else {
		// Decided on the at-rest frame itself: its snapshot follows.
		t.lastRef, t.lastRecRestMS = ref, th.AtRestMS
	}
	if t.profile.Game == rules.Craps {
		next, outcome, err := t.craps.Apply(d, t.profile)
		if err != nil {
			t.log.Error("craps state", "err", err)
		} else {
			// A held decision moves the game on too: it will be published.
			t.craps = next
			_, _, s, err := q.put(heldRecord{kind: "state", ts: t.now(), what: "state after " + ref.what,
				body: stateBody{Game: rules.Craps, CrapsReport: next.Report(t.decided, outcome, d)}})
			if err != nil {
				return fmt.Errorf("journal state: %w", err)
			}
			last = max(last, s)
		}
	}
	if last != 0 {
		if err := t.j.WaitDurable(last); err != nil {
			return fmt.Errorf("journal %s: %w", kind, err)
		}
	}
	t.runLate()
	if !written {
		if last != 0 && t.notify != nil {
			t.notify()
		}
		t.log.Warn("decision held: the journal refuses records", "verdict", d.Verdict, "values", d.Values,
			"reasons", d.Reasons, "at_rest_ms", th.AtRestMS, "held", q.heldCount())
		// The lamps show it with the journal fault: it is the table's
		// decision, published once the journal takes it.
		t.lastDec = d
		t.showLamps()
		return nil
	}
	t.log.Info("decision", "seq", rec.Seq, "verdict", d.Verdict, "values", d.Values,
		"reasons", d.Reasons, "advisories", d.Advisories, "at_rest_ms", th.AtRestMS)
	if t.onDecide != nil {
		t.onDecide(th, d)
	}
	t.lastDec = d
	t.showLamps()
	if t.notify != nil {
		t.notify()
	}
	return nil
}

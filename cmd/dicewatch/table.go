package main

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/dicewatch/dicewatch/journal"
	"github.com/dicewatch/dicewatch/rules"
	"github.com/dicewatch/dicewatch/sensors"
	"github.com/dicewatch/dicewatch/tracker"
)

// appender is the journal as the table loop uses it.
type appender interface {
	Append(kind string, ts time.Time, body any) (journal.Record, error)
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
	Evidence    rules.Throw      `json:"evidence"`
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
	calHash  string
	cfgHash  string
	now      func() time.Time
	onDecide func(rules.Throw, rules.Decision) // optional observer (lamps, metrics)
	decided  int
}

func (t *table) frame(o tracker.Observation) error {
	return t.decideAll(t.tr.Frame(o))
}

func (t *table) sensor(e sensors.Event) error {
	return t.decideAll(t.tr.Sensor(e))
}

func (t *table) tick(ms int64) error {
	return t.decideAll(t.tr.Tick(ms))
}

func (t *table) decideAll(throws []rules.Throw) error {
	for _, th := range throws {
		if err := t.decide(th); err != nil {
			return err
		}
	}
	return nil
}

// decide makes exactly one decision for a throw and journals it before
// anything else sees it.
func (t *table) decide(th rules.Throw) error {
	d := rules.Decide(th, t.profile)
	body := decisionBody{
		Game: t.profile.Game, Verdict: d.Verdict, Values: d.Values, Total: d.Total,
		Reasons: d.Reasons, Advisories: d.Advisories, Dice: th.Dice,
		StartMS: th.StartMS, AtRestMS: th.AtRestMS,
		Calibration: t.calHash, Config: t.cfgHash, Evidence: th,
	}
	kind := "noroll"
	if d.Verdict == rules.Valid {
		kind = "roll"
	}
	rec, err := t.j.Append(kind, t.now(), body)
	if err != nil {
		return fmt.Errorf("journal %s: %w", kind, err)
	}
	t.decided++
	t.log.Info("decision", "seq", rec.Seq, "verdict", d.Verdict, "values", d.Values,
		"reasons", d.Reasons, "advisories", d.Advisories, "at_rest_ms", th.AtRestMS)
	if t.onDecide != nil {
		t.onDecide(th, d)
	}
	if t.notify != nil {
		t.notify()
	}
	return nil
}

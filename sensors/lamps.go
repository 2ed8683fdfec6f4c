package sensors

import (
	"errors"
	"fmt"

	"periph.io/x/conn/v3/gpio"

	"github.com/dicewatch/dicewatch/rules"
)

// LampState is what the table's lamps show.
type LampState struct {
	Ready  bool // idle and healthy: the shooter may throw
	NoRoll bool // the last throw was not a valid roll
	Fault  bool // an input, the camera or the calibration is faulted
}

// StateFor is the lamp state after a decision, given whether any
// equipment is faulted and whether a throw is in progress.
func StateFor(d rules.Decision, faulted, busy bool) LampState {
	noRoll := d.Verdict != "" && d.Verdict != rules.Valid
	return LampState{Ready: !busy && !faulted, NoRoll: noRoll, Fault: faulted}
}

// Lamps drives the configured outputs. One goroutine owns it.
type Lamps struct {
	outs []lamp
}

type lamp struct {
	out   Output
	pin   gpio.PinOut
	level gpio.Level // the level that lights it
}

// OpenLamps resolves every output and turns it off. A pin that does not
// resolve is an error naming it.
func OpenLamps(cfg Config, resolve Resolver) (*Lamps, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	l := &Lamps{}
	for _, o := range cfg.Outputs {
		p, err := resolve(o.Pin)
		if err == nil && p == nil {
			err = ErrMissingPin
		}
		if err != nil {
			return nil, fmt.Errorf("sensors: output %q: pin %q: %w", o.Name, o.Pin, err)
		}
		lvl, _ := parseLevel(o.Active)
		l.outs = append(l.outs, lamp{out: o, pin: p, level: lvl})
	}
	return l, l.Off()
}

// Show lights each output whose drive is set in s and darkens the rest.
// It tries every output and returns all errors.
func (l *Lamps) Show(s LampState) error {
	var errs []error
	for _, o := range l.outs {
		on := false
		switch o.out.Drive {
		case DriveReady:
			on = s.Ready
		case DriveNoRoll:
			on = s.NoRoll
		case DriveFault:
			on = s.Fault
		}
		lvl := !o.level
		if on {
			lvl = o.level
		}
		if err := o.pin.Out(lvl); err != nil {
			errs = append(errs, fmt.Errorf("sensors: output %q: %w", o.out.Name, err))
		}
	}
	return errors.Join(errs...)
}

// Off darkens every output (at shutdown).
func (l *Lamps) Off() error { return l.Show(LampState{}) }

package sensors

import (
	"fmt"
	"strings"

	"periph.io/x/conn/v3/gpio"
)

// Config is the sensors section of the daemon config (`sensors:`). It is
// decoded strictly by the daemon; Validate names the offending yaml key.
type Config struct {
	Inputs  []Input  `yaml:"inputs"`
	Outputs []Output `yaml:"outputs"`
}

// Input is one GPIO input.
type Input struct {
	// Name identifies the input in events, traces and evidence (rail
	// beams are reported by name). Unique across inputs and outputs.
	Name string `yaml:"name"`
	Role Role   `yaml:"role"`
	// Pin is a periph registry name (GPIO17) or a character-device chip
	// and line (gpiochip0:17); the daemon resolves it.
	Pin string `yaml:"pin"`
	// Active is the electrical level of the active state: high or low.
	Active string `yaml:"active"`
	// Pull is the internal bias: up, down, none or "" (leave as is).
	Pull string `yaml:"pull"`
	// DenoiseMS: a level must hold this long before it is believed
	// (filters spikes). The event keeps the time the level began.
	DenoiseMS int `yaml:"denoise_ms"`
	// DebounceMS: after an edge, the level is locked this long (filters
	// contact bounce); a different level at the end is the next edge.
	DebounceMS int `yaml:"debounce_ms"`
	// StuckAfterMS: active for longer than this raises stuck (0: never).
	StuckAfterMS int `yaml:"stuck_after_ms"`
	// ChatterPerS: more raw edges than this within one second raises
	// chatter (0: never). It clears when a second holds at most half.
	ChatterPerS int `yaml:"chatter_per_s"`
	// HealthPin is an optional sensor "OK"/alarm output, or a loop-back
	// wire in the sensor's cable; when it leaves its HealthActive level the
	// input is disconnected. It takes the input's pull.
	HealthPin    string `yaml:"health_pin"`
	HealthActive string `yaml:"health_active"`
}

// Output is one lamp or relay.
type Output struct {
	Name string `yaml:"name"`
	Pin  string `yaml:"pin"`
	// Drive says what lights it: ready, no_roll or fault.
	Drive Drive `yaml:"drive"`
	// Active is the level that lights it: high or low.
	Active string `yaml:"active"`
}

// Drive is what an output shows.
type Drive string

// Output drives.
const (
	DriveReady  Drive = "ready"
	DriveNoRoll Drive = "no_roll"
	DriveFault  Drive = "fault"
)

// Problem is one invalid setting, keyed by its yaml path.
type Problem struct {
	Key string // e.g. sensors.inputs[2].pin
	Msg string
}

// ValidationError lists every problem in a sensors config.
type ValidationError struct {
	Problems []Problem
}

func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.Key + ": " + p.Msg
	}
	return "sensors: invalid config: " + strings.Join(parts, "; ")
}

const maxMS = 600000

// Validate checks every input and output and returns a *ValidationError
// naming each bad key, or nil.
func (c Config) Validate() error {
	var ps []Problem
	add := func(key, format string, a ...any) {
		ps = append(ps, Problem{Key: key, Msg: fmt.Sprintf(format, a...)})
	}
	names := map[string]string{}
	pins := map[string]string{}
	claim := func(key, kind, value string, seen map[string]string) {
		if value == "" {
			return
		}
		if prev, ok := seen[value]; ok {
			add(key, "%s %q already used by %s", kind, value, prev)
			return
		}
		seen[value] = key
	}
	for i, in := range c.Inputs {
		k := fmt.Sprintf("sensors.inputs[%d]", i)
		if in.Name == "" {
			add(k+".name", "required")
		}
		claim(k+".name", "name", in.Name, names)
		switch in.Role {
		case RoleRail, RoleBowl, RoleBackWall, RoleNoRollButton, RoleDicePresent:
		case "":
			add(k+".role", "required (rail, bowl, back_wall, noroll_button, dice_present)")
		default:
			add(k+".role", "%q is not one of rail, bowl, back_wall, noroll_button, dice_present", in.Role)
		}
		if in.Pin == "" {
			add(k+".pin", "required")
		}
		claim(k+".pin", "pin", in.Pin, pins)
		if _, err := parseLevel(in.Active); err != nil {
			add(k+".active", "%v", err)
		}
		if _, err := parsePull(in.Pull); err != nil {
			add(k+".pull", "%v", err)
		}
		for _, f := range []struct {
			key string
			v   int
		}{{"denoise_ms", in.DenoiseMS}, {"debounce_ms", in.DebounceMS}, {"stuck_after_ms", in.StuckAfterMS}} {
			if f.v < 0 || f.v > maxMS {
				add(k+"."+f.key, "%d out of range 0..%d", f.v, maxMS)
			}
		}
		if in.StuckAfterMS > 0 && in.StuckAfterMS <= in.DenoiseMS+in.DebounceMS {
			add(k+".stuck_after_ms", "%d must exceed denoise_ms+debounce_ms (%d)", in.StuckAfterMS, in.DenoiseMS+in.DebounceMS)
		}
		if in.ChatterPerS < 0 || in.ChatterPerS > 10000 {
			add(k+".chatter_per_s", "%d out of range 0..10000", in.ChatterPerS)
		}
		if in.HealthPin != "" {
			claim(k+".health_pin", "pin", in.HealthPin, pins)
			if _, err := parseLevel(in.HealthActive); err != nil {
				add(k+".health_active", "%v", err)
			}
		} else if in.HealthActive != "" {
			add(k+".health_active", "set without health_pin")
		}
	}
	for i, o := range c.Outputs {
		k := fmt.Sprintf("sensors.outputs[%d]", i)
		if o.Name == "" {
			add(k+".name", "required")
		}
		claim(k+".name", "name", o.Name, names)
		if o.Pin == "" {
			add(k+".pin", "required")
		}
		claim(k+".pin", "pin", o.Pin, pins)
		switch o.Drive {
		case DriveReady, DriveNoRoll, DriveFault:
		case "":
			add(k+".drive", "required (ready, no_roll, fault)")
		default:
			add(k+".drive", "%q is not one of ready, no_roll, fault", o.Drive)
		}
		if _, err := parseLevel(o.Active); err != nil {
			add(k+".active", "%v", err)
		}
	}
	if len(ps) == 0 {
		return nil
	}
	return &ValidationError{Problems: ps}
}

// MaxDelayMS is the longest an edge event can be emitted after the time
// it carries (denoise_ms plus debounce_ms of the slowest input). A throw
// window should stay open this long past its end so no edge arrives after
// the throw was fused.
func (c Config) MaxDelayMS() int64 {
	var d int
	for _, in := range c.Inputs {
		d = max(d, in.DenoiseMS+in.DebounceMS)
	}
	return int64(d)
}

func parseLevel(s string) (gpio.Level, error) {
	switch s {
	case "high":
		return gpio.High, nil
	case "low":
		return gpio.Low, nil
	case "":
		return gpio.Low, fmt.Errorf("required (high or low)")
	}
	return gpio.Low, fmt.Errorf("%q is not high or low", s)
}

func parsePull(s string) (gpio.Pull, error) {
	switch s {
	case "":
		return gpio.PullNoChange, nil
	case "up":
		return gpio.PullUp, nil
	case "down":
		return gpio.PullDown, nil
	case "none":
		return gpio.Float, nil
	}
	return gpio.PullNoChange, fmt.Errorf("%q is not up, down or none", s)
}

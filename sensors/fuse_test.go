package sensors_test

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"periph.io/x/conn/v3/gpio"

	"github.com/dicewatch/dicewatch/rules"
	"github.com/dicewatch/dicewatch/sensors"
	"github.com/dicewatch/dicewatch/sensors/sensorstest"
)

func TestFuse(t *testing.T) {
	win := sensors.Window{StartMS: 1000, RestMS: 3000, GraceMS: 1500}
	noWall := tableConfig()
	noWall.Inputs = append(noWall.Inputs[:3:3], noWall.Inputs[4:]...)
	tests := []struct {
		name    string
		cfg     sensors.Config
		events  []sensors.Event
		faulted []string
		want    rules.SensorEvidence
		presses []int64
	}{
		{
			name:   "nothing felt: a fitted back wall that was not hit",
			events: nil,
			want:   rules.SensorEvidence{HasBackWall: true},
		},
		{
			name: "rail beams broken during the throw, by name",
			events: []sensors.Event{
				edgeEv(900, "rail_left", true), edgeEv(950, "rail_left", false), // before the throw
				edgeEv(1500, "rail_right", true), edgeEv(1530, "rail_right", false),
				edgeEv(2000, "rail_left", true), edgeEv(2010, "rail_left", false),
				edgeEv(3200, "rail_left", true), // after rest
			},
			want: rules.SensorEvidence{RailBreaks: []string{"rail_left", "rail_right"}, HasBackWall: true},
		},
		{
			name:   "bowl trip and back-wall hit",
			events: []sensors.Event{edgeEv(1400, "wall", true), edgeEv(1430, "wall", false), edgeEv(2500, "bowl", true)},
			want:   rules.SensorEvidence{Bowl: true, BackWall: true, HasBackWall: true},
		},
		{
			name: "button during the throw and within grace are presses; after grace not",
			events: []sensors.Event{
				edgeEv(800, "button", true), edgeEv(900, "button", false),
				edgeEv(2000, "button", true), edgeEv(2100, "button", false),
				edgeEv(4400, "button", true), edgeEv(4450, "button", false),
				edgeEv(4600, "button", true),
			},
			want:    rules.SensorEvidence{HasBackWall: true},
			presses: []int64{2000, 4400},
		},
		{
			name: "an input that faults in the window is not trusted",
			events: []sensors.Event{
				edgeEv(1500, "rail_left", true), ev(2000, "rail_left", sensors.KindChatter, true),
				edgeEv(1600, "bowl", true), ev(4000, "bowl", sensors.KindStuck, true),
				edgeEv(1700, "wall", true), ev(4600, "wall", sensors.KindDisconnected, false), // after the window
			},
			want: rules.SensorEvidence{BackWall: true, HasBackWall: true, Faulted: []string{"bowl", "rail_left"}},
		},
		{
			name:    "a back wall faulted before the throw: no trusted back wall",
			events:  []sensors.Event{edgeEv(1700, "wall", true)},
			faulted: []string{"wall"},
			want:    rules.SensorEvidence{Faulted: []string{"wall"}},
		},
		{
			name:   "no back-wall sensor fitted",
			cfg:    noWall,
			events: []sensors.Event{edgeEv(2500, "bowl", true)},
			want:   rules.SensorEvidence{Bowl: true},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			if cfg.Inputs == nil {
				cfg = tableConfig()
			}
			w := win
			w.Faulted = tc.faulted
			got := cfg.Fuse(tc.events, w)
			if !reflect.DeepEqual(got.Evidence, tc.want) {
				t.Errorf("evidence %+v, want %+v", got.Evidence, tc.want)
			}
			if !reflect.DeepEqual(got.Presses, tc.presses) {
				t.Errorf("presses %v, want %v", got.Presses, tc.presses)
			}
		})
	}
}

func TestFaultSet(t *testing.T) {
	var f sensors.FaultSet
	steps := []struct {
		e       sensors.Event
		changed bool
		want    []string
	}{
		{edgeEv(1, "bowl", true), false, []string{}},
		{ev(2, "bowl", sensors.KindStuck, true), true, []string{"bowl"}},
		{ev(3, "bowl", sensors.KindChatter, true), false, []string{"bowl"}},
		{ev(4, "wall", sensors.KindDisconnected, false), true, []string{"bowl", "wall"}},
		{ev(5, "bowl", sensors.KindStuckCleared, false), false, []string{"bowl", "wall"}},
		{ev(6, "bowl", sensors.KindChatterClear, false), true, []string{"wall"}},
		{ev(7, "wall", sensors.KindDisconnectedClear, false), true, []string{}},
	}
	for i, s := range steps {
		if got := f.Apply(s.e); got != s.changed {
			t.Errorf("step %d: changed %v, want %v", i, got, s.changed)
		}
		if got := f.Faulted(); !reflect.DeepEqual(got, s.want) || f.Any() != (len(s.want) > 0) {
			t.Errorf("step %d: faulted %v, want %v", i, got, s.want)
		}
	}
}

func TestLamps(t *testing.T) {
	cfg := tableConfig()
	pins := sensorstest.ForConfig(cfg)
	l, err := sensors.OpenLamps(cfg, sensorstest.Resolver(pins))
	if err != nil {
		t.Fatal(err)
	}
	level := func() [3]gpio.Level {
		return [3]gpio.Level{pins["GPIO16"].Read(), pins["GPIO12"].Read(), pins["GPIO24"].Read()}
	}
	// ready and no-roll light high; the fault lamp lights low.
	if got, want := level(), [3]gpio.Level{gpio.Low, gpio.Low, gpio.High}; got != want {
		t.Fatalf("after open %v, want all dark %v", got, want)
	}
	tests := []struct {
		name string
		s    sensors.LampState
		want [3]gpio.Level
	}{
		{"ready", sensors.StateFor(rules.Decision{}, false, false), [3]gpio.Level{gpio.High, gpio.Low, gpio.High}},
		{"throw in progress", sensors.StateFor(rules.Decision{}, false, true), [3]gpio.Level{gpio.Low, gpio.Low, gpio.High}},
		{"no roll", sensors.StateFor(rules.Decision{Verdict: rules.NoRoll}, false, false), [3]gpio.Level{gpio.High, gpio.High, gpio.High}},
		{"valid roll", sensors.StateFor(rules.Decision{Verdict: rules.Valid}, false, false), [3]gpio.Level{gpio.High, gpio.Low, gpio.High}},
		{"fault", sensors.StateFor(rules.Decision{Verdict: rules.Reroll}, true, false), [3]gpio.Level{gpio.Low, gpio.High, gpio.Low}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := l.Show(tc.s); err != nil {
				t.Fatal(err)
			}
			if got := level(); got != tc.want {
				t.Errorf("levels %v, want %v", got, tc.want)
			}
		})
	}
	if err := l.Off(); err != nil {
		t.Fatal(err)
	}
	if got, want := level(), [3]gpio.Level{gpio.Low, gpio.Low, gpio.High}; got != want {
		t.Fatalf("after off %v, want %v", got, want)
	}
}

// The sensors of one craps throw become the throw's evidence and decide
// it with the rules: the die bounced into the bowl and the boxperson
// pressed no-roll right after it came to rest.
func ExampleConfig_Fuse() {
	cfg := sensors.Config{Inputs: []sensors.Input{
		{Name: "rail_near", Role: sensors.RoleRail, Pin: "GPIO5", Active: "low"},
		{Name: "bowl", Role: sensors.RoleBowl, Pin: "GPIO6", Active: "high"},
		{Name: "wall", Role: sensors.RoleBackWall, Pin: "GPIO13", Active: "high"},
		{Name: "button", Role: sensors.RoleNoRollButton, Pin: "GPIO19", Active: "low"},
	}}
	events := []sensors.Event{
		{AtMS: 1210, Role: sensors.RoleBackWall, Name: "wall", Kind: sensors.KindEdge, Active: true},
		{AtMS: 1650, Role: sensors.RoleBowl, Name: "bowl", Kind: sensors.KindEdge, Active: true},
		{AtMS: 2300, Role: sensors.RoleNoRollButton, Name: "button", Kind: sensors.KindEdge, Active: true},
	}
	f := cfg.Fuse(events, sensors.Window{StartMS: 1000, RestMS: 2100, GraceMS: 1500})
	fmt.Printf("bowl=%v back_wall=%v presses=%v\n", f.Evidence.Bowl, f.Evidence.BackWall, f.Presses)

	th := rules.Throw{Game: rules.Craps, DiceThrown: 2, StartMS: 1000, AtRestMS: 2100, Sensors: f.Evidence,
		Dice: []rules.Die{{Value: 3, Confidence: 1, Zone: rules.ZoneLayout, Flat: true, SizeRatio: 1}}}
	for _, p := range f.Presses {
		th.StaffCalls = append(th.StaffCalls, rules.StaffCallRecord{Operator: "boxperson_station", Role: "boxperson", Cause: "no-roll button", Source: "button", AtMS: p})
	}
	d := rules.Decide(th, rules.DefaultProfile(rules.Craps))
	fmt.Println(d.Verdict, d.Reasons)
	// Output:
	// bowl=true back_wall=true presses=[2300]
	// no_roll [in_bowl staff_call]
}

// A faulted input's evidence reaches the decision as untrusted, not as a
// reason: a stuck bowl beam does not void the roll, and the decision says
// the sensors were not trusted.
func TestFuseFaultedBowlDecision(t *testing.T) {
	cfg := tableConfig()
	events := []sensors.Event{
		edgeEv(500, "bowl", true), ev(5500, "bowl", sensors.KindStuck, true), edgeEv(1400, "wall", true),
	}
	var faults sensors.FaultSet
	for _, e := range events {
		if e.AtMS < 6000 {
			faults.Apply(e)
		}
	}
	f := cfg.Fuse(events, sensors.Window{StartMS: 6000, RestMS: 8000, GraceMS: 1000, Faulted: faults.Faulted()})
	th := rules.Throw{Game: rules.Craps, DiceThrown: 2, StartMS: 6000, AtRestMS: 8000, Sensors: f.Evidence, Dice: []rules.Die{
		{Value: 4, Confidence: 1, Zone: rules.ZoneLayout, Flat: true, SizeRatio: 1},
		{Value: 3, Confidence: 1, Zone: rules.ZoneLayout, Flat: true, SizeRatio: 1},
	}}
	d := rules.Decide(th, rules.DefaultProfile(rules.Craps))
	if f.Evidence.Bowl || !reflect.DeepEqual(f.Evidence.Faulted, []string{"bowl"}) {
		t.Fatalf("evidence %+v, want the bowl faulted and not tripped", f.Evidence)
	}
	if d.Verdict != rules.Valid || !slices.Contains(d.Advisories, rules.SensorUntrusted) || !slices.Contains(d.Advisories, rules.NoBackWall) {
		t.Fatalf("decision %+v, want valid with sensor_untrusted and no_back_wall", d)
	}
}

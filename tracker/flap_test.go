package tracker

import (
	"testing"

	"github.com/dicewatch/dicewatch/rules"
	"github.com/dicewatch/dicewatch/sensors"
)

// TestFlappingSensorKeepsTheButton: a rail beam and the back wall flapping
// through a throw flood the tracker with edges (chatter_per_s is off by
// default, so only debounce_ms bounds them); the no-roll button pressed
// early in the same throw must still void it. Before the events kept were
// trimmed per input, 6000 edges dropped the press and the throw was valid.
func TestFlappingSensorKeepsTheButton(t *testing.T) {
	cfg := Config{Game: rules.Craps, DiceThrown: 2, Sensors: sensors.Config{Inputs: []sensors.Input{
		{Name: "button", Role: sensors.RoleNoRollButton, Pin: "GPIO13"},
		{Name: "rail_stick", Role: sensors.RoleRail, Pin: "GPIO19"},
		{Name: "wall", Role: sensors.RoleBackWall, Pin: "GPIO5"},
	}}}
	for _, n := range []int{100, 3000, 6000, 20000} {
		steps := []step{frame(33, true, 2), edge(100, sensors.RoleNoRollButton, "button")}
		for i := 0; i < n; i++ {
			// The rail beam flaps; the back wall flaps at a third of its rate.
			steps = append(steps, step{sensor: &sensors.Event{AtMS: 150 + int64(i)*1000/int64(n), Role: sensors.RoleRail,
				Name: "rail_stick", Kind: sensors.KindEdge, Active: i%2 == 0}})
			if i%3 == 0 {
				steps = append(steps, step{sensor: &sensors.Event{AtMS: 150 + int64(i)*1000/int64(n), Role: sensors.RoleBackWall,
					Name: "wall", Kind: sensors.KindEdge, Active: i%2 == 0}})
			}
		}
		steps = append(steps, rest(1200, die(3, rules.ZoneLayout), die(4, rules.ZoneLayout)), frame(1500, false, 2))
		got := run(t, cfg, steps)
		if len(got) != 1 {
			t.Fatalf("%d rail edges: %d throws, want 1", n, len(got))
		}
		d := rules.Decide(got[0], rules.DefaultProfile(rules.Craps))
		t.Logf("%d rail edges in the throw: %s %v", n, d.Verdict, d.Reasons)
		if d.Verdict == rules.Valid {
			t.Errorf("%d rail edges in the throw: valid %v; the button pressed at 100 ms was lost", n, d.Values)
		}
	}
}

package sensors_test

import (
	"reflect"
	"testing"

	"github.com/dicewatch/dicewatch/sensors"
)

// tableConfig is a craps table: two rail beams, the bowl, a back-wall
// piezo, the boxperson's button, bowl occupancy with a health output, and
// three lamps.
func tableConfig() sensors.Config {
	return sensors.Config{
		Inputs: []sensors.Input{
			{Name: "rail_left", Role: sensors.RoleRail, Pin: "GPIO5", Active: "low", Pull: "up", DenoiseMS: 2, DebounceMS: 20, StuckAfterMS: 3000, ChatterPerS: 20},
			{Name: "rail_right", Role: sensors.RoleRail, Pin: "GPIO6", Active: "low", Pull: "up", DenoiseMS: 2, DebounceMS: 20, StuckAfterMS: 3000, ChatterPerS: 20},
			{Name: "bowl", Role: sensors.RoleBowl, Pin: "GPIO13", Active: "high", Pull: "down", DebounceMS: 20, StuckAfterMS: 5000, ChatterPerS: 20},
			{Name: "wall", Role: sensors.RoleBackWall, Pin: "GPIO19", Active: "high", Pull: "down", DebounceMS: 30, ChatterPerS: 15},
			{Name: "button", Role: sensors.RoleNoRollButton, Pin: "GPIO26", Active: "low", Pull: "up", DenoiseMS: 5, DebounceMS: 30, StuckAfterMS: 10000, ChatterPerS: 10},
			{Name: "present", Role: sensors.RoleDicePresent, Pin: "GPIO20", Active: "high", DebounceMS: 50, HealthPin: "GPIO21", HealthActive: "high"},
		},
		Outputs: []sensors.Output{
			{Name: "ready_lamp", Pin: "GPIO16", Drive: sensors.DriveReady, Active: "high"},
			{Name: "noroll_lamp", Pin: "GPIO12", Drive: sensors.DriveNoRoll, Active: "high"},
			{Name: "fault_lamp", Pin: "GPIO24", Drive: sensors.DriveFault, Active: "low"},
		},
	}
}

func ev(at int64, name string, k sensors.Kind, active bool) sensors.Event {
	role := map[string]sensors.Role{
		"rail_left": sensors.RoleRail, "rail_right": sensors.RoleRail, "bowl": sensors.RoleBowl,
		"wall": sensors.RoleBackWall, "button": sensors.RoleNoRollButton, "present": sensors.RoleDicePresent,
		"sync": sensors.RoleDicePresent,
	}[name]
	return sensors.Event{AtMS: at, Role: role, Name: name, Kind: k, Active: active}
}

// raw is a raw level change of an input (an edge line fed to the filter).
func raw(at int64, name string, active bool) sensors.Event {
	return ev(at, name, sensors.KindEdge, active)
}

func edgeEv(at int64, name string, active bool) sensors.Event {
	return ev(at, name, sensors.KindEdge, active)
}

// TestFilter drives the filter and fault code with raw levels at given
// times through Replay (the code path live pins use) and checks the events.
func TestFilter(t *testing.T) {
	tests := []struct {
		name  string
		in    []sensors.Event
		until int64
		want  []sensors.Event
	}{
		{
			name: "bounce within debounce is one edge",
			in: []sensors.Event{
				raw(100, "rail_left", true), raw(103, "rail_left", false), raw(105, "rail_left", true),
				raw(109, "rail_left", false), raw(111, "rail_left", true),
			},
			until: 1000,
			want:  []sensors.Event{edgeEv(100, "rail_left", true)},
		},
		{
			name: "bounce after the first edge is locked out",
			in: []sensors.Event{
				raw(100, "wall", true), raw(104, "wall", false), raw(106, "wall", true), raw(111, "wall", false),
			},
			until: 1000,
			// the piezo pulse is reported at once, and its release when the
			// 30 ms lock ends, with the time the release began
			want: []sensors.Event{edgeEv(100, "wall", true), edgeEv(111, "wall", false)},
		},
		{
			name:  "spike shorter than denoise is ignored",
			in:    []sensors.Event{raw(100, "button", true), raw(103, "button", false)},
			until: 1000,
			want:  nil,
		},
		{
			name:  "press held past denoise is an edge at its start",
			in:    []sensors.Event{raw(100, "button", true), raw(400, "button", false)},
			until: 1000,
			want:  []sensors.Event{edgeEv(100, "button", true), edgeEv(400, "button", false)},
		},
		{
			name:  "pending edge is not reported before its time",
			in:    []sensors.Event{raw(100, "button", true)},
			until: 104,
			want:  nil,
		},
		{
			name:  "stuck is raised and cleared",
			in:    []sensors.Event{raw(1000, "rail_right", true), raw(4500, "rail_right", false)},
			until: 6000,
			want: []sensors.Event{
				edgeEv(1000, "rail_right", true),
				ev(4000, "rail_right", sensors.KindStuck, true),
				edgeEv(4500, "rail_right", false),
				ev(4500, "rail_right", sensors.KindStuckCleared, false),
			},
		},
		{
			name:  "released just before the stuck limit is not stuck",
			in:    []sensors.Event{raw(1000, "rail_right", true), raw(3990, "rail_right", false)},
			until: 6000,
			want:  []sensors.Event{edgeEv(1000, "rail_right", true), edgeEv(3990, "rail_right", false)},
		},
		{
			name: "chatter is raised on the edge over the limit and cleared when quiet",
			// 16 edges 20 ms apart: the 16th within a second passes wall's 15/s
			in:    pulses("wall", 0, 20, 16),
			until: 3000,
			// each 20 ms pulse outlasts the 30 ms lock of the one before, so
			// every level is reported, the last when the lock ends at 310
			want: append(alternating("wall", 0, 20, 15),
				ev(300, "wall", sensors.KindChatter, true),
				edgeEv(300, "wall", false),
				// at most 7 edges remembered within the last second: the 9th
				// of the last 16 (at 160) leaves the window at 1160
				ev(1160, "wall", sensors.KindChatterClear, false)),
		},
		{
			name:  "recorded disconnection is an observation",
			in:    []sensors.Event{ev(50, "present", sensors.KindDisconnected, false), ev(900, "present", sensors.KindDisconnectedClear, false)},
			until: 1000,
			want:  []sensors.Event{ev(50, "present", sensors.KindDisconnected, false), ev(900, "present", sensors.KindDisconnectedClear, false)},
		},
		{
			name: "recorded stuck lines are derived again, not copied",
			in: []sensors.Event{
				raw(0, "bowl", true), ev(5000, "bowl", sensors.KindStuck, true), ev(5100, "bowl", sensors.KindStuckCleared, false),
			},
			until: 6000,
			want:  []sensors.Event{edgeEv(0, "bowl", true), ev(5000, "bowl", sensors.KindStuck, true)},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := sensors.NewReplay(tableConfig(), tc.in)
			if err != nil {
				t.Fatal(err)
			}
			got := r.Until(tc.until)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("events:\n got %v\nwant %v", got, tc.want)
			}
		})
	}
}

// pulses is n raw level changes of name, every step ms from at, starting
// active.
func pulses(name string, at, step int64, n int) []sensors.Event {
	var out []sensors.Event
	for i := 0; i < n; i++ {
		out = append(out, raw(at+int64(i)*step, name, i%2 == 0))
	}
	return out
}

// alternating is the edges of name every step ms from at, starting
// active: what a filter reports of pulses spaced wider than its lock.
func alternating(name string, at, step int64, n int) []sensors.Event {
	var out []sensors.Event
	for i := 0; i < n; i++ {
		out = append(out, edgeEv(at+int64(i)*step, name, i%2 == 0))
	}
	return out
}

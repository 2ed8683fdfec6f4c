package tracker

import (
	"reflect"
	"testing"

	"github.com/dicewatch/dicewatch/rules"
	"github.com/dicewatch/dicewatch/sensors"
)

func die(v int, zone rules.Zone) rules.Die {
	return rules.Die{Value: v, Confidence: 0.99, Zone: zone, Flat: true, Flatness: 0.98, SizeRatio: 1}
}

// step is one input to the tracker: a frame, a sensor event or a staff call.
type step struct {
	obs    *Observation
	sensor *sensors.Event
	call   *rules.StaffCallRecord
	fault  string
	on     bool
}

func frame(at int64, motion bool, present int) step {
	return step{obs: &Observation{AtMS: at, Motion: motion, Present: present}}
}

func rest(at int64, dice ...rules.Die) step {
	return step{obs: &Observation{AtMS: at, Present: len(dice), AtRest: true, Dice: dice}}
}

func edge(at int64, role sensors.Role, name string) step {
	return step{sensor: &sensors.Event{AtMS: at, Role: role, Name: name, Kind: sensors.KindEdge, Active: true}}
}

func run(t *testing.T, cfg Config, steps []step) []rules.Throw {
	t.Helper()
	tr := New(cfg)
	var out []rules.Throw
	for _, s := range steps {
		switch {
		case s.obs != nil:
			out = append(out, tr.Frame(*s.obs)...)
		case s.sensor != nil:
			out = append(out, tr.Sensor(*s.sensor)...)
		case s.call != nil:
			tr.StaffCall(*s.call)
		case s.fault != "":
			tr.Fault(s.fault, s.on)
		}
	}
	return out
}

func TestTrackerDecisions(t *testing.T) {
	cfg := Config{Game: rules.Craps, DiceThrown: 2, GraceMS: 200, Sensors: sensors.Config{Inputs: []sensors.Input{
		{Name: "wall", Role: sensors.RoleBackWall, Pin: "GPIO5"},
		{Name: "bowl", Role: sensors.RoleBowl, Pin: "GPIO6"},
		{Name: "button", Role: sensors.RoleNoRollButton, Pin: "GPIO13"},
		{Name: "rail_stick", Role: sensors.RoleRail, Pin: "GPIO19"},
	}}}
	tests := []struct {
		name    string
		steps   []step
		want    []rules.Decision
		nThrows int
	}{
		{
			name: "valid roll with back-wall hit (SD 20:18:33:06)",
			steps: []step{
				frame(0, false, 0), frame(33, true, 2), edge(400, sensors.RoleBackWall, "wall"),
				frame(800, true, 2), rest(1200, die(3, rules.ZoneLayout), die(4, rules.ZoneLayout)),
				frame(1500, false, 2),
			},
			want: []rules.Decision{{Verdict: rules.Valid, Values: []int{3, 4}, Total: 7}},
		},
		{
			name: "die over the rail is off the table (SD 20:18:33:06 (1))",
			steps: []step{
				frame(33, true, 2),
				{obs: &Observation{AtMS: 500, Motion: true, Present: 1, Exits: []rules.Exit{{Zone: rules.ZoneOffTable, AtMS: 500}}}},
				edge(510, sensors.RoleBackWall, "wall"),
				rest(1200, die(5, rules.ZoneLayout)), frame(1500, false, 1),
			},
			want: []rules.Decision{{Verdict: rules.NoRoll, Reasons: []rules.Reason{rules.OffTable}}},
		},
		{
			name: "rail beam broken and a die not found at rest is off the table (SD 20:18:33:06 (1))",
			steps: []step{
				frame(33, true, 2), edge(300, sensors.RoleRail, "rail_stick"), edge(400, sensors.RoleBackWall, "wall"),
				rest(1200, die(3, rules.ZoneLayout)), frame(1500, false, 1),
			},
			want: []rules.Decision{{Verdict: rules.NoRoll, Reasons: []rules.Reason{rules.OffTable}}},
		},
		{
			name: "rail beam broken with both dice on the layout is still valid",
			steps: []step{
				frame(33, true, 2), edge(300, sensors.RoleRail, "rail_stick"), edge(400, sensors.RoleBackWall, "wall"),
				rest(1200, die(3, rules.ZoneLayout), die(2, rules.ZoneLayout)), frame(1500, false, 2),
			},
			want: []rules.Decision{{Verdict: rules.Valid, Values: []int{3, 2}, Total: 5}},
		},
		{
			name: "bowl sensor trip is in_bowl (SD 20:18:33:06 (3))",
			steps: []step{
				frame(33, true, 2), edge(300, sensors.RoleBackWall, "wall"), edge(600, sensors.RoleBowl, "bowl"),
				rest(1200, die(2, rules.ZoneLayout)), frame(1500, false, 1),
			},
			want: []rules.Decision{{Verdict: rules.NoRoll, Reasons: []rules.Reason{rules.InBowl}}},
		},
		{
			name: "no back-wall hit is advisory only",
			steps: []step{
				frame(33, true, 2), rest(1200, die(6, rules.ZoneLayout), die(6, rules.ZoneLayout)), frame(1500, false, 2),
			},
			want: []rules.Decision{{Verdict: rules.Valid, Values: []int{6, 6}, Total: 12, Advisories: []rules.Advisory{rules.NoBackWall}}},
		},
		{
			name: "staff call within grace after rest voids the roll (SD 20:18:33:06 no-roll call)",
			steps: []step{
				frame(33, true, 2), edge(300, sensors.RoleBackWall, "wall"),
				rest(1200, die(1, rules.ZoneLayout), die(1, rules.ZoneLayout)),
				{call: &rules.StaffCallRecord{Operator: "op7", Role: "boxperson", Cause: "not simultaneous", Source: "command", AtMS: 1300}},
				frame(1500, false, 2),
			},
			want: []rules.Decision{{Verdict: rules.NoRoll, Reasons: []rules.Reason{rules.StaffCall}}},
		},
		{
			name: "no-roll button during the throw is a staff call",
			steps: []step{
				frame(33, true, 2), edge(300, sensors.RoleBackWall, "wall"), edge(700, sensors.RoleNoRollButton, "button"),
				rest(1200, die(1, rules.ZoneLayout), die(2, rules.ZoneLayout)), frame(1500, false, 2),
			},
			want: []rules.Decision{{Verdict: rules.NoRoll, Reasons: []rules.Reason{rules.StaffCall}}},
		},
		{
			name: "camera fault during the throw is never valid",
			steps: []step{
				frame(33, true, 2), {fault: "camera", on: true}, {fault: "camera", on: false},
				edge(300, sensors.RoleBackWall, "wall"),
				rest(1200, die(3, rules.ZoneLayout), die(3, rules.ZoneLayout)), frame(1500, false, 2),
			},
			want: []rules.Decision{{Verdict: rules.NoRoll, Reasons: []rules.Reason{rules.CameraFault}}},
		},
		{
			name: "throw opened after recovery, before the table was seen empty, is never valid",
			steps: []step{
				frame(0, false, 0), {fault: "camera", on: true}, {fault: "camera", on: false},
				// Back with dice already on the layout (thrown in the dark),
				// then a hand moves them: no empty table seen in between.
				frame(5000, false, 2), frame(5033, true, 2), edge(5300, sensors.RoleBackWall, "wall"),
				rest(6200, die(3, rules.ZoneLayout), die(4, rules.ZoneLayout)), frame(6500, false, 2),
			},
			want: []rules.Decision{{Verdict: rules.NoRoll, Reasons: []rules.Reason{rules.CameraFault}}},
		},
		{
			name: "throw after recovery and an empty, still table is decided normally",
			steps: []step{
				frame(0, false, 0), {fault: "camera", on: true}, {fault: "camera", on: false},
				frame(4967, false, 0), frame(5000, false, 0), frame(5033, true, 2), edge(5300, sensors.RoleBackWall, "wall"),
				rest(6200, die(3, rules.ZoneLayout), die(4, rules.ZoneLayout)), frame(6500, false, 2),
			},
			want: []rules.Decision{{Verdict: rules.Valid, Values: []int{3, 4}, Total: 7}},
		},
		{
			name: "throw entering right after the first frame back, whose stillness was not measured, is never valid",
			steps: []step{
				frame(0, false, 0), {fault: "camera", on: true}, {fault: "camera", on: false},
				{obs: &Observation{AtMS: 5000, Resumed: true, Clear: true}},
				frame(5033, true, 2), edge(5300, sensors.RoleBackWall, "wall"),
				rest(6200, die(3, rules.ZoneLayout), die(4, rules.ZoneLayout)), frame(6500, false, 2),
			},
			want: []rules.Decision{{Verdict: rules.NoRoll, Reasons: []rules.Reason{rules.CameraFault}}},
		},
		{
			// A die only just at the picture's edge can be under both the
			// motion and the detection threshold on the second frame back
			// (TestCameraKilledMidRun saw it, a throw entering 20 ms after
			// the first frame back): one empty, still frame is not enough.
			name: "throw after the first frame back and only one empty, still frame is never valid",
			steps: []step{
				frame(0, false, 0), {fault: "camera", on: true}, {fault: "camera", on: false},
				{obs: &Observation{AtMS: 5000, Resumed: true, Clear: true}}, frame(5033, false, 0),
				frame(5066, true, 2), edge(5300, sensors.RoleBackWall, "wall"),
				rest(6200, die(3, rules.ZoneLayout), die(4, rules.ZoneLayout)), frame(6500, false, 2),
			},
			want: []rules.Decision{{Verdict: rules.NoRoll, Reasons: []rules.Reason{rules.CameraFault}}},
		},
		{
			name: "throw after the first frame back and two empty, still ones is decided normally",
			steps: []step{
				frame(0, false, 0), {fault: "camera", on: true}, {fault: "camera", on: false},
				{obs: &Observation{AtMS: 5000, Resumed: true, Clear: true}}, frame(5033, false, 0), frame(5066, false, 0),
				frame(5100, true, 2), edge(5300, sensors.RoleBackWall, "wall"),
				rest(6200, die(3, rules.ZoneLayout), die(4, rules.ZoneLayout)), frame(6500, false, 2),
			},
			want: []rules.Decision{{Verdict: rules.Valid, Values: []int{3, 4}, Total: 7}},
		},
		{
			name: "a moving frame between the empty, still ones starts the count again",
			steps: []step{
				frame(0, false, 0), {fault: "camera", on: true}, {fault: "camera", on: false},
				{obs: &Observation{AtMS: 5000, Resumed: true, Clear: true}}, frame(5033, false, 0),
				{obs: &Observation{AtMS: 5066, Motion: true}}, frame(5100, false, 0),
				frame(5133, true, 2), edge(5300, sensors.RoleBackWall, "wall"),
				rest(6200, die(3, rules.ZoneLayout), die(4, rules.ZoneLayout)), frame(6500, false, 2),
			},
			want: []rules.Decision{{Verdict: rules.NoRoll, Reasons: []rules.Reason{rules.CameraFault}}},
		},
		{
			// The camera goes away in the air and comes back 3.6 s later
			// with the next throw coming in: it is decided on its own, not
			// taken into the cut throw's no_roll (it used to be).
			name: "a throw cut by a long outage is decided alone when the next moves in after it",
			steps: []step{
				frame(0, false, 0), frame(33, true, 2), frame(400, true, 2), {fault: "camera", on: true}, {fault: "camera", on: false},
				{obs: &Observation{AtMS: 4000, Resumed: true, Present: 1, Appeared: []int64{4000}}},
				frame(4033, true, 2), edge(4300, sensors.RoleBackWall, "wall"),
				rest(5200, die(5, rules.ZoneLayout), die(6, rules.ZoneLayout)), frame(5500, false, 2),
			},
			want: []rules.Decision{
				{Verdict: rules.NoRoll, Reasons: []rules.Reason{rules.CameraFault, rules.DiceMissing}, Advisories: []rules.Advisory{rules.NoBackWall}},
				{Verdict: rules.NoRoll, Reasons: []rules.Reason{rules.CameraFault}},
			},
		},
		{
			name: "dice still after a long outage are the cut throw's",
			steps: []step{
				frame(0, false, 0), frame(33, true, 2), edge(300, sensors.RoleBackWall, "wall"), frame(400, true, 2),
				{fault: "camera", on: true}, {fault: "camera", on: false},
				{obs: &Observation{AtMS: 4000, Resumed: true, Present: 2, Appeared: []int64{4000, 4000}}},
				frame(4033, false, 2), rest(4400, die(3, rules.ZoneLayout), die(4, rules.ZoneLayout)), frame(4700, false, 2),
				frame(5000, true, 2), frame(5500, true, 1),
			},
			want: []rules.Decision{{Verdict: rules.NoRoll, Reasons: []rules.Reason{rules.CameraFault}}},
		},
		{
			// A stick moving the cut throw's dice off after a long outage:
			// nothing comes to rest in view.
			name: "dice collected after a long outage are the cut throw's",
			steps: []step{
				frame(0, false, 0), frame(33, true, 2), edge(300, sensors.RoleBackWall, "wall"), frame(400, true, 2),
				{fault: "camera", on: true}, {fault: "camera", on: false},
				{obs: &Observation{AtMS: 4000, Resumed: true, Present: 2, Appeared: []int64{4000, 4000}}},
				frame(4033, true, 2), frame(4300, true, 1),
				{obs: &Observation{AtMS: 4600, AtRest: true}}, frame(4900, false, 0),
			},
			want: []rules.Decision{{Verdict: rules.NoRoll, Reasons: []rules.Reason{rules.CameraFault, rules.DiceMissing}}},
		},
		{
			// A die seen leaving the table after a long outage, and the
			// throw closed by its time running out before anything comes
			// to rest: the exit is still the cut throw's (it was dropped:
			// dice_missing alone).
			name: "a die leaving after a long outage counts when the cut throw times out",
			steps: []step{
				frame(0, false, 0), frame(33, true, 2), edge(300, sensors.RoleBackWall, "wall"), frame(400, true, 2),
				{fault: "camera", on: true}, {fault: "camera", on: false},
				{obs: &Observation{AtMS: 4000, Resumed: true, Present: 2, Appeared: []int64{4000, 4000}}},
				{obs: &Observation{AtMS: 4033, Motion: true, Present: 1, Exits: []rules.Exit{{Zone: rules.ZoneOffTable, AtMS: 4033}}}},
				frame(9000, true, 1), frame(15100, true, 1), frame(15400, true, 1),
			},
			want: []rules.Decision{{Verdict: rules.NoRoll, Reasons: []rules.Reason{rules.CameraFault, rules.DiceMissing, rules.OffTable}}},
		},
		{
			name: "dice moving after a short outage are the same throw's",
			steps: []step{
				frame(0, false, 0), frame(33, true, 2), edge(300, sensors.RoleBackWall, "wall"), frame(400, true, 2),
				{fault: "camera", on: true}, {fault: "camera", on: false},
				{obs: &Observation{AtMS: 1500, Resumed: true, Present: 2, Appeared: []int64{1500, 1500}}},
				frame(1533, true, 2), rest(2400, die(3, rules.ZoneLayout), die(4, rules.ZoneLayout)), frame(2700, false, 2),
			},
			want: []rules.Decision{{Verdict: rules.NoRoll, Reasons: []rules.Reason{rules.CameraFault}}},
		},
		{
			name: "after a faulted throw, the next one waits for the table to clear",
			steps: []step{
				frame(33, true, 2), {fault: "camera", on: true}, {fault: "camera", on: false},
				rest(1200, die(3, rules.ZoneLayout), die(3, rules.ZoneLayout)), frame(1500, false, 2),
				{obs: &Observation{AtMS: 2000, Clear: true}},
				frame(3000, true, 2), edge(3300, sensors.RoleBackWall, "wall"),
				rest(4200, die(5, rules.ZoneLayout), die(6, rules.ZoneLayout)), frame(4500, false, 2),
			},
			want: []rules.Decision{
				{Verdict: rules.NoRoll, Reasons: []rules.Reason{rules.CameraFault}, Advisories: []rules.Advisory{rules.NoBackWall}},
				{Verdict: rules.Valid, Values: []int{5, 6}, Total: 11},
			},
		},
		{
			name: "stuck bowl beam is not trusted",
			steps: []step{
				{sensor: &sensors.Event{AtMS: 10, Role: sensors.RoleBowl, Name: "bowl", Kind: sensors.KindStuck, Active: true}},
				frame(33, true, 2), edge(300, sensors.RoleBackWall, "wall"), edge(600, sensors.RoleBowl, "bowl"),
				rest(1200, die(4, rules.ZoneLayout), die(4, rules.ZoneLayout)), frame(1500, false, 2),
			},
			want: []rules.Decision{{Verdict: rules.Valid, Values: []int{4, 4}, Total: 8, Advisories: []rules.Advisory{rules.SensorUntrusted}}},
		},
		{
			name: "hand collecting after rest does not open a second throw",
			steps: []step{
				frame(33, true, 2), edge(300, sensors.RoleBackWall, "wall"),
				rest(1200, die(2, rules.ZoneLayout), die(5, rules.ZoneLayout)),
				frame(1500, true, 3), frame(1600, true, 1), frame(1700, false, 0),
			},
			want: []rules.Decision{{Verdict: rules.Valid, Values: []int{2, 5}, Total: 7}},
		},
		{
			name: "never at rest closes at max duration with dice missing",
			steps: []step{
				frame(33, true, 2), edge(300, sensors.RoleBackWall, "wall"), frame(9000, true, 2), frame(16000, true, 2), frame(16300, true, 2),
			},
			want: []rules.Decision{{Verdict: rules.NoRoll, Reasons: []rules.Reason{rules.DiceMissing}}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			throws := run(t, cfg, tc.steps)
			if len(throws) != len(tc.want) {
				t.Fatalf("got %d throws, want %d: %+v", len(throws), len(tc.want), throws)
			}
			for i, th := range throws {
				got := rules.Decide(th, rules.DefaultProfile(rules.Craps))
				if !reflect.DeepEqual(got, tc.want[i]) {
					t.Errorf("throw %d: got %+v, want %+v\nthrow: %+v", i, got, tc.want[i], th)
				}
			}
		})
	}
}

func TestTrackerTwoThrowsInARow(t *testing.T) {
	cfg := Config{Game: rules.Craps, DiceThrown: 2}
	steps := []step{
		frame(33, true, 2), rest(1000, die(1, rules.ZoneLayout), die(2, rules.ZoneLayout)),
		frame(1100, true, 2), {obs: &Observation{AtMS: 1500, Clear: true}},
		frame(3000, true, 2), rest(4000, die(6, rules.ZoneLayout), die(5, rules.ZoneLayout)),
	}
	throws := run(t, cfg, steps)
	if len(throws) != 2 {
		t.Fatalf("got %d throws, want 2", len(throws))
	}
	if throws[1].StartMS != 3000 || throws[1].AtRestMS != 4000 {
		t.Errorf("second throw window %d..%d, want 3000..4000", throws[1].StartMS, throws[1].AtRestMS)
	}
}

func TestStaffCallOutsideThrowIsRefused(t *testing.T) {
	tr := New(Config{Game: rules.Craps, GraceMS: 100})
	if tr.StaffCall(rules.StaffCallRecord{AtMS: 5}) {
		t.Fatal("a call with no throw open was accepted")
	}
	tr.Frame(Observation{AtMS: 10, Motion: true, Present: 2})
	tr.Frame(Observation{AtMS: 500, AtRest: true})
	if tr.StaffCall(rules.StaffCallRecord{AtMS: 700}) {
		t.Fatal("a call after the grace period was accepted")
	}
}

// TestMaxDurationClosesAtItsEnd: a throw that never comes to rest is
// closed at start + MaxDurationMS, even when the clock is next looked at
// much later (the daemon ticks far ahead at the end of a recording); its
// at-rest time is not that later tick.
func TestMaxDurationClosesAtItsEnd(t *testing.T) {
	tr := New(Config{Game: rules.Craps, DiceThrown: 2, MaxDurationMS: 15000})
	if got := tr.Frame(Observation{AtMS: 1000, Motion: true, Present: 2, Appeared: []int64{1000, 1000}}); len(got) != 0 {
		t.Fatalf("decided at once: %+v", got)
	}
	if got := tr.Tick(10000); len(got) != 0 {
		t.Fatalf("closed before its time: %+v", got)
	}
	got := tr.Tick(1000 + 1<<40)
	if len(got) != 1 {
		t.Fatalf("%d throws from the late tick, want 1", len(got))
	}
	if got[0].StartMS != 1000 || got[0].AtRestMS != 16000 {
		t.Errorf("throw window %d..%d, want 1000..16000", got[0].StartMS, got[0].AtRestMS)
	}
}

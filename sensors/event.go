// Package sensors owns the table's GPIO inputs and outputs through periph.io:
// rail beams, the bowl sensor, the back-wall hit sensor, the boxperson's
// no-roll button and optional bowl occupancy, each with debounce and fault
// detection (stuck, chatter, disconnected), plus status lamps. Live pins and
// recorded traces (JSON lines) go through the same code path.
//
// The package never touches hardware by itself: pins come from a Resolver
// (the daemon's resolves periph registry names such as GPIO17 and
// chip-and-line names such as gpiochip0:17; tests resolve to the fakes of
// sensorstest) and time comes from a Clock on the stream clock that frame
// timestamps use.
//
// Wiring it into the daemon:
//
//	cfg.Validate()                                 // Config is `sensors:` in the daemon config
//	s, err := sensors.Open(cfg, resolve, clock)    // a missing pin is an error naming it
//	go s.Run(ctx, events, rec)                     // one goroutine; rec may be nil (--record-sensors)
//	for e := range events { tracker.Sensor(e); faults.Apply(e) }
//
// Replaying instead of live pins (dicewatch replay, --sensor-trace):
//
//	lines, err := sensors.ReadTrace(f)
//	r, err := sensors.NewReplay(cfg, lines)
//	for each frame { for _, e := range r.Until(frame.AtMS) { ... } }
//
// At the end of a throw, Config.Fuse turns the events of its window into
// rules.SensorEvidence and the no-roll button presses that become
// staff_call records; a FaultSet fed with every event gives the inputs
// already faulted when the window opened, and drives the fault lamp
// through Lamps.Show.
//
// Filtering, per input (times in ms): a raw level must hold for denoise_ms
// to be believed, and after an edge the level is locked for debounce_ms.
// An edge event carries the time its level began, so it may be emitted up
// to denoise_ms (or the rest of a lock) after that time. stuck is raised
// stuck_after_ms after an active edge and cleared by the inactive edge;
// chatter is raised by the raw edge that makes more than chatter_per_s in
// one second and cleared once a second holds at most half that;
// disconnected comes from an optional health pin (a sensor's OK output),
// the one way GPIO can tell a cut cable from a quiet input. The Active
// field of a fault event is the input's debounced level at that moment.
package sensors

// Role is what an input is for.
type Role string

// Input roles.
const (
	RoleRail         Role = "rail"
	RoleBowl         Role = "bowl"
	RoleBackWall     Role = "back_wall"
	RoleNoRollButton Role = "noroll_button"
	RoleDicePresent  Role = "dice_present"
)

// Kind says whether an event is an edge or a fault change.
type Kind string

// Event kinds.
const (
	KindEdge         Kind = "edge"          // Active changed (after debounce)
	KindStuck        Kind = "stuck"         // active longer than the stuck limit
	KindStuckCleared Kind = "stuck_cleared" // restored after stuck
	KindChatter      Kind = "chatter"       // too many edges per second
	KindChatterClear Kind = "chatter_cleared"
	KindDisconnected Kind = "disconnected"
	// KindDisconnectedClear is added by the sensors package: the hardware
	// says the input is connected again after KindDisconnected.
	KindDisconnectedClear Kind = "disconnected_cleared"
)

// Event is one debounced edge or fault change on an input. It is also the
// line format of a sensor trace (one JSON object per line).
type Event struct {
	// AtMS is the monotonic time in milliseconds on the stream clock, the
	// same clock frame timestamps use, so events and frames line up.
	AtMS int64  `json:"t_ms"`
	Role Role   `json:"role"`
	Name string `json:"name"`
	Kind Kind   `json:"kind"`
	// Active is true when the input is in its active state (beam broken,
	// bowl tripped, button pressed, wall hit).
	Active bool `json:"active"`
}

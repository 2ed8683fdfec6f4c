// Package sensors owns the table's GPIO inputs and outputs through periph.io:
// rail beams, the bowl sensor, the back-wall hit sensor, the boxperson's
// no-roll button and optional bowl occupancy, each with debounce and fault
// detection (stuck, chatter, disconnected), plus status lamps. Live pins and
// recorded traces (JSON lines) go through the same code path.
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

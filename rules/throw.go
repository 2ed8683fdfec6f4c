// Package rules turns what was seen at the table into what it means: throw
// verdicts per game profile, craps game state, shooter rotation, dice-set
// inventory, backgammon validity, pai gow deal order and banking settlement,
// and integrity statistics.
//
// rules is pure: no I/O, no goroutines, no clock reads. Every function takes
// what it needs as arguments and returns a value, so every rule is tested
// with tables that cite the rule text it implements (../shared/reference/).
package rules

// Game names a game profile.
type Game string

// The games dicewatch decides.
const (
	Craps      Game = "craps"
	Backgammon Game = "backgammon"
	PaiGow     Game = "paigow"
	SicBo      Game = "sicbo"
)

// Zone is the role of a place on the table, in table millimetres. The
// calibration package maps positions to zones; rules only reads the role.
type Zone string

// Zone roles. OffTable is everything outside the table polygon.
const (
	ZoneLayout   Zone = "layout"
	ZoneRail     Zone = "rail"
	ZoneBank     Zone = "bank"
	ZoneBowl     Zone = "bowl"
	ZoneBackWall Zone = "back_wall"
	ZoneBarLeft  Zone = "bar_left"
	ZoneBar      Zone = "bar"
	ZoneBarRight Zone = "bar_right"
	ZoneShaker   Zone = "shaker"
	ZoneOffTable Zone = "off_table"
)

// Verdict is the single outcome of a throw.
type Verdict string

// Verdicts. Reroll is the backgammon name for an invalid roll.
const (
	Valid  Verdict = "valid"
	NoRoll Verdict = "no_roll"
	Reroll Verdict = "reroll"
)

// Reason says why a throw is not valid. A no-roll carries one or more.
type Reason string

// Reasons a throw is void.
const (
	OffTable         Reason = "off_table"
	InRail           Reason = "in_rail"
	Stacked          Reason = "stacked"
	OnBank           Reason = "on_bank"
	InBowl           Reason = "in_bowl"
	Cocked           Reason = "cocked"
	WrongSide        Reason = "wrong_side"
	Unreadable       Reason = "unreadable"
	StaffCall        Reason = "staff_call"
	DiceMissing      Reason = "dice_missing"
	NotSimultaneous  Reason = "not_simultaneous" // backgammon 4.2: a die touched the board before both left the cup
	CameraFault      Reason = "camera_fault"     // the camera was faulted during the throw: never valid
	CalibrationFault Reason = "calibration_fault"
)

// Advisory is a flag that does not void a roll by itself.
type Advisory string

// Advisories.
const (
	NoBackWall         Advisory = "no_back_wall"
	NotSimultaneousAdv Advisory = "not_simultaneous"
	HitChips           Advisory = "hit_chips"
	SensorUntrusted    Advisory = "sensor_untrusted" // a sensor input was faulted; its evidence was ignored
)

// Die is one die found at rest when the throw closed.
type Die struct {
	// Value is the top face, 1..6, or 0 when the reader is not sure.
	Value      int     `json:"value"`
	Confidence float64 `json:"confidence"`
	// XMM and YMM are the die centre in table millimetres (see calibration).
	XMM  float64 `json:"x_mm"`
	YMM  float64 `json:"y_mm"`
	Zone Zone    `json:"zone"`
	// Flat is the reader's call that the die lies flat (vision: the
	// at-rest reader's rules, or the cocked net in Read and ReadRegion);
	// Flatness is the footprint's squareness score, one input to that
	// call and not the whole of it (1 is a perfect square seen from above).
	Flat     bool    `json:"flat"`
	Flatness float64 `json:"flatness"`
	// SizeRatio is the apparent top-face size over the expected size at that
	// place; a die resting on another is nearer the camera and looks larger.
	SizeRatio float64 `json:"size_ratio"`
	// FirstSeenMS is when this die first appeared, on the stream clock.
	FirstSeenMS int64 `json:"first_seen_ms"`
	// TouchesChips is set when the die rests against chips (a house may read
	// a die cocked against chips differently).
	TouchesChips bool `json:"touches_chips,omitempty"`
}

// Exit is a die that left the camera's view during the throw.
type Exit struct {
	Zone Zone  `json:"zone"` // the zone it left through (rail or off_table)
	AtMS int64 `json:"at_ms"`
	// Source is the evidence: "camera" (default, empty) or "rail_beam" (a
	// rail beam broke and the die was not found at rest).
	Source string `json:"source,omitempty"`
}

// SensorEvidence is what the table's sensors said during the throw.
type SensorEvidence struct {
	RailBreaks []string `json:"rail_breaks,omitempty"` // names of rail beams broken
	Bowl       bool     `json:"bowl,omitempty"`        // the bowl sensor tripped
	BackWall   bool     `json:"back_wall,omitempty"`   // the back-wall sensor felt a hit
	// HasBackWall is true when a back-wall sensor is fitted and trusted;
	// without one, no_back_wall is never raised from sensors.
	HasBackWall bool `json:"has_back_wall,omitempty"`
	// Faulted names inputs whose evidence is not trusted during this throw.
	Faulted []string `json:"faulted,omitempty"`
}

// StaffCallRecord is a "no roll" called by staff, from a signed command or
// the boxperson's button.
type StaffCallRecord struct {
	Operator string `json:"operator"`
	Role     string `json:"role"`
	Cause    string `json:"cause"`
	Source   string `json:"source"` // "command" or "button"
	AtMS     int64  `json:"at_ms"`
}

// Throw is the evidence record for one throw, built by the tracker and
// journalled with its decision.
type Throw struct {
	Game       Game              `json:"game"`
	StartMS    int64             `json:"start_ms"`
	AtRestMS   int64             `json:"at_rest_ms"`
	DiceThrown int               `json:"dice_thrown"`
	Dice       []Die             `json:"dice"`
	Left       []Exit            `json:"left,omitempty"`
	Sensors    SensorEvidence    `json:"sensors"`
	StaffCalls []StaffCallRecord `json:"staff_calls,omitempty"`
	// Faults names equipment faulted during the throw ("camera",
	// "calibration"). A throw with a fault is never valid.
	Faults []string `json:"faults,omitempty"`
}

// Decision is exactly one verdict for a throw.
type Decision struct {
	Verdict    Verdict    `json:"verdict"`
	Values     []int      `json:"values,omitempty"`
	Total      int        `json:"total,omitempty"`
	Reasons    []Reason   `json:"reasons,omitempty"`
	Advisories []Advisory `json:"advisories,omitempty"`
}

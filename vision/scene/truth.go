package scene

import "github.com/dicewatch/dicewatch/rules"

// ThrowTruth is the ground truth of one generated throw: one line of
// truth.jsonl. Times are on the stream clock in ms (frame k is at
// Camera.FrameMS(k)).
type ThrowTruth struct {
	Throw int  `json:"throw"`
	Kind  Kind `json:"kind"`
	// StartMS / StartFrame: the first frame in which a die of this throw is
	// in the picture.
	StartMS    int64 `json:"start_ms"`
	StartFrame int   `json:"start_frame"`
	// AtRestMS is when the last die stopped (or, for a die that leaves the
	// picture, when it left), rounded up to the ms; AtRestFrame is the first
	// frame at or after it, the earliest frame that shows every die still.
	AtRestMS    int64 `json:"at_rest_ms"`
	AtRestFrame int   `json:"at_rest_frame"`
	// CollectMS is when the stick enters the picture to collect the dice
	// (the dice stay still from AtRestMS to at least CollectMS+300).
	CollectMS int64 `json:"collect_ms"`
	// ClearMS is when the collected dice and the stick are gone.
	ClearMS  int64 `json:"clear_ms"`
	EndFrame int   `json:"end_frame"`
	// Expected is rules.Decide(Record, rules.DefaultProfile(rules.Craps)):
	// the decision a perfect reader and tracker would reach.
	Expected rules.Decision `json:"expected"`
	// Record is the evidence a perfect tracker would build.
	Record rules.Throw `json:"record"`
	Dice   []DieTruth  `json:"dice"`
	Exits  []ExitTruth `json:"exits,omitempty"`
}

// DieTruth is one die of a throw.
type DieTruth struct {
	Die   int    `json:"die"`
	Value int    `json:"value"` // the top face (for a cocked die, the face most upward)
	Style string `json:"style"`
	// Rest position in table mm and its zone (calibration.ZoneAt); absent
	// meaning for a die that left (Exited).
	XMM  float64    `json:"x_mm"`
	YMM  float64    `json:"y_mm"`
	Zone rules.Zone `json:"zone"`
	// Box is the pixel box of the die's visible faces at rest [x0,y0,x1,y1].
	Box          [4]int  `json:"box"`
	Flat         bool    `json:"flat"`
	TiltDeg      float64 `json:"tilt_deg"`
	SizeRatio    float64 `json:"size_ratio"`
	TouchesChips bool    `json:"touches_chips,omitempty"`
	AgainstWall  bool    `json:"against_wall,omitempty"`
	OnDie        *int    `json:"on_die,omitempty"` // stacked: the die it rests on
	// FirstSeenMS / FirstSeenFrame: the first frame with at least half the
	// die's box inside the picture.
	FirstSeenMS    int64 `json:"first_seen_ms"`
	FirstSeenFrame int   `json:"first_seen_frame"`
	// StopMS is when it came to rest (rounded up); 0 for a die that left.
	StopMS    int64 `json:"stop_ms,omitempty"`
	HitWallMS int64 `json:"hit_wall_ms,omitempty"`
	Exited    bool  `json:"exited,omitempty"`
}

// ExitTruth is a die that left the picture during the throw.
type ExitTruth struct {
	Die int `json:"die"`
	// AtMS / Frame: the first frame with less than half of its box inside.
	AtMS  int64      `json:"at_ms"`
	Frame int        `json:"frame"`
	Zone  rules.Zone `json:"zone"`
	// Edge is the image edge it left through: top, bottom, left or right.
	Edge string `json:"edge"`
	// XPx, YPx: its centre in the last frame it was in view.
	XPx float64 `json:"x_px"`
	YPx float64 `json:"y_px"`
}

// FrameTruth is the ground truth of one frame: one line of frames.jsonl.
type FrameTruth struct {
	Frame int   `json:"frame"`
	TMS   int64 `json:"t_ms"`
	// Throw is the throw whose dice are in view, or -1.
	Throw int `json:"throw"`
	// Phase: idle, throwing, at_rest or collecting.
	Phase string     `json:"phase"`
	Dice  []FrameDie `json:"dice,omitempty"`
	Stick bool       `json:"stick,omitempty"`
	// Dropped: the camera lost this frame and the stream repeats the
	// previous frame's picture (the truth describes what it shows).
	Dropped bool    `json:"dropped,omitempty"`
	Gain    float64 `json:"gain"`
}

// FrameDie is a die in one frame.
type FrameDie struct {
	Die    int    `json:"die"`
	Box    [4]int `json:"box"`
	Moving bool   `json:"moving"`
}

// Manifest describes a generated session: session.json.
type Manifest struct {
	Schema        string   `json:"schema"`
	Seed          int64    `json:"seed"`
	Throws        int      `json:"throws"`
	Kinds         []Kind   `json:"kinds"`
	Camera        Camera   `json:"camera"`
	Frames        int      `json:"frames"`
	DurationMS    int64    `json:"duration_ms"`
	DroppedFrames []int    `json:"dropped_frames"`
	Style         string   `json:"style"`
	Files         []string `json:"files"`
}

// ManifestSchema names the manifest format.
const ManifestSchema = "dicewatch.scene.session/1"

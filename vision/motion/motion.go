// Package motion follows one throw through a stream of frames: whether
// anything moves in the landing area, the dice candidates and when each
// first appeared, dice that leave the view and through which edge, and the
// frame at which everything has been still for the settle window (at rest).
//
// Feed it every frame, in order, with the frame's stream time:
//
//	tr := motion.New(motion.Config{ROI: tableBox, DiePx: 16, ZoneOf: zoneOfPixel})
//	defer tr.Close()
//	for {
//		f, err := src.Read(&frame)
//		...
//		r := tr.Update(frame, f.AtMS)
//		if r.AtRest != nil {
//			// read the dice in this same frame
//		}
//	}
//
// How it works: each frame's region of interest is downscaled (so a die is
// about 5 px wide) and compared, as a weighted colour distance, with the
// previous frame (motion) and with a model of the empty table (foreground).
// Foreground blobs are dice candidates, or hands; they are tracked by
// nearest predicted centre. The background adapts slowly and is never
// updated where there is foreground or motion.
//
// The tracker's phases: Idle (empty table) -> Throwing (a blob appeared) ->
// Rested (nothing moved for the settle window: the at-rest event) -> Idle
// again once the table is back to its empty background. A hand or stick
// reaching in while Rested is the stickperson collecting the dice: it never
// starts a new throw; only a new entry after Idle does.
//
// The background starts as the first frame, or as the empty-table picture
// given to SetBackground (do that when the daemon may start mid-throw: a
// die or stick in the first frame would otherwise stay foreground until
// AbsorbMS).
//
// Results are plain structs with no gocv.Mat. The Tracker owns a fixed set
// of Mats reused across frames; Close releases them. It is not safe for
// concurrent use.
package motion

import (
	"image"
	"math"
)

// Phase is where the tracker is in the life of a throw.
type Phase string

// Phases.
const (
	Idle     Phase = "idle"     // the landing area shows the empty table
	Throwing Phase = "throwing" // dice entered; waiting for them to settle
	Rested   Phase = "rested"   // at rest was reported; waiting for the table to clear
)

// Edge is the side of the region of interest a die left through.
type Edge string

// Edges of the region of interest, in image orientation.
const (
	EdgeLeft   Edge = "left"
	EdgeRight  Edge = "right"
	EdgeTop    Edge = "top"
	EdgeBottom Edge = "bottom"
)

// Config tunes a Tracker. Zero values take the defaults shown.
type Config struct {
	// ROI is the landing area in full-frame pixels (the calibrated table
	// region); empty means the whole frame. It is clipped to the frame; a
	// region that misses the frame means the whole frame.
	ROI image.Rectangle
	// DiePx is the expected die edge in full-frame pixels (from the
	// calibration). Default 16.
	DiePx float64
	// Scale is the downscale factor of the working image. Default: the
	// largest integer keeping a die at least 5 working pixels wide.
	Scale int
	// SettleMS is how long nothing may move before the dice are at rest,
	// counted from the frame before the last one that showed change (see
	// AtRest). Default 300.
	SettleMS int64
	// MotionThreshold is the colour distance (grey levels, weighted L1 of
	// B, G, R) above the frame's noise floor that counts a pixel as changed
	// since the previous frame. Default 12.
	MotionThreshold float64
	// ForegroundThreshold is the same against the background model.
	// Default 18.
	ForegroundThreshold float64
	// BackgroundRate is the weight of the current frame in each background
	// update, made every BackgroundEvery frames. Defaults 0.05 and 4.
	BackgroundRate  float64
	BackgroundEvery int
	// ClearMS is how long the landing area must show only background before
	// a rested throw is over and the tracker is idle. Default 150.
	ClearMS int64
	// AbsorbMS: foreground that has not moved for this long while no throw
	// is running (or after at rest) is taken into the background (chips put
	// down, dice left lying). Default 60000.
	AbsorbMS int64
	// ZoneOf, when set, names the zone of an exit point in full-frame pixels
	// (typically calibration ToTable then ZoneAt); it fills Exit.Zone.
	ZoneOf func(x, y float64) string
}

func (c *Config) defaults(w, h int) {
	// A region that misses the frame (a calibration for another camera
	// size) falls back to the whole frame rather than to nothing.
	c.ROI = c.ROI.Intersect(image.Rect(0, 0, w, h))
	if c.ROI.Dx() < 8 || c.ROI.Dy() < 8 {
		c.ROI = image.Rect(0, 0, w, h)
	}
	if c.DiePx <= 0 {
		c.DiePx = 16
	}
	if c.Scale <= 0 {
		c.Scale = int(math.Max(1, math.Floor(c.DiePx/5)))
	}
	if c.SettleMS <= 0 {
		c.SettleMS = 300
	}
	if c.MotionThreshold <= 0 {
		c.MotionThreshold = 12
	}
	if c.ForegroundThreshold <= 0 {
		c.ForegroundThreshold = 18
	}
	if c.BackgroundRate <= 0 {
		c.BackgroundRate = 0.05
	}
	if c.BackgroundEvery <= 0 {
		c.BackgroundEvery = 4
	}
	if c.ClearMS <= 0 {
		c.ClearMS = 150
	}
	if c.AbsorbMS <= 0 {
		c.AbsorbMS = 60000
	}
}

// Candidate is one tracked die candidate (or, when Large, a hand, stick or
// dice clump) in full-frame pixels.
type Candidate struct {
	ID  int             `json:"id"`
	Box image.Rectangle `json:"box"`
	CX  float64         `json:"cx"`
	CY  float64         `json:"cy"`
	// Moving is true when the candidate changed since the previous frame.
	Moving bool `json:"moving"`
	// Large is true when the blob is much bigger than a die at rest.
	Large bool `json:"large,omitempty"`
	// FirstSeenMS and FirstSeenFrame are when this die first appeared:
	// the first frame with about half of it in view (a sliver at the edge
	// does not count yet). A die that separates from a clump keeps the
	// clump's time.
	FirstSeenMS    int64 `json:"first_seen_ms"`
	FirstSeenFrame int   `json:"first_seen_frame"`
}

// Exit is a die that left the view in this frame.
type Exit struct {
	ID int `json:"id"`
	// Edge is the side of the region of interest it left through.
	Edge Edge `json:"edge"`
	// LastX, LastY: its last seen centre; X, Y: where its path crosses the
	// region's border (full-frame px). Zone is ZoneOf(X, Y) when set.
	LastX float64 `json:"last_x"`
	LastY float64 `json:"last_y"`
	X     float64 `json:"x"`
	Y     float64 `json:"y"`
	Zone  string  `json:"zone,omitempty"`
	// AtMS and Frame: the first frame it was no longer seen.
	AtMS           int64 `json:"at_ms"`
	Frame          int   `json:"frame"`
	FirstSeenMS    int64 `json:"first_seen_ms"`
	FirstSeenFrame int   `json:"first_seen_frame"`
}

// AtRest is the deciding frame of a throw: nothing in the landing area has
// moved for the settle window. The dice reader reads this frame.
type AtRest struct {
	Frame int   `json:"frame"`
	AtMS  int64 `json:"at_ms"`
	// LastMotionMS is the time of the last frame that showed change from
	// the frame before it. The dice stopped between that frame and the one
	// before it, at StillSinceMS: the settle window counts from there, so
	// the event comes SettleMS to SettleMS plus one frame after the dice
	// actually stopped.
	LastMotionMS int64 `json:"last_motion_ms"`
	StillSinceMS int64 `json:"still_since_ms"`
	// Dice are the candidates in view at rest.
	Dice []Candidate `json:"dice"`
}

// Result is what one frame showed.
type Result struct {
	Frame int   `json:"frame"` // index of this frame among those given to Update
	AtMS  int64 `json:"at_ms"`
	Phase Phase `json:"phase"` // the phase after this frame
	// Motion is true when something in the landing area moved.
	Motion bool `json:"motion"`
	// Dice are the candidates tracked in this frame.
	Dice []Candidate `json:"dice,omitempty"`
	// Appeared are the IDs of candidates that came into view in this frame
	// (their FirstSeen times may settle a frame or two later, see Candidate).
	Appeared []int `json:"appeared,omitempty"`
	// Exits are dice that left the view in this frame.
	Exits []Exit `json:"exits,omitempty"`
	// AtRest is set on the deciding frame only.
	AtRest *AtRest `json:"at_rest,omitempty"`
	// Started is set on the frame a new throw began (first entry).
	Started bool `json:"started,omitempty"`
	// Clear is set on the frame the table returned to its empty background
	// after a throw.
	Clear bool `json:"clear,omitempty"`
}

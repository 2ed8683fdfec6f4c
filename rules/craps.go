package rules

import "fmt"

// Phase is where a craps game stands.
type Phase string

// Phases.
const (
	ComeOut    Phase = "come_out"
	PointPhase Phase = "point"
)

// Puck is the on/off marker.
type Puck string

// Puck positions.
const (
	PuckOff Puck = "off"
	PuckOn  Puck = "on"
)

// Outcome is what one throw did to the craps game.
type Outcome string

// Craps outcomes. OutcomeNoRoll is an invalid throw: it changes nothing but
// the shooter's invalid-roll streak.
const (
	Natural          Outcome = "natural"
	CrapsOut         Outcome = "craps"
	PointEstablished Outcome = "point_established"
	PointMade        Outcome = "point_made"
	SevenOut         Outcome = "seven_out"
	NoDecision       Outcome = "no_decision"
	OutcomeNoRoll    Outcome = "no_roll"
)

// CrapsState is the craps game between throws. The zero value is not a
// legal state: start from NewCrapsState.
type CrapsState struct {
	Phase Phase `json:"phase"`
	// Point is 4, 5, 6, 8, 9 or 10 in the point phase, 0 on the come-out.
	Point int `json:"point"`
	// InvalidStreak counts the shooter's invalid rolls in a row.
	InvalidStreak int `json:"invalid_streak"`
	// PassAdvisory is set when InvalidStreak reached the profile's
	// threshold: the boxperson may order the shooter to pass (3.7.2,
	// 20:18:33:08 (2)). It is advice to staff, never automatic.
	PassAdvisory bool `json:"pass_advisory"`
	// MustPass is set by a seven-out: the shooter shall pass the dice
	// (3.7.1, 20:18:33:08 (1)).
	MustPass bool `json:"shooter_must_pass"`
	// OffMarker is the 20:18:33:08 mode: the previous shooter rolls with no
	// line bet, the marker off on the don't pass line, only to decide the
	// come and don't come wagers left on the layout.
	OffMarker bool `json:"off_marker"`
}

// NewCrapsState is the state at the start of a shooter's first come-out.
func NewCrapsState() CrapsState { return CrapsState{Phase: ComeOut} }

// Puck is on in the point phase and off on the come-out.
func (s CrapsState) Puck() Puck {
	if s.Phase == PointPhase {
		return PuckOn
	}
	return PuckOff
}

// Legal reports whether the state is one the game can be in.
func (s CrapsState) Legal() bool {
	switch s.Phase {
	case ComeOut:
		if s.Point != 0 {
			return false
		}
	case PointPhase:
		if !isPointNumber(s.Point) || s.OffMarker {
			return false
		}
	default:
		return false
	}
	return s.InvalidStreak >= 0 && !(s.MustPass && s.Phase != ComeOut)
}

func isPointNumber(n int) bool {
	switch n {
	case 4, 5, 6, 8, 9, 10:
		return true
	}
	return false
}

// NewShooter is the state after the dice pass to a new shooter (3.7, 3.8):
// the streak and the must-pass flag clear; the phase and point carry on (a
// shooter who passes voluntarily mid-point leaves the point standing).
func (s CrapsState) NewShooter() CrapsState {
	s.InvalidStreak = 0
	s.PassAdvisory = false
	s.MustPass = false
	s.OffMarker = false
	return s
}

// WithOffMarker enters or leaves the 20:18:33:08 off-marker mode. It is only
// possible on the come-out.
func (s CrapsState) WithOffMarker(on bool) (CrapsState, error) {
	if on && s.Phase != ComeOut {
		return s, fmt.Errorf("rules: craps: off-marker mode needs the come-out, the game is on a point of %d", s.Point)
	}
	s.OffMarker = on
	return s, nil
}

// Apply advances the game by one decided throw. It is pure: the receiver is
// not changed. A throw after a seven-out is the next shooter's (the dice
// have passed), so MustPass clears first. A valid decision must carry two
// values 1..6; otherwise Apply returns an error and the state unchanged.
//
// Come-out: 7 or 11 natural, 2, 3 or 12 craps, else the point is
// established and the puck goes on. Point: the point again is point made
// (back to the come-out, puck off), 7 is seven-out (the shooter must pass),
// anything else no decision. In off-marker mode the shooter has no line
// bet, so a come-out roll that would set a point is a no decision for the
// line and the puck stays off, and a 7 is a loser 7 for the come wagers
// left on the layout: seven-out, the mode ends and the shooter passes.
func (s CrapsState) Apply(d Decision, p Profile) (CrapsState, Outcome, error) {
	p = p.WithDefaults()
	if d.Verdict != Valid && d.Verdict != NoRoll && d.Verdict != Reroll {
		return s, "", fmt.Errorf("rules: craps: unknown verdict %q", d.Verdict)
	}
	if d.Verdict == Valid {
		if len(d.Values) != 2 || !isFace(d.Values[0]) || !isFace(d.Values[1]) {
			return s, "", fmt.Errorf("rules: craps: a valid roll needs two dice 1..6, got %v", d.Values)
		}
	}
	if s.MustPass {
		s = s.NewShooter()
	}
	if d.Verdict != Valid {
		s.InvalidStreak++
		s.PassAdvisory = p.InvalidStreakAdvisory > 0 && s.InvalidStreak >= p.InvalidStreakAdvisory
		return s, OutcomeNoRoll, nil
	}
	s.InvalidStreak = 0
	s.PassAdvisory = false
	total := d.Values[0] + d.Values[1]
	switch s.Phase {
	case ComeOut:
		if s.OffMarker && total == 7 {
			// The 7 decides the come and don't come wagers left on the
			// layout: a loser 7 for them, so the shooter passes.
			s.OffMarker = false
			s.MustPass = true
			return s, SevenOut, nil
		}
		switch total {
		case 7, 11:
			return s, Natural, nil
		case 2, 3, 12:
			return s, CrapsOut, nil
		}
		if s.OffMarker {
			return s, NoDecision, nil
		}
		s.Phase, s.Point = PointPhase, total
		return s, PointEstablished, nil
	default:
		switch total {
		case s.Point:
			s.Phase, s.Point = ComeOut, 0
			return s, PointMade, nil
		case 7:
			s.Phase, s.Point = ComeOut, 0
			s.MustPass = true
			return s, SevenOut, nil
		}
		return s, NoDecision, nil
	}
}

func isFace(v int) bool { return v >= 1 && v <= 6 }

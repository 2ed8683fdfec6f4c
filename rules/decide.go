package rules

import "sort"

// CockedPolicy is what a house does with a die that is not flat.
type CockedPolicy string

// Cocked policies.
const (
	CockedNoRoll CockedPolicy = "no_roll" // a cocked die voids the roll
	CockedRead   CockedPolicy = "read"    // read the face the house rule says (the upper face)
)

// Profile holds the house rules for one table. Zero values are replaced by
// the defaults of DefaultProfile, which follow the reference texts.
type Profile struct {
	Game Game `yaml:"game" json:"game"`
	// Dice is how many dice are thrown (craps and backgammon 2, pai gow and sic bo 3).
	Dice int `yaml:"dice" json:"dice"`
	// Cocked: no_roll (default) or read.
	Cocked CockedPolicy `yaml:"cocked" json:"cocked"`
	// MinConfidence below which a die is unreadable (0..1).
	MinConfidence float64 `yaml:"min_confidence" json:"min_confidence"`
	// StackedSizeRatio at or above which a die is taken to rest on another.
	StackedSizeRatio float64 `yaml:"stacked_size_ratio" json:"stacked_size_ratio"`
	// InvalidStreakAdvisory: this many invalid rolls in a row raise the
	// advisory that the boxperson may order a pass (3.7.2). 0 disables.
	InvalidStreakAdvisory int `yaml:"invalid_streak_advisory" json:"invalid_streak_advisory"`
}

// DefaultProfile returns the reference-text defaults for a game.
func DefaultProfile(g Game) Profile {
	p := Profile{
		Game:                  g,
		Dice:                  2,
		Cocked:                CockedNoRoll,
		MinConfidence:         0.8,
		StackedSizeRatio:      1.12,
		InvalidStreakAdvisory: 3,
	}
	if g == PaiGow || g == SicBo {
		p.Dice = 3
	}
	return p
}

// WithDefaults fills zero fields from DefaultProfile(p.Game).
func (p Profile) WithDefaults() Profile {
	if p.Game == "" {
		p.Game = Craps
	}
	d := DefaultProfile(p.Game)
	if p.Dice == 0 {
		p.Dice = d.Dice
	}
	if p.Cocked == "" {
		p.Cocked = d.Cocked
	}
	if p.MinConfidence == 0 {
		p.MinConfidence = d.MinConfidence
	}
	if p.StackedSizeRatio == 0 {
		p.StackedSizeRatio = d.StackedSizeRatio
	}
	if p.InvalidStreakAdvisory == 0 {
		p.InvalidStreakAdvisory = d.InvalidStreakAdvisory
	}
	return p
}

// Decide gives exactly one decision for a throw under a profile.
//
// Craps (SD 20:18:33:06): a die off the table, in the rail, on another die,
// on the bank or in the bowl voids the roll, as does a staff call; a die that
// touches chips does not. A die the reader is unsure of voids the roll as
// unreadable: the reader never guesses.
func Decide(t Throw, p Profile) Decision {
	p = p.WithDefaults()
	reasons := map[Reason]bool{}
	adv := map[Advisory]bool{}

	for _, f := range t.Faults {
		switch f {
		case "camera":
			reasons[CameraFault] = true
		case "calibration":
			reasons[CalibrationFault] = true
		}
	}
	if len(t.StaffCalls) > 0 {
		reasons[StaffCall] = true
	}
	for _, e := range t.Left {
		if e.Zone == ZoneRail {
			reasons[InRail] = true
		} else {
			reasons[OffTable] = true
		}
	}
	if len(t.Sensors.Faulted) > 0 {
		adv[SensorUntrusted] = true
	}
	if t.Sensors.Bowl && !faulted(t.Sensors, "bowl") {
		reasons[InBowl] = true
	}
	if t.Sensors.HasBackWall && !t.Sensors.BackWall {
		adv[NoBackWall] = true
	}

	values := make([]int, 0, len(t.Dice))
	for _, d := range t.Dice {
		switch d.Zone {
		case ZoneOffTable:
			reasons[OffTable] = true
		case ZoneRail:
			reasons[InRail] = true
		case ZoneBank:
			reasons[OnBank] = true
		case ZoneBowl:
			reasons[InBowl] = true
		}
		if d.TouchesChips {
			adv[HitChips] = true
		}
		if d.SizeRatio >= p.StackedSizeRatio {
			reasons[Stacked] = true
		}
		if !d.Flat && p.Cocked == CockedNoRoll {
			reasons[Cocked] = true
		}
		if d.Value < 1 || d.Value > 6 || d.Confidence < p.MinConfidence {
			reasons[Unreadable] = true
		}
		values = append(values, d.Value)
	}
	if len(t.Dice)+len(t.Left) < t.DiceThrown && !reasons[InBowl] {
		reasons[DiceMissing] = true
	} else if len(t.Dice) < t.DiceThrown && len(t.Left) == 0 && !reasons[InBowl] {
		reasons[DiceMissing] = true
	}

	dec := Decision{Advisories: sortedAdv(adv)}
	if len(reasons) > 0 {
		dec.Verdict = NoRoll
		if p.Game == Backgammon {
			dec.Verdict = Reroll
		}
		dec.Reasons = sortedReasons(reasons)
		return dec
	}
	dec.Verdict = Valid
	dec.Values = values
	for _, v := range values {
		dec.Total += v
	}
	return dec
}

func faulted(s SensorEvidence, role string) bool {
	for _, f := range s.Faulted {
		if f == role {
			return true
		}
	}
	return false
}

func sortedReasons(m map[Reason]bool) []Reason {
	out := make([]Reason, 0, len(m))
	for r := range m {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

func sortedAdv(m map[Advisory]bool) []Advisory {
	if len(m) == 0 {
		return nil
	}
	out := make([]Advisory, 0, len(m))
	for a := range m {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

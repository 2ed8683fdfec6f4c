package rules

import "sort"

// Decide gives exactly one decision for a throw under a profile: Valid with
// the values and total, or NoRoll (Reroll for backgammon) with every reason
// that applies. Advisories never void a roll by themselves.
//
// Every game: a staff call, a camera or calibration fault, a die the reader
// is unsure of (it never guesses), a die resting on another, fewer dice
// found than thrown, or more dice found than thrown void the throw.
//
// Craps (SD 20:18:33:06): a die off the table, in the rail or on another die
// (1), on the bank (2), or entering or resting in the bowl (3) voids the
// roll; a die that touches chips does not. Cocked dice follow the profile.
// Dice that did not leave the hand together, or a throw that missed the back
// wall, are advisories: only staff may call "no roll" for those.
//
// Backgammon (4.2): both dice must rest flat to the right of the bar and must
// both leave the cup before either touches the board; otherwise Reroll. With
// a baffle box the cup check is not made.
//
// Pai gow and sic bo: every die must be flat and read.
func Decide(t Throw, p Profile) Decision {
	p = p.WithDefaults()
	reasons := map[Reason]bool{}
	adv := map[Advisory]bool{}
	thrown := t.DiceThrown
	if thrown <= 0 {
		thrown = p.Dice
	}

	for _, f := range t.Faults {
		switch f {
		case "calibration":
			reasons[CalibrationFault] = true
		default:
			// Any other named fault is equipment we relied on: never valid.
			reasons[CameraFault] = true
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
	bowl := t.Sensors.Bowl && !faulted(t.Sensors, "bowl")
	if p.Game == Craps {
		if bowl {
			reasons[InBowl] = true // 20:18:33:06 (3): "enter or come to rest"
		}
		if t.Sensors.HasBackWall && !t.Sensors.BackWall && !faulted(t.Sensors, "back_wall") {
			adv[NoBackWall] = true // 20:18:33:06 staff call (2)
		}
	}

	values := make([]int, 0, len(t.Dice))
	for _, d := range t.Dice {
		zoneReasons(p.Game, d.Zone, reasons)
		if d.TouchesChips {
			adv[HitChips] = true // 20:18:33:06: not a cause for "no roll"
		}
		if d.SizeRatio >= p.StackedSizeRatio {
			reasons[Stacked] = true
		}
		if !d.Flat && cockedVoids(p, d) {
			reasons[Cocked] = true
		}
		if d.Value < 1 || d.Value > 6 || d.Confidence < p.MinConfidence {
			reasons[Unreadable] = true
		}
		values = append(values, d.Value)
	}
	switch {
	case len(t.Dice)+len(t.Left) < thrown && !(bowl && p.Game == Craps):
		reasons[DiceMissing] = true
	case len(t.Dice) > thrown:
		// More dice at rest than were thrown: the reader cannot tell which
		// are the shooter's, so it does not guess.
		reasons[Unreadable] = true
	}
	if gap, ok := firstSeenGap(t.Dice); len(t.Dice) > 1 {
		switch {
		case p.Game == Backgammon && !p.BaffleBox && (!ok || gap > int64(p.SimultaneousMS)):
			reasons[NotSimultaneous] = true // 4.2
		case p.Game == Craps && ok && gap > int64(p.SimultaneousMS):
			adv[NotSimultaneousAdv] = true // 20:18:33:06 staff call (1)
		}
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

// zoneReasons adds the reasons a die's resting zone gives under a game.
func zoneReasons(g Game, z Zone, reasons map[Reason]bool) {
	switch z {
	case ZoneOffTable:
		reasons[OffTable] = true
		return
	case ZoneRail:
		reasons[InRail] = true
		return
	}
	switch g {
	case Craps:
		switch z {
		case ZoneBank:
			reasons[OnBank] = true
		case ZoneBowl:
			reasons[InBowl] = true
		case ZoneLayout, ZoneBackWall:
		default:
			// Not part of a craps layout: the calibration is wrong or the
			// die is somewhere the reader cannot vouch for.
			reasons[Unreadable] = true
		}
	case Backgammon:
		// The calibration must name the playing surface right of the bar
		// bar_right; anywhere else is not a valid resting place.
		if z != ZoneBarRight {
			reasons[WrongSide] = true // 4.2: "to the right of the bar"
		}
	case PaiGow, SicBo:
		if z != ZoneShaker && z != ZoneLayout {
			reasons[Unreadable] = true
		}
	}
}

// cockedVoids reports whether a die that is not flat voids the throw.
func cockedVoids(p Profile, d Die) bool {
	if p.Game != Craps {
		return true // backgammon 4.2; pai gow and sic bo need every die flat
	}
	if d.TouchesChips {
		return p.CockedAgainstChips != CockedRead
	}
	return p.Cocked != CockedRead
}

// firstSeenGap is the spread of first-appearance times; ok is false when any
// die has no first-appearance evidence (FirstSeenMS 0).
func firstSeenGap(dice []Die) (int64, bool) {
	if len(dice) == 0 {
		return 0, false
	}
	lo, hi := dice[0].FirstSeenMS, dice[0].FirstSeenMS
	for _, d := range dice {
		if d.FirstSeenMS == 0 {
			return 0, false
		}
		lo = min(lo, d.FirstSeenMS)
		hi = max(hi, d.FirstSeenMS)
	}
	return hi - lo, true
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

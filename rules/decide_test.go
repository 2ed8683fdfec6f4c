package rules

import (
	"reflect"
	"testing"
)

// d is a flat, confidently read die on the layout.
func d(v int) Die {
	return Die{Value: v, Confidence: 0.99, Zone: ZoneLayout, Flat: true, Flatness: 0.98, SizeRatio: 1}
}

func in(z Zone, x Die) Die { x.Zone = z; return x }

func cocked(x Die) Die { x.Flat = false; x.Flatness = 0.6; return x }

func chips(x Die) Die { x.TouchesChips = true; return x }

func seen(ms int64, x Die) Die { x.FirstSeenMS = ms; return x }

func craps(dice ...Die) Throw { return Throw{Game: Craps, DiceThrown: 2, Dice: dice} }

func TestDecideCraps(t *testing.T) {
	read := DefaultProfile(Craps)
	read.Cocked = CockedRead
	readChipsOnly := DefaultProfile(Craps)
	readChipsOnly.CockedAgainstChips = CockedRead
	tests := []struct {
		rule string
		name string
		in   Throw
		p    Profile
		want Decision
	}{
		{"20:18:33:06", "two dice flat on the layout are a valid roll", craps(d(3), d(4)), Profile{}, Decision{Verdict: Valid, Values: []int{3, 4}, Total: 7}},
		{"20:18:33:06 (1)", "a die resting off the table", craps(d(3), in(ZoneOffTable, d(4))), Profile{}, Decision{Verdict: NoRoll, Reasons: []Reason{OffTable}}},
		{"20:18:33:06 (1)", "a die that left the view over the edge", Throw{Game: Craps, DiceThrown: 2, Dice: []Die{d(2)}, Left: []Exit{{Zone: ZoneOffTable, AtMS: 400}}}, Profile{}, Decision{Verdict: NoRoll, Reasons: []Reason{OffTable}}},
		{"20:18:33:06 (1)", "a die that left the view into the rail", Throw{Game: Craps, DiceThrown: 2, Dice: []Die{d(2)}, Left: []Exit{{Zone: ZoneRail}}}, Profile{}, Decision{Verdict: NoRoll, Reasons: []Reason{InRail}}},
		{"20:18:33:06 (1)", "a die at rest in the rail", craps(in(ZoneRail, d(6)), d(1)), Profile{}, Decision{Verdict: NoRoll, Reasons: []Reason{InRail}}},
		{"20:18:33:06 (1)", "one die on top of the other", craps(d(5), Die{Value: 2, Confidence: 0.99, Zone: ZoneLayout, Flat: true, SizeRatio: 1.2}), Profile{}, Decision{Verdict: NoRoll, Reasons: []Reason{Stacked}}},
		{"20:18:33:06 (2)", "a die on the bank in front of the boxperson", craps(in(ZoneBank, d(5)), d(2)), Profile{}, Decision{Verdict: NoRoll, Reasons: []Reason{OnBank}}},
		{"20:18:33:06 (3)", "a die at rest in the bowl", craps(in(ZoneBowl, d(5)), d(2)), Profile{}, Decision{Verdict: NoRoll, Reasons: []Reason{InBowl}}},
		{"20:18:33:06 (3)", "a die entered the bowl (sensor) and is not seen", Throw{Game: Craps, DiceThrown: 2, Dice: []Die{d(2)}, Sensors: SensorEvidence{Bowl: true}}, Profile{}, Decision{Verdict: NoRoll, Reasons: []Reason{InBowl}}},
		{"20:18:33:06 (3)", "a faulted bowl sensor is not evidence", Throw{Game: Craps, DiceThrown: 2, Dice: []Die{d(2), d(3)}, Sensors: SensorEvidence{Bowl: true, Faulted: []string{"bowl"}}}, Profile{}, Decision{Verdict: Valid, Values: []int{2, 3}, Total: 5, Advisories: []Advisory{SensorUntrusted}}},
		{"20:18:33:06 staff call", "staff call voids a good-looking roll", Throw{Game: Craps, DiceThrown: 2, Dice: []Die{d(6), d(1)}, StaffCalls: []StaffCallRecord{{Operator: "op1", Role: "boxperson", Cause: "not simultaneous"}}}, Profile{}, Decision{Verdict: NoRoll, Reasons: []Reason{StaffCall}}},
		{"20:18:33:06 chips", "a die touching chips is not a cause", craps(chips(d(4)), d(4)), Profile{}, Decision{Verdict: Valid, Values: []int{4, 4}, Total: 8, Advisories: []Advisory{HitChips}}},
		{"20:18:33:06 staff call (2)", "no back-wall hit is advice only", Throw{Game: Craps, DiceThrown: 2, Dice: []Die{d(1), d(2)}, Sensors: SensorEvidence{HasBackWall: true}}, Profile{}, Decision{Verdict: Valid, Values: []int{1, 2}, Total: 3, Advisories: []Advisory{NoBackWall}}},
		{"20:18:33:06 staff call (2)", "back wall hit gives no advisory", Throw{Game: Craps, DiceThrown: 2, Dice: []Die{d(1), d(2)}, Sensors: SensorEvidence{HasBackWall: true, BackWall: true}}, Profile{}, Decision{Verdict: Valid, Values: []int{1, 2}, Total: 3}},
		{"20:18:33:06 staff call (2)", "a faulted back-wall sensor gives no advisory", Throw{Game: Craps, DiceThrown: 2, Dice: []Die{d(1), d(2)}, Sensors: SensorEvidence{HasBackWall: true, Faulted: []string{"back_wall"}}}, Profile{}, Decision{Verdict: Valid, Values: []int{1, 2}, Total: 3, Advisories: []Advisory{SensorUntrusted}}},
		{"20:18:33:06 staff call (1)", "dice not leaving the hand together is advice only", craps(seen(1000, d(1)), seen(1400, d(2))), Profile{}, Decision{Verdict: Valid, Values: []int{1, 2}, Total: 3, Advisories: []Advisory{NotSimultaneousAdv}}},
		{"20:18:33:06 staff call (1)", "dice within the window", craps(seen(1000, d(1)), seen(1100, d(2))), Profile{}, Decision{Verdict: Valid, Values: []int{1, 2}, Total: 3}},
		{"profile cocked", "cocked die is a no roll by default", craps(cocked(d(3)), d(3)), Profile{}, Decision{Verdict: NoRoll, Reasons: []Reason{Cocked}}},
		{"profile cocked", "cocked die is read when the house reads it", craps(cocked(d(3)), d(3)), read, Decision{Verdict: Valid, Values: []int{3, 3}, Total: 6}},
		{"profile cocked", "read policy still needs a sure reading", craps(cocked(Die{Value: 3, Confidence: 0.5, Zone: ZoneLayout, SizeRatio: 1}), d(3)), read, Decision{Verdict: NoRoll, Reasons: []Reason{Unreadable}}},
		{"profile cocked_against_chips", "cocked against chips is read, cocked elsewhere is not", craps(cocked(chips(d(2))), d(5)), readChipsOnly, Decision{Verdict: Valid, Values: []int{2, 5}, Total: 7, Advisories: []Advisory{HitChips}}},
		{"profile cocked_against_chips", "cocked on open layout under the chips-only house rule", craps(cocked(d(2)), d(5)), readChipsOnly, Decision{Verdict: NoRoll, Reasons: []Reason{Cocked}}},
		{"never guess", "a die below the confidence floor", craps(Die{Value: 4, Confidence: 0.5, Zone: ZoneLayout, Flat: true, SizeRatio: 1}, d(3)), Profile{}, Decision{Verdict: NoRoll, Reasons: []Reason{Unreadable}}},
		{"never guess", "a die with no value", craps(Die{Confidence: 0.99, Zone: ZoneLayout, Flat: true, SizeRatio: 1}, d(3)), Profile{}, Decision{Verdict: NoRoll, Reasons: []Reason{Unreadable}}},
		{"never guess", "a die on a zone craps has none of", craps(in(ZoneShaker, d(2)), d(3)), Profile{}, Decision{Verdict: NoRoll, Reasons: []Reason{Unreadable}}},
		{"never guess", "an unknown zone name", craps(in("porch", d(2)), d(3)), Profile{}, Decision{Verdict: NoRoll, Reasons: []Reason{Unreadable}}},
		{"20:18:33:06", "a die resting against the back wall is on the table", craps(in(ZoneBackWall, d(2)), d(3)), Profile{}, Decision{Verdict: Valid, Values: []int{2, 3}, Total: 5}},
		{"never guess", "three dice at rest after a two-dice throw", craps(d(1), d(2), d(3)), Profile{}, Decision{Verdict: NoRoll, Reasons: []Reason{Unreadable}}},
		{"dice_missing", "one die found, nothing seen leaving", craps(d(4)), Profile{}, Decision{Verdict: NoRoll, Reasons: []Reason{DiceMissing}}},
		{"dice_missing", "DiceThrown 0 takes the profile's count", Throw{Game: Craps, Dice: []Die{d(4)}}, Profile{}, Decision{Verdict: NoRoll, Reasons: []Reason{DiceMissing}}},
		{"faults", "camera fault voids the throw", Throw{Game: Craps, DiceThrown: 2, Dice: []Die{d(1), d(1)}, Faults: []string{"camera"}}, Profile{}, Decision{Verdict: NoRoll, Reasons: []Reason{CameraFault}}},
		{"faults", "calibration fault voids the throw", Throw{Game: Craps, DiceThrown: 2, Dice: []Die{d(1), d(1)}, Faults: []string{"calibration"}}, Profile{}, Decision{Verdict: NoRoll, Reasons: []Reason{CalibrationFault}}},
		{"faults", "an unnamed equipment fault is never valid", Throw{Game: Craps, DiceThrown: 2, Dice: []Die{d(1), d(1)}, Faults: []string{"lamp"}}, Profile{}, Decision{Verdict: NoRoll, Reasons: []Reason{CameraFault}}},
		{"20:18:33:06 (1)(2)(3)", "every reason that applies is listed, sorted", Throw{Game: Craps, DiceThrown: 2, Dice: []Die{in(ZoneBank, d(2)), in(ZoneBowl, d(3))}, StaffCalls: []StaffCallRecord{{Operator: "op"}}}, Profile{}, Decision{Verdict: NoRoll, Reasons: []Reason{InBowl, OnBank, StaffCall}}},
	}
	for _, tc := range tests {
		t.Run(tc.rule+"/"+tc.name, func(t *testing.T) {
			p := tc.p
			if p.Game == "" {
				p = DefaultProfile(Craps)
			}
			got := Decide(tc.in, p)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func bg(dice ...Die) Throw { return Throw{Game: Backgammon, DiceThrown: 2, Dice: dice} }

func right(ms int64, v int) Die { return seen(ms, in(ZoneBarRight, d(v))) }

func TestDecideBackgammon(t *testing.T) {
	baffle := DefaultProfile(Backgammon)
	baffle.BaffleBox = true
	read := DefaultProfile(Backgammon)
	read.Cocked = CockedRead
	tests := []struct {
		rule string
		name string
		in   Throw
		p    Profile
		want Decision
	}{
		{"4.2", "both flat right of the bar, left the cup together", bg(right(500, 6), right(520, 5)), Profile{}, Decision{Verdict: Valid, Values: []int{6, 5}, Total: 11}},
		{"4.2", "a die left of the bar", bg(right(500, 6), seen(510, in(ZoneBarLeft, d(5)))), Profile{}, Decision{Verdict: Reroll, Reasons: []Reason{WrongSide}}},
		{"4.2", "a die on the bar", bg(right(500, 6), seen(510, in(ZoneBar, d(5)))), Profile{}, Decision{Verdict: Reroll, Reasons: []Reason{WrongSide}}},
		{"4.2", "a cocked die is rerolled", bg(right(500, 6), cocked(right(510, 5))), Profile{}, Decision{Verdict: Reroll, Reasons: []Reason{Cocked}}},
		{"4.2", "cocked is rerolled even if the profile says read", bg(right(500, 6), cocked(right(510, 5))), read, Decision{Verdict: Reroll, Reasons: []Reason{Cocked}}},
		{"4.2", "one die touched the board before the other left the cup", bg(right(500, 6), right(900, 5)), Profile{}, Decision{Verdict: Reroll, Reasons: []Reason{NotSimultaneous}}},
		{"4.2", "no first-appearance evidence cannot show both left the cup", bg(in(ZoneBarRight, d(6)), in(ZoneBarRight, d(5))), Profile{}, Decision{Verdict: Reroll, Reasons: []Reason{NotSimultaneous}}},
		{"4.2 baffle box", "a baffle box casts both at once: no cup check", bg(in(ZoneBarRight, d(6)), in(ZoneBarRight, d(5))), baffle, Decision{Verdict: Valid, Values: []int{6, 5}, Total: 11}},
		{"4.2 baffle box", "a baffle box roll still must rest flat right of the bar", bg(in(ZoneBarLeft, d(6)), in(ZoneBarRight, d(5))), baffle, Decision{Verdict: Reroll, Reasons: []Reason{WrongSide}}},
		{"4.2", "off the board", Throw{Game: Backgammon, DiceThrown: 2, Dice: []Die{right(500, 3)}, Left: []Exit{{Zone: ZoneOffTable}}}, Profile{}, Decision{Verdict: Reroll, Reasons: []Reason{OffTable}}},
		{"4.2 opening roll", "one die per player is valid on its own", Throw{Game: Backgammon, DiceThrown: 1, Dice: []Die{right(500, 4)}}, Profile{}, Decision{Verdict: Valid, Values: []int{4}, Total: 4}},
	}
	for _, tc := range tests {
		t.Run(tc.rule+"/"+tc.name, func(t *testing.T) {
			p := tc.p
			if p.Game == "" {
				p = DefaultProfile(Backgammon)
			}
			got := Decide(tc.in, p)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestDecideThreeDice(t *testing.T) {
	sh := func(v int) Die { return in(ZoneShaker, d(v)) }
	tests := []struct {
		rule string
		name string
		game Game
		in   []Die
		want Decision
	}{
		{"paigow 13", "three flat dice read in the shaker", PaiGow, []Die{sh(3), sh(5), sh(6)}, Decision{Verdict: Valid, Values: []int{3, 5, 6}, Total: 14}},
		{"paigow 13", "a cocked die", PaiGow, []Die{sh(3), cocked(sh(5)), sh(6)}, Decision{Verdict: NoRoll, Reasons: []Reason{Cocked}}},
		{"paigow 13", "an unread die", PaiGow, []Die{sh(3), {Zone: ZoneShaker, Flat: true, SizeRatio: 1}, sh(6)}, Decision{Verdict: NoRoll, Reasons: []Reason{Unreadable}}},
		{"paigow 13", "two dice found", PaiGow, []Die{sh(3), sh(6)}, Decision{Verdict: NoRoll, Reasons: []Reason{DiceMissing}}},
		{"paigow 13", "a die outside the shaker is not vouched for", PaiGow, []Die{sh(3), in(ZoneBank, d(2)), sh(6)}, Decision{Verdict: NoRoll, Reasons: []Reason{Unreadable}}},
		{"sicbo", "three flat dice", SicBo, []Die{sh(1), sh(1), sh(1)}, Decision{Verdict: Valid, Values: []int{1, 1, 1}, Total: 3}},
		{"sicbo", "one on another", SicBo, []Die{sh(1), sh(2), {Value: 4, Confidence: 1, Zone: ZoneShaker, Flat: true, SizeRatio: 1.3}}, Decision{Verdict: NoRoll, Reasons: []Reason{Stacked}}},
		{"sicbo", "cocked is never read in sic bo", SicBo, []Die{sh(1), sh(2), cocked(sh(4))}, Decision{Verdict: NoRoll, Reasons: []Reason{Cocked}}},
	}
	for _, tc := range tests {
		t.Run(tc.rule+"/"+tc.name, func(t *testing.T) {
			p := DefaultProfile(tc.game)
			p.Cocked = CockedRead // must not matter for three-dice games
			got := Decide(Throw{Game: tc.game, Dice: tc.in}, p)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

package rules

import (
	"reflect"
	"testing"
)

func TestOpeningRoll(t *testing.T) {
	one := func(v int) Decision { return Decision{Verdict: Valid, Values: []int{v}, Total: v} }
	tests := []struct {
		rule   string
		p1, p2 Decision
		want   Opening
	}{
		{"opening: higher die moves first", one(5), one(2), Opening{First: 1, Values: []int{5, 2}}},
		{"opening: player two higher", one(1), one(6), Opening{First: 2, Values: []int{6, 1}}},
		{"opening: ties are rerolled", one(4), one(4), Opening{Reroll: true}},
		{"4.2: an invalid die is rerolled", Decision{Verdict: Reroll, Reasons: []Reason{Cocked}}, one(3), Opening{Reroll: true}},
		{"opening: one die each", Decision{Verdict: Valid, Values: []int{3, 4}, Total: 7}, one(3), Opening{Reroll: true}},
		{"opening: value out of range", one(7), one(3), Opening{Reroll: true}},
	}
	for _, tc := range tests {
		t.Run(tc.rule, func(t *testing.T) {
			if got := OpeningRoll(tc.p1, tc.p2); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestOpeningRollFromThrows(t *testing.T) {
	p := DefaultProfile(Backgammon)
	d1 := Decide(Throw{Game: Backgammon, DiceThrown: 1, Dice: []Die{right(100, 6)}}, p)
	d2 := Decide(Throw{Game: Backgammon, DiceThrown: 1, Dice: []Die{seen(100, in(ZoneBarLeft, d(2)))}}, p)
	if got := OpeningRoll(d1, d2); !got.Reroll {
		t.Errorf("4.2: a die left of the bar must make the opening a reroll, got %+v", got)
	}
}

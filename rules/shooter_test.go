package rules

import (
	"reflect"
	"testing"
)

func TestNextShooter(t *testing.T) {
	all := DefaultProfile(Craps)
	all.OfferDiceToAll = true
	pl := func(seat int, line, accepts bool) Player { return Player{Seat: seat, LineBet: line, Accepts: accepts} }
	tests := []struct {
		rule string
		o    ShooterOffer
		p    Profile
		want ShooterChoice
	}{
		{"3.2: opening offer starts immediately left of the boxperson",
			ShooterOffer{Seats: 12, LeftOfBox: 7, Players: []Player{pl(2, false, true), pl(7, false, true), pl(9, false, true)}},
			Profile{}, ShooterChoice{Offered: []int{7}, Kind: ShooterPlayer, Seat: 7}},
		{"3.2: then clockwise, wrapping past the last seat",
			ShooterOffer{Seats: 12, LeftOfBox: 7, Players: []Player{pl(2, false, true), pl(9, false, false), pl(11, false, false)}},
			Profile{}, ShooterChoice{Offered: []int{9, 11, 2}, Kind: ShooterPlayer, Seat: 2}},
		{"3.8.1: to the line bettor immediately left of the previous shooter",
			ShooterOffer{Seats: 12, LeftOfBox: 1, Previous: 4, Players: []Player{pl(4, true, true), pl(5, false, true), pl(6, true, true)}},
			Profile{}, ShooterChoice{Offered: []int{6}, Kind: ShooterPlayer, Seat: 6}},
		{"3.8.2: then the next line bettor clockwise; the previous shooter is not offered",
			ShooterOffer{Seats: 8, LeftOfBox: 1, Previous: 7, Players: []Player{pl(7, true, true), pl(8, true, false), pl(1, false, true), pl(3, true, true)}},
			Profile{}, ShooterChoice{Offered: []int{8, 3}, Kind: ShooterPlayer, Seat: 3}},
		{"20:18:33:08: with offer_dice_to_all every player in turn",
			ShooterOffer{Seats: 8, LeftOfBox: 1, Previous: 7, Players: []Player{pl(8, true, false), pl(1, false, true), pl(3, true, true)}},
			all, ShooterChoice{Offered: []int{8, 1}, Kind: ShooterPlayer, Seat: 1}},
		{"3.9: no taker and undetermined wagers: the stickperson throws",
			ShooterOffer{Seats: 8, LeftOfBox: 1, Previous: 2, Undetermined: true, Players: []Player{pl(3, true, false), pl(5, false, true)}},
			Profile{}, ShooterChoice{Offered: []int{3}, Kind: ShooterStickperson}},
		{"3.9: no taker and nothing at stake",
			ShooterOffer{Seats: 8, LeftOfBox: 1, Previous: 2, Players: []Player{pl(3, true, false)}},
			Profile{}, ShooterChoice{Offered: []int{3}, Kind: ShooterNone}},
		{"20:18:33:08: point made, no line bet, come wagers remain: others offered first",
			ShooterOffer{Seats: 8, LeftOfBox: 1, Previous: 2, MadePointNoLineBet: true, Undetermined: true, Players: []Player{pl(2, false, true), pl(3, false, false), pl(6, false, true)}},
			Profile{}, ShooterChoice{Offered: []int{3, 6}, Kind: ShooterPlayer, Seat: 6}},
		{"20:18:33:08: nobody takes the dice: the previous shooter rolls, marker off",
			ShooterOffer{Seats: 8, LeftOfBox: 1, Previous: 2, MadePointNoLineBet: true, Undetermined: true, Players: []Player{pl(2, false, true), pl(3, false, false)}},
			Profile{}, ShooterChoice{Offered: []int{3}, Kind: ShooterOffMarker, Seat: 2}},
		{"20:18:33:08: no other players at the table",
			ShooterOffer{Seats: 8, LeftOfBox: 1, Previous: 2, MadePointNoLineBet: true, Undetermined: true, Players: []Player{pl(2, false, true)}},
			Profile{}, ShooterChoice{Offered: []int{}, Kind: ShooterOffMarker, Seat: 2}},
	}
	for _, tc := range tests {
		t.Run(tc.rule, func(t *testing.T) {
			got, err := NextShooter(tc.o, tc.p)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestNextShooterRejects(t *testing.T) {
	for _, o := range []ShooterOffer{
		{Seats: 0, LeftOfBox: 1},
		{Seats: 8, LeftOfBox: 9},
		{Seats: 8, LeftOfBox: 1, Previous: 9},
		{Seats: 8, LeftOfBox: 1, Players: []Player{{Seat: 3}, {Seat: 3}}},
		{Seats: 8, LeftOfBox: 1, Players: []Player{{Seat: 0}}},
		{Seats: 8, LeftOfBox: 1, MadePointNoLineBet: true},
	} {
		if _, err := NextShooter(o, Profile{}); err == nil {
			t.Errorf("%+v: want an error", o)
		}
	}
}

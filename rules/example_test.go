package rules_test

import (
	"fmt"

	"github.com/dicewatch/dicewatch/rules"
)

func ExampleDecide() {
	die := func(v int, z rules.Zone) rules.Die {
		return rules.Die{Value: v, Confidence: 0.97, Zone: z, Flat: true, SizeRatio: 1}
	}
	p := rules.DefaultProfile(rules.Craps)
	fmt.Println(rules.Decide(rules.Throw{Game: rules.Craps, DiceThrown: 2,
		Dice: []rules.Die{die(5, rules.ZoneLayout), die(6, rules.ZoneLayout)}}, p))
	fmt.Println(rules.Decide(rules.Throw{Game: rules.Craps, DiceThrown: 2,
		Dice: []rules.Die{die(5, rules.ZoneBank), die(6, rules.ZoneLayout)}}, p))
	// Output:
	// {valid [5 6] 11 [] []}
	// {no_roll [] 0 [on_bank] []}
}

func ExamplePaiGowDeal() {
	d, _ := rules.PaiGowDeal([]int{3, 5, 6}, 1, 7)
	fmt.Println(d.First, d.Order)
	// Output: 7 [7 1 2 3 4 5 6]
}

func ExampleSettle() {
	r, _ := rules.Settle(rules.Settlement{
		Mode: rules.PlayerBanker, Areas: 7, Chung: 4, BankerWager: 1000,
		Hands: []rules.HandWager{{Area: 5, Wager: 300, Result: rules.Lose}, {Area: 6, Wager: 100, Result: rules.Win}},
	}, rules.DefaultProfile(rules.PaiGow))
	for _, h := range r.Hands {
		fmt.Println("area", h.Area, "net", h.Net)
	}
	fmt.Println("banker", r.Banker.Net, "house", r.House.Net, "conserved", r.Conserved())
	// Output:
	// area 5 net -300
	// area 6 net 95
	// banker 190 house 15 conserved true
}

func ExampleNextShooter() {
	c, _ := rules.NextShooter(rules.ShooterOffer{
		Seats: 8, LeftOfBox: 1, Previous: 3,
		Players: []rules.Player{{Seat: 4, LineBet: false, Accepts: true}, {Seat: 6, LineBet: true, Accepts: true}},
	}, rules.Profile{})
	fmt.Println(c.Kind, c.Seat, c.Offered)
	// Output: player 6 [6]
}

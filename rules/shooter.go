package rules

import (
	"fmt"
	"sort"
)

// Seats are numbered 1..N clockwise as seen from above; "to the left of" a
// seat is the next seat clockwise.

// Player is an occupied seat at a craps table when the dice are offered.
type Player struct {
	Seat int `json:"seat"`
	// LineBet is set when the player has a pass or don't pass (Win Line or
	// Don't Win) wager.
	LineBet bool `json:"line_bet"`
	// Accepts is the player's answer when offered the dice.
	Accepts bool `json:"accepts"`
}

// ShooterOffer is the situation when the dice are to be offered.
type ShooterOffer struct {
	// Seats is how many seats the table has (numbered 1..Seats clockwise).
	Seats int `json:"seats"`
	// LeftOfBox is the seat immediately to the left of the boxperson.
	LeftOfBox int `json:"left_of_box"`
	// Previous is the previous shooter's seat; 0 at the commencement of
	// play (3.2).
	Previous int      `json:"previous"`
	Players  []Player `json:"players"`
	// Undetermined is set when any wager on the layout is still undecided
	// (3.9).
	Undetermined bool `json:"undetermined"`
	// MadePointNoLineBet is the 20:18:33:08 case: the previous shooter made
	// the point, then placed no pass or don't pass bet while come or don't
	// come wagers remain on the layout.
	MadePointNoLineBet bool `json:"made_point_no_line_bet"`
}

// ShooterKind says who throws next.
type ShooterKind string

// Who throws.
const (
	ShooterPlayer      ShooterKind = "player"      // a player accepted the dice
	ShooterStickperson ShooterKind = "stickperson" // 3.9: nobody accepted and wagers are undetermined
	ShooterOffMarker   ShooterKind = "off_marker"  // 20:18:33:08: the previous shooter, marker off
	ShooterNone        ShooterKind = "none"        // nobody accepted and nothing is at stake
)

// ShooterChoice is the result of offering the dice.
type ShooterChoice struct {
	// Offered lists, in order, the seats offered the dice up to and
	// including the one that accepted.
	Offered []int       `json:"offered"`
	Kind    ShooterKind `json:"kind"`
	// Seat is the new shooter's seat (0 for the stickperson or none).
	Seat int `json:"seat"`
}

// clockwiseFrom lists the seats of players clockwise, starting with the
// first occupied seat at or after start.
func clockwiseFrom(seats, start int, players []Player) []Player {
	ps := append([]Player(nil), players...)
	dist := func(s int) int { return ((s-start)%seats + seats) % seats }
	sort.SliceStable(ps, func(i, j int) bool { return dist(ps[i].Seat) < dist(ps[j].Seat) })
	return ps
}

// NextShooter offers the dice under the profile's house rules.
//
//   - Commencement (Previous 0): to the player immediately to the left of
//     the boxperson, then each other player clockwise (3.2).
//   - After a shooter relinquishes the dice: to the player with a line
//     wager immediately to the left of the previous shooter, then the next
//     such player clockwise (3.8). With OfferDiceToAll, every player in
//     turn (20:18:33:08, last paragraph). The previous shooter is not
//     offered the dice again.
//   - MadePointNoLineBet (20:18:33:08): the players to the left of the
//     previous shooter are offered the dice; a player must make a line bet
//     to shoot. If nobody accepts, the previous shooter shoots with the
//     marker off only to decide the come and don't come wagers.
//   - Nobody accepting while wagers are undetermined: the stickperson
//     throws until a decision or a 7 out (3.9).
func NextShooter(o ShooterOffer, p Profile) (ShooterChoice, error) {
	if o.Seats < 1 {
		return ShooterChoice{}, fmt.Errorf("rules: shooter: a table needs at least one seat, got %d", o.Seats)
	}
	if o.LeftOfBox < 1 || o.LeftOfBox > o.Seats || o.Previous < 0 || o.Previous > o.Seats {
		return ShooterChoice{}, fmt.Errorf("rules: shooter: seat out of range 1..%d (left of box %d, previous %d)", o.Seats, o.LeftOfBox, o.Previous)
	}
	seen := map[int]bool{}
	for _, pl := range o.Players {
		if pl.Seat < 1 || pl.Seat > o.Seats || seen[pl.Seat] {
			return ShooterChoice{}, fmt.Errorf("rules: shooter: player seat %d is out of range 1..%d or taken twice", pl.Seat, o.Seats)
		}
		seen[pl.Seat] = true
	}
	if o.MadePointNoLineBet && o.Previous == 0 {
		return ShooterChoice{}, fmt.Errorf("rules: shooter: made the point with no line bet needs a previous shooter")
	}

	start := o.LeftOfBox
	if o.Previous != 0 {
		start = o.Previous%o.Seats + 1
	}
	c := ShooterChoice{Offered: []int{}}
	for _, pl := range clockwiseFrom(o.Seats, start, o.Players) {
		if o.Previous != 0 {
			if pl.Seat == o.Previous {
				continue
			}
			// 3.8 offers only to line bettors; 20:18:33:08 to every player
			// (who must then make a line bet to shoot).
			if !pl.LineBet && !p.OfferDiceToAll && !o.MadePointNoLineBet {
				continue
			}
		}
		c.Offered = append(c.Offered, pl.Seat)
		if pl.Accepts {
			c.Kind, c.Seat = ShooterPlayer, pl.Seat
			return c, nil
		}
	}
	switch {
	case o.MadePointNoLineBet:
		c.Kind, c.Seat = ShooterOffMarker, o.Previous
	case o.Undetermined:
		c.Kind = ShooterStickperson
	default:
		c.Kind = ShooterNone
	}
	return c, nil
}

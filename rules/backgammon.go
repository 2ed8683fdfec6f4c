package rules

// Opening is the result of a backgammon opening roll: each player rolls one
// die; the higher die moves first, playing both numbers; a tie, or either
// die not validly rolled (4.2), is rolled again.
type Opening struct {
	Reroll bool `json:"reroll"`
	// First is 1 or 2, the player who moves first (0 on a reroll).
	First int `json:"first"`
	// Values are the numbers the first player plays: their die, then the
	// other player's.
	Values []int `json:"values,omitempty"`
}

// OpeningRoll decides the opening roll from each player's one-die decision.
func OpeningRoll(p1, p2 Decision) Opening {
	if p1.Verdict != Valid || p2.Verdict != Valid || len(p1.Values) != 1 || len(p2.Values) != 1 {
		return Opening{Reroll: true}
	}
	a, b := p1.Values[0], p2.Values[0]
	switch {
	case !isFace(a) || !isFace(b) || a == b:
		return Opening{Reroll: true}
	case a > b:
		return Opening{First: 1, Values: []int{a, b}}
	default:
		return Opening{First: 2, Values: []int{b, a}}
	}
}

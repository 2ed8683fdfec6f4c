package rules

import (
	"fmt"
	"sort"
)

// DealOrder is where pai gow tiles are dealt from the dice total.
type DealOrder struct {
	First int   `json:"first"`
	Order []int `json:"order"`
}

// PaiGowDeal gives the deal order for a three-dice total. Playing areas are
// numbered 1..areas counter-clockwise; the total is counted counter-clockwise
// starting from the chung's area as 1, and the deal goes on counter-clockwise
// from the area the count ends on.
func PaiGowDeal(dice []int, chung, areas int) (DealOrder, error) {
	if areas < 2 || areas > 16 {
		return DealOrder{}, fmt.Errorf("rules: paigow deal: %d areas is out of range 2..16", areas)
	}
	if chung < 1 || chung > areas {
		return DealOrder{}, fmt.Errorf("rules: paigow deal: chung area %d is out of range 1..%d", chung, areas)
	}
	if len(dice) != 3 {
		return DealOrder{}, fmt.Errorf("rules: paigow deal: need three dice, got %d", len(dice))
	}
	total := 0
	for _, v := range dice {
		if !isFace(v) {
			return DealOrder{}, fmt.Errorf("rules: paigow deal: die value %d is out of range 1..6", v)
		}
		total += v
	}
	first := (chung-1+total-1)%areas + 1
	d := DealOrder{First: first, Order: make([]int, areas)}
	for i := range areas {
		d.Order[i] = (first-1+i)%areas + 1
	}
	return d, nil
}

// BankMode is who banks a pai gow game.
type BankMode string

// Banking modes (13.1, 13.2, 13.3).
const (
	HouseBank    BankMode = "house"
	PlayerBanker BankMode = "player_banker"
	CoBank       BankMode = "co_bank"
)

// HandResult is a player's hand against the bank's.
type HandResult string

// Hand results.
const (
	Win  HandResult = "win"
	Lose HandResult = "lose"
	Push HandResult = "push" // stand-off: the wager stays in place
)

// HandWager is one player's wager and its result against the bank.
type HandWager struct {
	Area   int        `json:"area"`
	Wager  int64      `json:"wager"`
	Result HandResult `json:"result"`
}

// Settlement is one pai gow table to settle. Money is an integer count of
// the smallest unit. Commissions are in basis points; nil takes the
// profile's.
type Settlement struct {
	Mode  BankMode `json:"mode"`
	Areas int      `json:"areas"`
	// Chung is the banker's area. With the House banking it is area 1
	// (13.1.1); 0 selects that.
	Chung int `json:"chung"`
	// BankerWager is the player/banker's wager (13.2.2, 13.3.1).
	BankerWager        int64       `json:"banker_wager"`
	Hands              []HandWager `json:"hands"`
	BankerCommissionBP *int        `json:"banker_commission_bp,omitempty"`
	PlayerCommissionBP *int        `json:"player_commission_bp,omitempty"`
}

// HandPayout is what happened to one hand.
type HandPayout struct {
	Area   int        `json:"area"`
	Wager  int64      `json:"wager"`
	Result HandResult `json:"result"`
	// Paid is the win paid to the player before commission (even money).
	Paid int64 `json:"paid"`
	// Commission is taken from the win for the House (rule 14.1).
	Commission int64 `json:"commission"`
	// Net is the player's gain (negative for a loss).
	Net int64 `json:"net"`
}

// Party is the banker's or the House's part in a settlement.
type Party struct {
	// Wager is what the party put at risk as bank (0 if none).
	Wager int64 `json:"wager"`
	// Commission is what this party paid on its win (rule 14.2).
	Commission int64 `json:"commission"`
	// Net is the party's gain over the hand, after commission paid and,
	// for the House, commission collected.
	Net int64 `json:"net"`
}

// SettlementResult is every payout of a settlement. Money is conserved:
// the players' nets, the banker's net and the House's net add up to zero.
type SettlementResult struct {
	Mode          BankMode     `json:"mode"`
	RequestedMode BankMode     `json:"requested_mode"`
	Chung         int          `json:"chung"`
	TotalWagers   int64        `json:"total_wagers"`
	Hands         []HandPayout `json:"hands"` // in paying order, counter-clockwise from the chung
	LosingWagers  int64        `json:"losing_wagers"`
	WinningWagers int64        `json:"winning_wagers"`
	// Excess is what remains in the losing wager area after paying the
	// winners (0 with a shortfall).
	Excess int64 `json:"excess"`
	// Shortfall is what the losing wager area lacked to pay the winners,
	// and ShortfallFrom where it came from: "float" (House bank),
	// "banker_wager" (13.2.8) or "co_bank_wager" (13.3.11).
	Shortfall     int64  `json:"shortfall"`
	ShortfallFrom string `json:"shortfall_from,omitempty"`
	Banker        Party  `json:"banker"`
	House         Party  `json:"house"`
	// Commission is every commission the House collected.
	Commission int64 `json:"commission"`
}

// commission is amount × bp / 10000 rounded down: the House never takes a
// part of the smallest unit.
func commission(amount int64, bp int) int64 {
	if amount <= 0 || bp <= 0 {
		return 0
	}
	return amount * int64(bp) / 10000
}

// maxWager bounds a single wager so sums and commission products cannot
// overflow int64.
const maxWager = int64(1) << 40

// Settle pays a pai gow table (13.1-13.3).
//
// House bank (13.1): losing wagers go to the float, winners are paid from
// the float counter-clockwise from area one, stand-offs stay.
//
// Player/banker (13.2): the banker's wager must cover the declared wagers, or
// the game is played as co-bank (13.2.2). Winners are paid from the losing
// wager area counter-clockwise from the chung; what remains goes to the
// banker less the rule 14.2 commission (13.2.7); a shortfall comes from the
// banker's wager (13.2.8).
//
// Co-bank (13.3): the banker's wager must match 50% of the wagers (13.3.1);
// the House puts up an equal amount (13.3.2). Winners are paid from the
// losing wager area; the excess is divided equally (13.3.9), the banker's
// half less commission (13.3.10); a shortfall comes from the co-bank wager
// and what is left is halved (13.3.11).
//
// Rounding: a commission is rounded down to the smallest unit; when an
// amount to halve is odd, the odd unit goes to the House (it stays in the
// float, it cannot be split).
//
// Every winning wager is paid even money (rule 14.1) less the player
// commission, which goes to the House.
func Settle(s Settlement, p Profile) (SettlementResult, error) {
	bankerBP, playerBP := p.BankerCommissionBP(), p.PlayerCommissionBP()
	if s.BankerCommissionBP != nil {
		bankerBP = *s.BankerCommissionBP
	}
	if s.PlayerCommissionBP != nil {
		playerBP = *s.PlayerCommissionBP
	}
	if bankerBP < 0 || bankerBP > 10000 || playerBP < 0 || playerBP > 10000 {
		return SettlementResult{}, fmt.Errorf("rules: paigow settle: commission out of range 0..10000 basis points")
	}
	if s.Areas < 2 || s.Areas > 16 {
		return SettlementResult{}, fmt.Errorf("rules: paigow settle: %d areas is out of range 2..16", s.Areas)
	}
	chung := s.Chung
	switch s.Mode {
	case HouseBank:
		if chung == 0 {
			chung = 1
		}
		if chung != 1 {
			return SettlementResult{}, fmt.Errorf("rules: paigow settle: with the House banking the chung is on area 1 (13.1.1), not %d", chung)
		}
		if s.BankerWager != 0 {
			return SettlementResult{}, fmt.Errorf("rules: paigow settle: with the House banking there is no banker wager")
		}
	case PlayerBanker, CoBank:
		if chung < 1 || chung > s.Areas {
			return SettlementResult{}, fmt.Errorf("rules: paigow settle: chung area %d is out of range 1..%d", chung, s.Areas)
		}
		if s.BankerWager < 0 || s.BankerWager > maxWager {
			return SettlementResult{}, fmt.Errorf("rules: paigow settle: banker wager %d is out of range 0..%d", s.BankerWager, maxWager)
		}
	default:
		return SettlementResult{}, fmt.Errorf("rules: paigow settle: mode %q is not one of house, player_banker, co_bank", s.Mode)
	}
	r := SettlementResult{Mode: s.Mode, RequestedMode: s.Mode, Chung: chung}
	seen := map[int]bool{}
	for _, h := range s.Hands {
		if h.Area < 1 || h.Area > s.Areas {
			return SettlementResult{}, fmt.Errorf("rules: paigow settle: hand area %d is out of range 1..%d", h.Area, s.Areas)
		}
		if h.Area == chung {
			return SettlementResult{}, fmt.Errorf("rules: paigow settle: area %d holds the chung, not a player hand", h.Area)
		}
		if seen[h.Area] {
			return SettlementResult{}, fmt.Errorf("rules: paigow settle: area %d has two hands", h.Area)
		}
		seen[h.Area] = true
		if h.Wager <= 0 || h.Wager > maxWager {
			return SettlementResult{}, fmt.Errorf("rules: paigow settle: area %d wager %d is out of range 1..%d", h.Area, h.Wager, maxWager)
		}
		switch h.Result {
		case Win:
			r.WinningWagers += h.Wager
		case Lose:
			r.LosingWagers += h.Wager
		case Push:
		default:
			return SettlementResult{}, fmt.Errorf("rules: paigow settle: area %d result %q is not one of win, lose, push", h.Area, h.Result)
		}
		r.TotalWagers += h.Wager
	}

	// Banking: 13.2.2 sends an uncovered player/banker game to co-bank;
	// 13.3.1 needs the banker to match 50% of the wagers.
	if r.Mode == PlayerBanker && s.BankerWager < r.TotalWagers {
		r.Mode = CoBank
	}
	if r.Mode == CoBank && 2*s.BankerWager < r.TotalWagers {
		return SettlementResult{}, fmt.Errorf("rules: paigow settle: the banker's wager %d does not match 50%% of the wagers %d (13.3.1)", s.BankerWager, r.TotalWagers)
	}

	// Pay counter-clockwise from the chung (13.1.8, 13.2.7, 13.3.7).
	hands := append([]HandWager(nil), s.Hands...)
	ccw := func(a int) int { return (a - chung + s.Areas) % s.Areas }
	sort.Slice(hands, func(i, j int) bool { return ccw(hands[i].Area) < ccw(hands[j].Area) })
	for _, h := range hands {
		hp := HandPayout{Area: h.Area, Wager: h.Wager, Result: h.Result}
		switch h.Result {
		case Win:
			hp.Paid = h.Wager
			hp.Commission = commission(h.Wager, playerBP)
			hp.Net = hp.Paid - hp.Commission
		case Lose:
			hp.Net = -h.Wager
		}
		r.Commission += hp.Commission
		r.Hands = append(r.Hands, hp)
	}

	diff := r.LosingWagers - r.WinningWagers
	if diff >= 0 {
		r.Excess = diff
	} else {
		r.Shortfall = -diff
	}
	switch r.Mode {
	case HouseBank:
		if r.Shortfall > 0 {
			r.ShortfallFrom = "float"
		}
		r.House.Net = diff
	case PlayerBanker:
		r.Banker.Wager = s.BankerWager
		if r.Shortfall > 0 {
			r.ShortfallFrom = "banker_wager" // 13.2.8
			r.Banker.Net = diff
		} else {
			r.Banker.Commission = commission(r.Excess, bankerBP) // 13.2.7, 14.2
			r.Banker.Net = r.Excess - r.Banker.Commission
		}
	case CoBank:
		r.Banker.Wager = s.BankerWager
		r.House.Wager = s.BankerWager // 13.3.2: an equivalent amount from the float
		if r.Shortfall > 0 {
			// 13.3.11: the shortfall comes from the co-bank wager and what
			// is left is halved.
			r.ShortfallFrom = "co_bank_wager"
			left := r.Banker.Wager + r.House.Wager - r.Shortfall
			bankerHalf := left / 2
			r.Banker.Net = bankerHalf - r.Banker.Wager
			r.House.Net = (left - bankerHalf) - r.House.Wager
		} else {
			// 13.3.9-10: the excess is divided equally, the banker's part
			// less commission.
			bankerHalf := r.Excess / 2
			r.Banker.Commission = commission(bankerHalf, bankerBP)
			r.Banker.Net = bankerHalf - r.Banker.Commission
			r.House.Net = r.Excess - bankerHalf
		}
	}
	r.Commission += r.Banker.Commission
	r.House.Net += r.Commission
	return r, nil
}

// Conserved reports whether a settlement created or lost money: the
// players', the banker's and the House's nets must add up to zero.
func (r SettlementResult) Conserved() bool {
	sum := r.Banker.Net + r.House.Net
	for _, h := range r.Hands {
		sum += h.Net
	}
	return sum == 0
}

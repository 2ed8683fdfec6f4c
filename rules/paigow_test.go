package rules

import (
	"reflect"
	"strings"
	"testing"
)

func TestPaiGowDeal(t *testing.T) {
	tests := []struct {
		rule         string
		dice         []int
		chung, areas int
		want         DealOrder
	}{
		{"13: total 14 counted from area 1 as 1 ends on area 7", []int{3, 5, 6}, 1, 7, DealOrder{First: 7, Order: []int{7, 1, 2, 3, 4, 5, 6}}},
		{"13: the chung's area counts as 1", []int{1, 1, 1}, 4, 7, DealOrder{First: 6, Order: []int{6, 7, 1, 2, 3, 4, 5}}},
		{"13: a total of 8 from chung 1 wraps to area 1", []int{2, 3, 3}, 1, 7, DealOrder{First: 1, Order: []int{1, 2, 3, 4, 5, 6, 7}}},
		{"13: counting continues counter-clockwise past the last area", []int{6, 6, 6}, 5, 7, DealOrder{First: 1, Order: []int{1, 2, 3, 4, 5, 6, 7}}},
		{"13: fewer areas", []int{1, 2, 4}, 2, 4, DealOrder{First: 4, Order: []int{4, 1, 2, 3}}},
	}
	for _, tc := range tests {
		t.Run(tc.rule, func(t *testing.T) {
			got, err := PaiGowDeal(tc.dice, tc.chung, tc.areas)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
	for _, bad := range []struct {
		dice         []int
		chung, areas int
	}{{[]int{1, 2, 3}, 1, 1}, {[]int{1, 2, 3}, 8, 7}, {[]int{1, 2}, 1, 7}, {[]int{1, 2, 7}, 1, 7}, {[]int{1, 2, 3}, 0, 7}} {
		if _, err := PaiGowDeal(bad.dice, bad.chung, bad.areas); err == nil {
			t.Errorf("%+v: want an error", bad)
		}
	}
}

func h(area int, wager int64, r HandResult) HandWager {
	return HandWager{Area: area, Wager: wager, Result: r}
}

// checkConserved asserts that no money is created or lost: every player's
// chips, the banker's and the House's, before and after, add up the same.
func checkConserved(t *testing.T, s Settlement, r SettlementResult) {
	t.Helper()
	if !r.Conserved() {
		t.Fatalf("money not conserved: %+v", r)
	}
	// An independent ledger: what each player holds after settling.
	var before, after int64
	for _, hp := range r.Hands {
		before += hp.Wager
		switch hp.Result {
		case Win:
			after += hp.Wager + hp.Paid - hp.Commission
		case Push:
			after += hp.Wager
		}
	}
	// The bank side: whatever the players gained, the banker and the
	// House lost, and the other way round.
	after += r.Banker.Net + r.House.Net
	if before != after {
		t.Fatalf("ledger: players held %d before, %d after the bank's nets are undone", before, after)
	}
	if r.Banker.Net < -r.Banker.Wager {
		t.Fatalf("the banker lost %d, more than the wager %d", -r.Banker.Net, r.Banker.Wager)
	}
	if len(r.Hands) != len(s.Hands) {
		t.Fatalf("%d hands paid, %d wagered", len(r.Hands), len(s.Hands))
	}
}

func TestSettle(t *testing.T) {
	zero := 0
	tests := []struct {
		rule  string
		in    Settlement
		check func(t *testing.T, r SettlementResult)
	}{
		{"13.1: House bank pays from the float, stand-off stays, 14.1 commission rounded down",
			Settlement{Mode: HouseBank, Areas: 7, Hands: []HandWager{h(5, 30, Win), h(2, 100, Win), h(3, 200, Lose), h(4, 50, Push)}},
			func(t *testing.T, r SettlementResult) {
				want := []HandPayout{
					{Area: 2, Wager: 100, Result: Win, Paid: 100, Commission: 5, Net: 95},
					{Area: 3, Wager: 200, Result: Lose, Net: -200},
					{Area: 4, Wager: 50, Result: Push},
					{Area: 5, Wager: 30, Result: Win, Paid: 30, Commission: 1, Net: 29},
				}
				if !reflect.DeepEqual(r.Hands, want) {
					t.Errorf("13.1.8: hands %+v, want %+v", r.Hands, want)
				}
				if r.House.Net != 76 || r.Commission != 6 || r.Chung != 1 || r.Excess != 70 {
					t.Errorf("house net %d commission %d chung %d excess %d", r.House.Net, r.Commission, r.Chung, r.Excess)
				}
			}},
		{"13.1: House bank short of losing wagers pays from the float",
			Settlement{Mode: HouseBank, Areas: 7, Hands: []HandWager{h(2, 100, Win)}},
			func(t *testing.T, r SettlementResult) {
				if r.House.Net != -95 || r.Shortfall != 100 || r.ShortfallFrom != "float" {
					t.Errorf("house net %d shortfall %d from %q", r.House.Net, r.Shortfall, r.ShortfallFrom)
				}
			}},
		{"13.2.7: player/banker gets the excess less 14.2 commission; paid counter-clockwise from the chung",
			Settlement{Mode: PlayerBanker, Areas: 7, Chung: 4, BankerWager: 1000, Hands: []HandWager{h(1, 200, Lose), h(2, 50, Win), h(5, 300, Lose), h(6, 100, Win)}},
			func(t *testing.T, r SettlementResult) {
				var order []int
				for _, hp := range r.Hands {
					order = append(order, hp.Area)
				}
				if !reflect.DeepEqual(order, []int{5, 6, 1, 2}) {
					t.Errorf("13.2.7: paying order %v, want [5 6 1 2]", order)
				}
				if r.Mode != PlayerBanker || r.Excess != 350 || r.Banker.Commission != 17 || r.Banker.Net != 333 || r.House.Net != 24 {
					t.Errorf("mode %s excess %d banker %+v house %+v", r.Mode, r.Excess, r.Banker, r.House)
				}
			}},
		{"13.2.8: a shortfall comes from the player/banker's wager",
			Settlement{Mode: PlayerBanker, Areas: 7, Chung: 1, BankerWager: 500, Hands: []HandWager{h(2, 300, Win), h(3, 100, Lose)}},
			func(t *testing.T, r SettlementResult) {
				if r.Shortfall != 200 || r.ShortfallFrom != "banker_wager" || r.Banker.Net != -200 || r.Banker.Commission != 0 || r.House.Net != 15 {
					t.Errorf("shortfall %d from %q banker %+v house %+v", r.Shortfall, r.ShortfallFrom, r.Banker, r.House)
				}
			}},
		{"13.2.2: a banker who cannot cover the wagers plays co-bank (13.3)",
			Settlement{Mode: PlayerBanker, Areas: 7, Chung: 1, BankerWager: 400, Hands: []HandWager{h(2, 500, Lose), h(3, 100, Win)}},
			func(t *testing.T, r SettlementResult) {
				if r.Mode != CoBank || r.RequestedMode != PlayerBanker || r.House.Wager != 400 {
					t.Errorf("mode %s requested %s house wager %d", r.Mode, r.RequestedMode, r.House.Wager)
				}
				// 13.3.9-10: excess 400 halved; the banker's 200 less 10 commission.
				if r.Excess != 400 || r.Banker.Net != 190 || r.Banker.Commission != 10 || r.House.Net != 215 {
					t.Errorf("excess %d banker %+v house %+v", r.Excess, r.Banker, r.House)
				}
			}},
		{"13.3.11: a co-bank shortfall comes from the co-bank wager, the rest halved",
			Settlement{Mode: CoBank, Areas: 7, Chung: 1, BankerWager: 300, Hands: []HandWager{h(2, 400, Win), h(3, 100, Lose), h(4, 100, Win)}},
			func(t *testing.T, r SettlementResult) {
				if r.Shortfall != 400 || r.ShortfallFrom != "co_bank_wager" || r.Banker.Net != -200 || r.House.Net != -175 {
					t.Errorf("shortfall %d from %q banker %+v house %+v", r.Shortfall, r.ShortfallFrom, r.Banker, r.House)
				}
			}},
		{"13.3.9: an odd excess leaves the odd unit with the House",
			Settlement{Mode: CoBank, Areas: 7, Chung: 3, BankerWager: 100, Hands: []HandWager{h(2, 101, Lose)}},
			func(t *testing.T, r SettlementResult) {
				if r.Banker.Net != 48 || r.Banker.Commission != 2 || r.House.Net != 53 {
					t.Errorf("banker %+v house %+v", r.Banker, r.House)
				}
			}},
		{"13.3.11: an odd remainder of the co-bank wager leaves the odd unit with the House",
			Settlement{Mode: CoBank, Areas: 7, Chung: 1, BankerWager: 100, Hands: []HandWager{h(2, 101, Win)}, PlayerCommissionBP: &zero},
			func(t *testing.T, r SettlementResult) {
				// left = 200 - 101 = 99: banker 49, House 50.
				if r.Banker.Net != -51 || r.House.Net != -50 || r.Commission != 0 {
					t.Errorf("banker %+v house %+v commission %d", r.Banker, r.House, r.Commission)
				}
			}},
		{"13.2.9: stand-offs only: nothing moves",
			Settlement{Mode: PlayerBanker, Areas: 7, Chung: 2, BankerWager: 100, Hands: []HandWager{h(3, 100, Push)}},
			func(t *testing.T, r SettlementResult) {
				if r.Banker.Net != 0 || r.House.Net != 0 || r.Hands[0].Net != 0 {
					t.Errorf("%+v", r)
				}
			}},
		{"14.2: commission overridden per settlement",
			Settlement{Mode: PlayerBanker, Areas: 7, Chung: 2, BankerWager: 1000, Hands: []HandWager{h(3, 1000, Lose)}, BankerCommissionBP: &zero},
			func(t *testing.T, r SettlementResult) {
				if r.Banker.Net != 1000 || r.Commission != 0 {
					t.Errorf("banker %+v commission %d", r.Banker, r.Commission)
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.rule, func(t *testing.T) {
			r, err := Settle(tc.in, DefaultProfile(PaiGow))
			if err != nil {
				t.Fatal(err)
			}
			checkConserved(t, tc.in, r)
			tc.check(t, r)
		})
	}
}

func TestSettleRejects(t *testing.T) {
	big := 20000
	tests := []struct {
		name string
		in   Settlement
		want string
	}{
		{"unknown mode", Settlement{Mode: "casino", Areas: 7}, "mode"},
		{"too few areas", Settlement{Mode: HouseBank, Areas: 1}, "areas"},
		{"House bank chung elsewhere", Settlement{Mode: HouseBank, Areas: 7, Chung: 3}, "13.1.1"},
		{"House bank with a banker wager", Settlement{Mode: HouseBank, Areas: 7, BankerWager: 5}, "no banker wager"},
		{"chung out of range", Settlement{Mode: PlayerBanker, Areas: 7, Chung: 9}, "chung"},
		{"negative banker wager", Settlement{Mode: PlayerBanker, Areas: 7, Chung: 1, BankerWager: -1}, "banker wager"},
		{"hand out of range", Settlement{Mode: HouseBank, Areas: 7, Hands: []HandWager{h(8, 1, Win)}}, "out of range"},
		{"hand on the chung", Settlement{Mode: PlayerBanker, Areas: 7, Chung: 2, BankerWager: 10, Hands: []HandWager{h(2, 1, Win)}}, "chung"},
		{"two hands on one area", Settlement{Mode: HouseBank, Areas: 7, Hands: []HandWager{h(2, 1, Win), h(2, 1, Lose)}}, "two hands"},
		{"zero wager", Settlement{Mode: HouseBank, Areas: 7, Hands: []HandWager{h(2, 0, Win)}}, "wager"},
		{"unknown result", Settlement{Mode: HouseBank, Areas: 7, Hands: []HandWager{h(2, 5, "draw")}}, "result"},
		{"13.3.1: co-bank needs 50% of the wagers", Settlement{Mode: CoBank, Areas: 7, Chung: 1, BankerWager: 200, Hands: []HandWager{h(2, 500, Win)}}, "13.3.1"},
		{"13.2.2 then 13.3.1: too small for either", Settlement{Mode: PlayerBanker, Areas: 7, Chung: 1, BankerWager: 1, Hands: []HandWager{h(2, 500, Lose)}}, "13.3.1"},
		{"commission out of range", Settlement{Mode: HouseBank, Areas: 7, PlayerCommissionBP: &big}, "commission"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Settle(tc.in, DefaultProfile(PaiGow))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

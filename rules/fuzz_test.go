package rules

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// byteFeed hands out data a byte at a time, then zeros once it is used
// up.
func byteFeed(data []byte) func() byte {
	return func() byte {
		if len(data) == 0 {
			return 0
		}
		b := data[0]
		data = data[1:]
		return b
	}
}

// throwFromBytes builds an arbitrary throw record from fuzz input.
func throwFromBytes(data []byte) (Throw, Profile) {
	next := byteFeed(data)
	games := []Game{Craps, Backgammon, PaiGow, SicBo}
	zones := []Zone{ZoneLayout, ZoneRail, ZoneBank, ZoneBowl, ZoneBackWall, ZoneBarLeft, ZoneBar, ZoneBarRight, ZoneShaker, ZoneOffTable}
	p := DefaultProfile(games[int(next())%len(games)])
	flags := next()
	if flags&1 != 0 {
		p.Cocked = CockedRead
	}
	p.BaffleBox = flags&2 != 0
	t := Throw{Game: p.Game, DiceThrown: int(next() % 4)}
	n := int(next() % 5)
	for range n {
		d := Die{
			Value:        int(next() % 8),
			Confidence:   float64(next()) / 255,
			Zone:         zones[int(next())%len(zones)],
			Flat:         next()%4 != 0,
			SizeRatio:    0.9 + float64(next()%40)/100,
			FirstSeenMS:  int64(next()) * 4,
			TouchesChips: next()%5 == 0,
		}
		t.Dice = append(t.Dice, d)
	}
	if b := next(); b%7 == 0 {
		t.Left = append(t.Left, Exit{Zone: zones[int(b)%len(zones)]})
	}
	s := next()
	t.Sensors = SensorEvidence{Bowl: s&1 != 0, BackWall: s&2 != 0, HasBackWall: s&4 != 0}
	if s&8 != 0 {
		t.Sensors.Faulted = []string{"bowl"}
	}
	if s&16 != 0 {
		t.StaffCalls = []StaffCallRecord{{Operator: "op"}}
	}
	if s&32 != 0 {
		t.Faults = []string{"camera"}
	}
	return t, p
}

// checkOneDecision asserts the decision is exactly one well-formed verdict.
func checkOneDecision(t *testing.T, th Throw, p Profile, got Decision) {
	t.Helper()
	invalid := NoRoll
	if p.Game == Backgammon {
		invalid = Reroll
	}
	switch got.Verdict {
	case Valid:
		thrown := th.DiceThrown
		if thrown == 0 {
			thrown = p.Dice
		}
		if len(got.Reasons) != 0 || len(got.Values) != thrown {
			t.Fatalf("valid decision with reasons or %d values for %d dice: %+v", len(got.Values), thrown, got)
		}
		sum := 0
		for _, v := range got.Values {
			if !isFace(v) {
				t.Fatalf("valid decision with value %d: %+v", v, got)
			}
			sum += v
		}
		if sum != got.Total {
			t.Fatalf("total %d, values add to %d", got.Total, sum)
		}
		if len(th.StaffCalls) > 0 || len(th.Faults) > 0 || len(th.Left) > 0 {
			t.Fatalf("a staff call, a fault or a die leaving the view cannot be valid: %+v", th)
		}
	case invalid:
		if len(got.Reasons) == 0 || len(got.Values) != 0 || got.Total != 0 {
			t.Fatalf("invalid decision without reasons or with values: %+v", got)
		}
	default:
		t.Fatalf("verdict %q for game %s", got.Verdict, p.Game)
	}
	if again := Decide(th, p); !reflect.DeepEqual(again, got) {
		t.Fatalf("Decide is not deterministic: %+v then %+v", got, again)
	}
}

func FuzzDecide(f *testing.F) {
	f.Add([]byte{0, 0, 2, 2, 3, 250, 0, 1, 10, 100, 0, 4, 250, 0, 1, 10, 101, 1, 1, 0})
	f.Add([]byte{1, 2, 2, 2, 6, 250, 7, 1, 10, 1, 1, 5, 250, 7, 1, 10, 2, 1, 1, 4})
	f.Fuzz(func(t *testing.T, data []byte) {
		th, p := throwFromBytes(data)
		checkOneDecision(t, th, p, Decide(th, p))
	})
}

// applyBytes drives a craps game from fuzz input and checks every state.
func applyBytes(t *testing.T, data []byte) {
	p := DefaultProfile(Craps)
	s := NewCrapsState()
	for _, b := range data {
		prev := s
		switch {
		case b == 0xff:
			s = s.NewShooter()
			continue
		case b == 0xfe:
			if s2, err := s.WithOffMarker(!s.OffMarker); err == nil {
				s = s2
			} else if s.Phase != PointPhase {
				t.Fatalf("off-marker refused on the come-out: %v", err)
			}
			continue
		}
		var d Decision
		if b%9 == 0 {
			d = Decision{Verdict: NoRoll, Reasons: []Reason{OffTable}}
		} else {
			d = roll(int(b/6)%6+1, int(b)%6+1)
		}
		next, o, err := s.Apply(d, p)
		if err != nil {
			t.Fatalf("Apply(%+v): %v", d, err)
		}
		if !next.Legal() {
			t.Fatalf("illegal state %+v after %+v from %+v", next, d, prev)
		}
		wantStreak := prev.InvalidStreak
		if prev.MustPass {
			wantStreak = 0
		}
		if d.Verdict == NoRoll {
			wantStreak++
			if o != OutcomeNoRoll || next.Phase != prev.Phase || next.Point != prev.Point {
				t.Fatalf("a no-roll changed the game: %+v -> %+v (%s)", prev, next, o)
			}
		} else {
			wantStreak = 0
		}
		if next.InvalidStreak != wantStreak || next.PassAdvisory != (wantStreak >= p.InvalidStreakAdvisory) {
			t.Fatalf("streak %d advisory %v, want %d", next.InvalidStreak, next.PassAdvisory, wantStreak)
		}
		if next.MustPass != (o == SevenOut) {
			t.Fatalf("must pass %v after %s", next.MustPass, o)
		}
		if (o == PointEstablished) != (prev.Phase == ComeOut && next.Phase == PointPhase) {
			t.Fatalf("%s from %+v to %+v", o, prev, next)
		}
		s = next
	}
}

func FuzzCrapsState(f *testing.F) {
	f.Add([]byte{3, 9, 9, 9, 20, 0xff, 19})
	f.Add([]byte{0xfe, 10, 19, 0xfe, 2})
	f.Fuzz(applyBytes)
}

// settlementFromBytes builds an arbitrary settlement from fuzz input.
func settlementFromBytes(data []byte) Settlement {
	next := byteFeed(data)
	modes := []BankMode{HouseBank, PlayerBanker, CoBank}
	s := Settlement{Mode: modes[int(next())%3], Areas: 2 + int(next()%7)}
	s.Chung = 1 + int(next())%s.Areas
	if s.Mode == HouseBank {
		s.Chung = 1
	}
	s.BankerWager = int64(next())*int64(next()) + int64(next())
	results := []HandResult{Win, Lose, Push}
	for a := 1; a <= s.Areas; a++ {
		if a == s.Chung || next()%3 == 0 {
			continue
		}
		s.Hands = append(s.Hands, HandWager{Area: a, Wager: 1 + int64(next())*int64(next()%20+1), Result: results[int(next())%3]})
	}
	if b := next(); b%4 == 0 {
		bp := int(b) * 40
		s.BankerCommissionBP = &bp
	}
	if b := next(); b%4 == 0 {
		bp := int(b) * 40
		s.PlayerCommissionBP = &bp
	}
	return s
}

func checkSettlement(t *testing.T, s Settlement) {
	r, err := Settle(s, DefaultProfile(PaiGow))
	if err != nil {
		return // refused inputs move no money
	}
	checkConserved(t, s, r)
	if r.Shortfall > 0 && r.Excess > 0 {
		t.Fatalf("both a shortfall and an excess: %+v", r)
	}
	if r.Mode != HouseBank && r.Shortfall == 0 && r.Banker.Net < 0 {
		t.Fatalf("the banker lost money with no shortfall: %+v", r)
	}
	if r.Mode == CoBank && r.House.Net < -r.House.Wager {
		t.Fatalf("the House lost more than its co-bank wager: %+v", r)
	}
}

func FuzzSettle(f *testing.F) {
	f.Add([]byte{1, 5, 2, 10, 10, 0, 1, 50, 3, 1, 2, 40, 2, 0})
	f.Add([]byte{2, 5, 0, 3, 3, 0, 1, 200, 19, 0, 1, 9, 9, 1})
	f.Fuzz(func(t *testing.T, data []byte) { checkSettlement(t, settlementFromBytes(data)) })
}

// TestPropertiesRandom runs the fuzz properties over seeded random inputs
// in every plain `go test`, so they hold without -fuzz too.
func TestPropertiesRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	buf := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.UintN(256))
		}
		return b
	}
	settled := 0
	for range 3000 {
		th, p := throwFromBytes(buf(40))
		checkOneDecision(t, th, p, Decide(th, p))
		applyBytes(t, buf(60))
		s := settlementFromBytes(buf(40))
		if _, err := Settle(s, Profile{}); err == nil {
			settled++
		}
		checkSettlement(t, s)
	}
	if settled < 500 {
		t.Errorf("only %d of 3000 random settlements were accepted: the property is barely exercised", settled)
	}
}

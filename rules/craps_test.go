package rules

import (
	"strings"
	"testing"
)

func roll(a, b int) Decision { return Decision{Verdict: Valid, Values: []int{a, b}, Total: a + b} }

var noRoll = Decision{Verdict: NoRoll, Reasons: []Reason{OffTable}}

func pointState(n int) CrapsState { return CrapsState{Phase: PointPhase, Point: n} }

func TestCrapsApply(t *testing.T) {
	p := DefaultProfile(Craps)
	tests := []struct {
		rule  string
		from  CrapsState
		d     Decision
		want  CrapsState
		wantO Outcome
	}{
		{"come-out 7 is a natural", NewCrapsState(), roll(3, 4), NewCrapsState(), Natural},
		{"come-out 11 is a natural", NewCrapsState(), roll(5, 6), NewCrapsState(), Natural},
		{"come-out 2 is craps", NewCrapsState(), roll(1, 1), NewCrapsState(), CrapsOut},
		{"come-out 3 is craps", NewCrapsState(), roll(1, 2), NewCrapsState(), CrapsOut},
		{"come-out 12 is craps", NewCrapsState(), roll(6, 6), NewCrapsState(), CrapsOut},
		{"come-out 4 establishes the point", NewCrapsState(), roll(2, 2), pointState(4), PointEstablished},
		{"come-out 10 establishes the point", NewCrapsState(), roll(4, 6), pointState(10), PointEstablished},
		{"point repeated is point made", pointState(6), roll(1, 5), NewCrapsState(), PointMade},
		{"3.7.1 / 20:18:33:08 (1): seven-out forces a pass", pointState(8), roll(3, 4), CrapsState{Phase: ComeOut, MustPass: true}, SevenOut},
		{"on a point, 11 decides nothing", pointState(5), roll(5, 6), pointState(5), NoDecision},
		{"on a point, 2 decides nothing", pointState(5), roll(1, 1), pointState(5), NoDecision},
		{"a no-roll changes only the streak", pointState(9), noRoll, CrapsState{Phase: PointPhase, Point: 9, InvalidStreak: 1}, OutcomeNoRoll},
		{"backgammon-style reroll counts as invalid", NewCrapsState(), Decision{Verdict: Reroll, Reasons: []Reason{Cocked}}, CrapsState{Phase: ComeOut, InvalidStreak: 1}, OutcomeNoRoll},
		{"3.7.2: the third invalid roll raises the pass advisory", CrapsState{Phase: ComeOut, InvalidStreak: 2}, noRoll, CrapsState{Phase: ComeOut, InvalidStreak: 3, PassAdvisory: true}, OutcomeNoRoll},
		{"3.7.2: a valid roll clears the streak", CrapsState{Phase: ComeOut, InvalidStreak: 3, PassAdvisory: true}, roll(2, 3), CrapsState{Phase: PointPhase, Point: 5}, PointEstablished},
		{"3.7.1: the next throw after seven-out is the new shooter's", CrapsState{Phase: ComeOut, MustPass: true, InvalidStreak: 2}, noRoll, CrapsState{Phase: ComeOut, InvalidStreak: 1}, OutcomeNoRoll},
		{"20:18:33:08 off marker: a would-be point decides nothing for the line", CrapsState{Phase: ComeOut, OffMarker: true}, roll(4, 4), CrapsState{Phase: ComeOut, OffMarker: true}, NoDecision},
		{"20:18:33:08 off marker: a 7 is a loser 7 for the come wagers", CrapsState{Phase: ComeOut, OffMarker: true}, roll(6, 1), CrapsState{Phase: ComeOut, MustPass: true}, SevenOut},
		{"20:18:33:08 off marker: 11 is still a natural", CrapsState{Phase: ComeOut, OffMarker: true}, roll(6, 5), CrapsState{Phase: ComeOut, OffMarker: true}, Natural},
	}
	for _, tc := range tests {
		t.Run(tc.rule, func(t *testing.T) {
			got, o, err := tc.from.Apply(tc.d, p)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want || o != tc.wantO {
				t.Errorf("got %+v %s, want %+v %s", got, o, tc.want, tc.wantO)
			}
			if !got.Legal() {
				t.Errorf("illegal state %+v", got)
			}
		})
	}
}

func TestCrapsApplyRejects(t *testing.T) {
	p := DefaultProfile(Craps)
	s := pointState(6)
	for _, d := range []Decision{
		{Verdict: Valid, Values: []int{3}},
		{Verdict: Valid, Values: []int{3, 7}},
		{Verdict: Valid, Values: []int{1, 2, 3}},
		{Verdict: "maybe"},
	} {
		got, o, err := s.Apply(d, p)
		if err == nil || got != s || o != "" {
			t.Errorf("Apply(%+v) = %+v %q %v, want the state unchanged and an error", d, got, o, err)
		}
	}
}

func TestCrapsStreakThreshold(t *testing.T) {
	p := DefaultProfile(Craps)
	p.InvalidStreakAdvisory = 5
	s := NewCrapsState()
	for i := 1; i <= 6; i++ {
		s, _, _ = s.Apply(noRoll, p)
		if want := i >= 5; s.PassAdvisory != want {
			t.Errorf("3.7.2: after %d invalid rolls advisory = %v, want %v", i, s.PassAdvisory, want)
		}
	}
	p.InvalidStreakAdvisory = -1 // disabled (command line only)
	s, _, _ = NewCrapsState().Apply(noRoll, p)
	if s.PassAdvisory {
		t.Error("a disabled advisory was raised")
	}
}

func TestCrapsHelpers(t *testing.T) {
	if NewCrapsState().Puck() != PuckOff || pointState(4).Puck() != PuckOn {
		t.Error("the puck is off on the come-out and on during a point")
	}
	s := CrapsState{Phase: PointPhase, Point: 8, InvalidStreak: 4, PassAdvisory: true}
	n := s.NewShooter()
	if n.Phase != PointPhase || n.Point != 8 || n.InvalidStreak != 0 || n.PassAdvisory {
		t.Errorf("3.7: a voluntary pass keeps the point and clears the streak, got %+v", n)
	}
	if _, err := s.WithOffMarker(true); err == nil || !strings.Contains(err.Error(), "point of 8") {
		t.Errorf("off-marker mode on a point must fail, got %v", err)
	}
	o, err := NewCrapsState().WithOffMarker(true)
	if err != nil || !o.OffMarker || o.Puck() != PuckOff {
		t.Errorf("off-marker mode: %+v %v", o, err)
	}
	for _, bad := range []CrapsState{
		{},
		{Phase: ComeOut, Point: 6},
		{Phase: PointPhase, Point: 7},
		{Phase: PointPhase, Point: 6, MustPass: true},
		{Phase: PointPhase, Point: 6, OffMarker: true},
		{Phase: ComeOut, InvalidStreak: -1},
	} {
		if bad.Legal() {
			t.Errorf("%+v should not be legal", bad)
		}
	}
}

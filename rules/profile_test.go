package rules

import (
	"errors"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func intp(v int) *int { return &v }

func TestProfileValidate(t *testing.T) {
	tests := []struct {
		name string
		p    Profile
		want string // "" for valid
	}{
		{"zero profile selects defaults", Profile{}, ""},
		{"every default is valid", DefaultProfile(Backgammon), ""},
		{"sic bo with three dice", Profile{Game: SicBo, Dice: 3}, ""},
		{"unknown game", Profile{Game: "roulette"}, `profile.game: "roulette" is not one of craps, backgammon, paigow, sicbo`},
		{"unknown cocked policy", Profile{Cocked: "maybe"}, `profile.cocked: "maybe" is not one of no_roll, read`},
		{"unknown chips policy", Profile{CockedAgainstChips: "lean"}, `profile.cocked_against_chips: "lean" is not one of no_roll, read`},
		{"dice out of range", Profile{Dice: 9}, `profile.dice: 9 is out of range 0..5`},
		{"dice wrong for the game", Profile{Game: Craps, Dice: 3}, `profile.dice: 3 does not match craps, which is played with 2 dice`},
		{"confidence above 1", Profile{MinConfidence: 1.5}, `profile.min_confidence: 1.5 is out of range 0..1`},
		{"stacked ratio below 1", Profile{StackedSizeRatio: 0.5}, `profile.stacked_size_ratio: 0.5 is out of range 1..2`},
		{"negative streak", Profile{InvalidStreakAdvisory: -1}, `profile.invalid_streak_advisory: -1 is out of range 0..100`},
		{"simultaneous window too long", Profile{SimultaneousMS: 5000}, `profile.simultaneous_ms: 5000 is out of range 0..2000`},
		{"banker commission negative", Profile{PaiGowBankerCommissionBP: intp(-5)}, `profile.paigow_banker_commission_bp: -5 is out of range 0..5000`},
		{"player commission too high", Profile{PaiGowPlayerCommissionBP: intp(6000)}, `profile.paigow_player_commission_bp: 6000 is out of range 0..5000`},
		{"two problems are both named", Profile{Cocked: "x", Dice: -1}, `profile.cocked: "x" is not one of no_roll, read; profile.dice: -1 is out of range 0..5`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.p.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil || err.Error() != tc.want {
				t.Fatalf("got %v, want %s", err, tc.want)
			}
			var pe ProfileError
			if !errors.As(err, &pe) || len(pe) == 0 || pe[0].Key == "" {
				t.Errorf("error is not a ProfileError with keys: %#v", err)
			}
		})
	}
}

func TestWithDefaults(t *testing.T) {
	got := Profile{}.WithDefaults()
	want := DefaultProfile(Craps)
	want.CockedAgainstChips = CockedNoRoll
	if got.Game != Craps || got.Dice != 2 || got.Cocked != CockedNoRoll || got.CockedAgainstChips != CockedNoRoll ||
		got.MinConfidence != want.MinConfidence || got.StackedSizeRatio != want.StackedSizeRatio ||
		got.InvalidStreakAdvisory != 3 || got.SimultaneousMS != 150 {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if g := (Profile{Game: PaiGow}).WithDefaults(); g.Dice != 3 {
		t.Errorf("pai gow dice = %d, want 3", g.Dice)
	}
	if g := (Profile{Cocked: CockedRead}).WithDefaults(); g.CockedAgainstChips != CockedRead {
		t.Errorf("cocked_against_chips should follow cocked, got %q", g.CockedAgainstChips)
	}
	p := Profile{}
	if p.BankerCommissionBP() != 500 || p.PlayerCommissionBP() != 500 {
		t.Errorf("rule 14.2 default commission is 5%%")
	}
	p.PaiGowBankerCommissionBP, p.PaiGowPlayerCommissionBP = intp(0), intp(250)
	if p.BankerCommissionBP() != 0 || p.PlayerCommissionBP() != 250 {
		t.Errorf("explicit commissions not used: %d %d", p.BankerCommissionBP(), p.PlayerCommissionBP())
	}
}

func TestProfileYAMLStrict(t *testing.T) {
	src := `game: backgammon
dice: 2
cocked: read
cocked_against_chips: no_roll
min_confidence: 0.9
stacked_size_ratio: 1.2
invalid_streak_advisory: 4
simultaneous_ms: 200
baffle_box: true
offer_dice_to_all: true
paigow_banker_commission_bp: 0
paigow_player_commission_bp: 250
`
	var p Profile
	dec := yaml.NewDecoder(strings.NewReader(src))
	dec.KnownFields(true)
	if err := dec.Decode(&p); err != nil {
		t.Fatal(err)
	}
	if p.Game != Backgammon || p.Cocked != CockedRead || p.CockedAgainstChips != CockedNoRoll || p.SimultaneousMS != 200 ||
		!p.BaffleBox || !p.OfferDiceToAll || p.BankerCommissionBP() != 0 || p.PlayerCommissionBP() != 250 || p.InvalidStreakAdvisory != 4 {
		t.Errorf("decoded %+v", p)
	}
	if err := p.Validate(); err != nil {
		t.Errorf("a full valid profile: %v", err)
	}
	dec = yaml.NewDecoder(strings.NewReader("cockd: read\n"))
	dec.KnownFields(true)
	if err := dec.Decode(&Profile{}); err == nil {
		t.Error("a misspelled key must fail strict decoding")
	}
}

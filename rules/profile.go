package rules

import (
	"fmt"
	"strings"
)

// CockedPolicy is what a house does with a die that is not flat.
type CockedPolicy string

// Cocked policies.
const (
	CockedNoRoll CockedPolicy = "no_roll" // a cocked die voids the roll
	CockedRead   CockedPolicy = "read"    // read the face the house rule says (the upper face)
)

// Profile holds the house rules for one table. Zero values are replaced by
// the defaults of DefaultProfile, which follow the reference texts. Every
// field is documented with its default and rule text in README.md ("Rules").
type Profile struct {
	Game Game `yaml:"game" json:"game"`
	// Dice is how many dice are thrown (craps and backgammon 2, pai gow and sic bo 3).
	Dice int `yaml:"dice" json:"dice"`
	// Cocked: no_roll (default) or read. It applies to craps only:
	// backgammon 4.2 and the three-dice games always need every die flat.
	Cocked CockedPolicy `yaml:"cocked" json:"cocked"`
	// CockedAgainstChips is the policy for a die cocked against chips
	// (craps). Empty means the same as Cocked.
	CockedAgainstChips CockedPolicy `yaml:"cocked_against_chips,omitempty" json:"cocked_against_chips,omitempty"`
	// MinConfidence below which a die is unreadable (0..1).
	MinConfidence float64 `yaml:"min_confidence" json:"min_confidence"`
	// StackedSizeRatio at or above which a die is taken to rest on another.
	StackedSizeRatio float64 `yaml:"stacked_size_ratio" json:"stacked_size_ratio"`
	// InvalidStreakAdvisory: this many invalid rolls in a row raise the
	// advisory that the boxperson may order a pass (3.7.2). 0 selects the
	// default, 3.
	InvalidStreakAdvisory int `yaml:"invalid_streak_advisory" json:"invalid_streak_advisory"`
	// SimultaneousMS is the longest gap between the first appearances of
	// the dice for them to count as leaving the hand or cup together.
	// Craps: a longer gap is the not_simultaneous advisory (staff may call
	// "no roll", 20:18:33:06 (1)). Backgammon: a reroll (4.2). 0 selects
	// the default, 150.
	SimultaneousMS int `yaml:"simultaneous_ms,omitempty" json:"simultaneous_ms,omitempty"`
	// BaffleBox: backgammon dice are cast through a baffle box (4.2), so
	// the first-appearance check is not made.
	BaffleBox bool `yaml:"baffle_box,omitempty" json:"baffle_box,omitempty"`
	// OfferDiceToAll: a new craps shooter is offered the dice in turn by
	// every player (20:18:33:08, last paragraph) instead of only players
	// with a line wager (3.8, the default).
	OfferDiceToAll bool `yaml:"offer_dice_to_all,omitempty" json:"offer_dice_to_all,omitempty"`
	// PaiGowBankerCommissionBP is the commission on a banker's win (pai gow
	// 13.2.7, 13.3.10, rule 14.2) in basis points; nil selects 500 (5%).
	PaiGowBankerCommissionBP *int `yaml:"paigow_banker_commission_bp,omitempty" json:"paigow_banker_commission_bp,omitempty"`
	// PaiGowPlayerCommissionBP is the commission on a player's winning
	// wager (paid per rule 14.1) in basis points; nil selects 500 (5%).
	PaiGowPlayerCommissionBP *int `yaml:"paigow_player_commission_bp,omitempty" json:"paigow_player_commission_bp,omitempty"`
}

// Defaults that follow the reference texts or common house practice.
const (
	DefaultSimultaneousMS   = 150
	DefaultCommissionBP     = 500
	DefaultStreakAdvisory   = 3
	DefaultMinConfidence    = 0.8
	DefaultStackedSizeRatio = 1.12
)

// DefaultProfile returns the reference-text defaults for a game.
func DefaultProfile(g Game) Profile {
	p := Profile{
		Game:                  g,
		Dice:                  2,
		Cocked:                CockedNoRoll,
		MinConfidence:         DefaultMinConfidence,
		StackedSizeRatio:      DefaultStackedSizeRatio,
		InvalidStreakAdvisory: DefaultStreakAdvisory,
		SimultaneousMS:        DefaultSimultaneousMS,
	}
	if g == PaiGow || g == SicBo {
		p.Dice = 3
	}
	return p
}

// WithDefaults fills zero fields from DefaultProfile(p.Game).
func (p Profile) WithDefaults() Profile {
	if p.Game == "" {
		p.Game = Craps
	}
	d := DefaultProfile(p.Game)
	if p.Dice == 0 {
		p.Dice = d.Dice
	}
	if p.Cocked == "" {
		p.Cocked = d.Cocked
	}
	if p.CockedAgainstChips == "" {
		p.CockedAgainstChips = p.Cocked
	}
	if p.MinConfidence == 0 {
		p.MinConfidence = d.MinConfidence
	}
	if p.StackedSizeRatio == 0 {
		p.StackedSizeRatio = d.StackedSizeRatio
	}
	if p.InvalidStreakAdvisory == 0 {
		p.InvalidStreakAdvisory = d.InvalidStreakAdvisory
	}
	if p.SimultaneousMS == 0 {
		p.SimultaneousMS = d.SimultaneousMS
	}
	return p
}

// BankerCommissionBP is the rule 14.2 commission in basis points.
func (p Profile) BankerCommissionBP() int {
	if p.PaiGowBankerCommissionBP == nil {
		return DefaultCommissionBP
	}
	return *p.PaiGowBankerCommissionBP
}

// PlayerCommissionBP is the rule 14.1 commission in basis points.
func (p Profile) PlayerCommissionBP() int {
	if p.PaiGowPlayerCommissionBP == nil {
		return DefaultCommissionBP
	}
	return *p.PaiGowPlayerCommissionBP
}

// FieldError is one problem with one profile setting. Key is the full YAML
// path ("profile.cocked").
type FieldError struct {
	Key string
	Msg string
}

func (e FieldError) Error() string { return e.Key + ": " + e.Msg }

// ProfileError lists every problem found in a profile.
type ProfileError []FieldError

func (e ProfileError) Error() string {
	s := make([]string, len(e))
	for i, f := range e {
		s[i] = f.Error()
	}
	return strings.Join(s, "; ")
}

// Validate reports every out-of-range or unknown setting as a ProfileError
// (use errors.As to get each key). Zero values are valid: they select the
// defaults.
func (p Profile) Validate() error {
	var errs ProfileError
	add := func(key, format string, a ...any) {
		errs = append(errs, FieldError{Key: "profile." + key, Msg: fmt.Sprintf(format, a...)})
	}
	switch p.Game {
	case "", Craps, Backgammon, PaiGow, SicBo:
	default:
		add("game", "%q is not one of craps, backgammon, paigow, sicbo", p.Game)
	}
	for _, c := range []struct {
		key string
		v   CockedPolicy
	}{{"cocked", p.Cocked}, {"cocked_against_chips", p.CockedAgainstChips}} {
		switch c.v {
		case "", CockedNoRoll, CockedRead:
		default:
			add(c.key, "%q is not one of no_roll, read", c.v)
		}
	}
	if p.Dice < 0 || p.Dice > 5 {
		add("dice", "%d is out of range 0..5", p.Dice)
	} else if want := DefaultProfile(p.Game).Dice; p.Dice != 0 && p.Game != "" && p.Dice != want {
		add("dice", "%d does not match %s, which is played with %d dice", p.Dice, p.Game, want)
	}
	if p.MinConfidence < 0 || p.MinConfidence > 1 {
		add("min_confidence", "%g is out of range 0..1", p.MinConfidence)
	}
	if p.StackedSizeRatio != 0 && (p.StackedSizeRatio < 1 || p.StackedSizeRatio > 2) {
		add("stacked_size_ratio", "%g is out of range 1..2", p.StackedSizeRatio)
	}
	if p.InvalidStreakAdvisory < 0 || p.InvalidStreakAdvisory > 100 {
		add("invalid_streak_advisory", "%d is out of range 0..100", p.InvalidStreakAdvisory)
	}
	if p.SimultaneousMS < 0 || p.SimultaneousMS > 2000 {
		add("simultaneous_ms", "%d is out of range 0..2000", p.SimultaneousMS)
	}
	if v := p.PaiGowBankerCommissionBP; v != nil && (*v < 0 || *v > 5000) {
		add("paigow_banker_commission_bp", "%d is out of range 0..5000", *v)
	}
	if v := p.PaiGowPlayerCommissionBP; v != nil && (*v < 0 || *v > 5000) {
		add("paigow_player_commission_bp", "%d is out of range 0..5000", *v)
	}
	if len(errs) == 0 {
		return nil
	}
	return errs
}

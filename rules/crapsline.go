package rules

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// CrapsInput is one line read by `dicewatch rules craps`: a decided throw.
type CrapsInput struct {
	Verdict Verdict  `json:"verdict"`
	Dice    []int    `json:"dice,omitempty"`
	Reasons []Reason `json:"reasons,omitempty"`
}

// CrapsReport is one line written by `dicewatch rules craps`: the outcome
// of a throw and the game state after it.
type CrapsReport struct {
	Line            int     `json:"line"`
	Outcome         Outcome `json:"outcome"`
	Total           int     `json:"total,omitempty"`
	Phase           Phase   `json:"phase"`
	Point           *int    `json:"point"`
	Puck            Puck    `json:"puck"`
	ShooterMustPass bool    `json:"shooter_must_pass"`
	InvalidStreak   int     `json:"invalid_streak"`
	PassAdvisory    bool    `json:"pass_advisory"`
}

// ParseCrapsInput decodes and checks one input line: a valid throw has two
// dice 1..6, a no-roll at least one reason. Unknown fields are ignored so a
// richer record (a journalled decision) can be piped in.
func ParseCrapsInput(line []byte) (Decision, error) {
	var in CrapsInput
	dec := json.NewDecoder(bytes.NewReader(line))
	if err := dec.Decode(&in); err != nil {
		return Decision{}, fmt.Errorf("rules: craps input: %w", err)
	}
	if dec.More() {
		return Decision{}, fmt.Errorf("rules: craps input: more than one JSON value on the line")
	}
	switch in.Verdict {
	case Valid:
		if len(in.Dice) != 2 || !isFace(in.Dice[0]) || !isFace(in.Dice[1]) {
			return Decision{}, fmt.Errorf("rules: craps input: a valid roll needs \"dice\" with two values 1..6, got %v", in.Dice)
		}
		if len(in.Reasons) > 0 {
			return Decision{}, fmt.Errorf("rules: craps input: a valid roll has no reasons")
		}
		return Decision{Verdict: Valid, Values: in.Dice, Total: in.Dice[0] + in.Dice[1]}, nil
	case NoRoll:
		if len(in.Reasons) == 0 {
			return Decision{}, fmt.Errorf("rules: craps input: a no_roll needs at least one reason")
		}
		return Decision{Verdict: NoRoll, Reasons: in.Reasons}, nil
	case "":
		return Decision{}, fmt.Errorf("rules: craps input: \"verdict\" is missing")
	default:
		return Decision{}, fmt.Errorf("rules: craps input: verdict %q is not one of valid, no_roll", in.Verdict)
	}
}

// Report describes the state after a throw with its outcome.
func (s CrapsState) Report(line int, o Outcome, d Decision) CrapsReport {
	r := CrapsReport{
		Line:            line,
		Outcome:         o,
		Phase:           s.Phase,
		Puck:            s.Puck(),
		ShooterMustPass: s.MustPass,
		InvalidStreak:   s.InvalidStreak,
		PassAdvisory:    s.PassAdvisory,
	}
	if d.Verdict == Valid {
		r.Total = d.Total
	}
	if s.Phase == PointPhase {
		pt := s.Point
		r.Point = &pt
	}
	return r
}

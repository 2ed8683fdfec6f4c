package journal

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

// Game is one game recalled from the journal: every record whose body
// carries the same "game" id, in seq order. Decisions (roll, noroll)
// without a game id form a game of their own per consecutive run, with an
// empty ID.
type Game struct {
	ID      string   `json:"game"`
	Records []Record `json:"records"`
}

// Decisions counts the roll and noroll records of the game.
func (g Game) Decisions() int {
	n := 0
	for _, r := range g.Records {
		if r.Kind == "roll" || r.Kind == "noroll" {
			n++
		}
	}
	return n
}

// LastGames reads the journal in dir (without locking it; safe while the
// daemon runs) and returns the last n games, oldest first.
func LastGames(dir string, n int) ([]Game, error) {
	if n <= 0 {
		return nil, nil
	}
	var games []Game
	index := map[string]int{} // game id -> index in games
	lastAnon := -1            // index of the open anonymous run, if any
	err := ReadDir(dir, func(r Record) error {
		var b struct {
			Game string `json:"game"`
		}
		json.Unmarshal(r.Body, &b) // a body without a string game is anonymous
		decision := r.Kind == "roll" || r.Kind == "noroll"
		switch {
		case b.Game != "":
			i, ok := index[b.Game]
			if !ok {
				i = len(games)
				index[b.Game] = i
				games = append(games, Game{ID: b.Game})
			}
			games[i].Records = append(games[i].Records, r)
			lastAnon = -1
		case decision:
			if lastAnon < 0 {
				lastAnon = len(games)
				games = append(games, Game{})
			}
			games[lastAnon].Records = append(games[lastAnon].Records, r)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(games) > n {
		games = games[len(games)-n:]
	}
	return games, nil
}

// WriteGames prints games for a person: one header line per game and one
// line per record.
func WriteGames(w io.Writer, games []Game) error {
	for _, g := range games {
		id := g.ID
		if id == "" {
			id = "(no game id)"
		}
		first, last := g.Records[0].TS, g.Records[len(g.Records)-1].TS
		if _, err := fmt.Fprintf(w, "game %s: %d decisions, %d records, %s .. %s\n", id, g.Decisions(), len(g.Records),
			first.Format(time.RFC3339), last.Format(time.RFC3339)); err != nil {
			return err
		}
		for _, r := range g.Records {
			if _, err := fmt.Fprintf(w, "  seq %-8d %s  %-7s %s\n", r.Seq, r.TS.Format("2006-01-02T15:04:05.000Z07:00"), r.Kind, summary(r)); err != nil {
				return err
			}
		}
	}
	return nil
}

// summary is a one-line reading of a record body.
func summary(r Record) string {
	var b struct {
		Verdict  string   `json:"verdict"`
		Values   []int    `json:"values"`
		Total    int      `json:"total"`
		Reasons  []string `json:"reasons"`
		Event    string   `json:"event"`
		Command  string   `json:"command"`
		Result   string   `json:"result"`
		Reason   string   `json:"reason"`
		Operator string   `json:"operator"`
		Role     string   `json:"role"`
	}
	if err := json.Unmarshal(r.Body, &b); err != nil {
		return string(r.Body)
	}
	switch {
	case b.Verdict == "valid":
		vs := make([]string, len(b.Values))
		for i, v := range b.Values {
			vs[i] = fmt.Sprint(v)
		}
		return fmt.Sprintf("valid %s = %d", strings.Join(vs, "+"), b.Total)
	case b.Verdict != "":
		return fmt.Sprintf("%s (%s)", b.Verdict, strings.Join(b.Reasons, ", "))
	case b.Event == "command":
		s := fmt.Sprintf("command %s %s", b.Command, b.Result)
		if b.Reason != "" {
			s += " (" + b.Reason + ")"
		}
		if b.Operator != "" {
			s += fmt.Sprintf(" by %s [%s]", b.Operator, b.Role)
		}
		return s
	}
	s := string(r.Body)
	if len(s) > 120 {
		s = s[:120] + "..."
	}
	return s
}

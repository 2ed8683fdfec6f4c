package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/dicewatch/dicewatch/journal"
)

// cmdHistory prints the last N games from the journal on disk (not from a
// running daemon's memory): `dicewatch history --last N --journal DIR`.
func cmdHistory(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("history", flag.ContinueOnError)
	fs.SetOutput(stderr)
	last := fs.Int("last", 10, "how many games to show")
	dir := fs.String("journal", "", "journal directory (journal.dir in the config)")
	asJSON := fs.Bool("json", false, "print one JSON object per game")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *dir == "" || *last < 1 || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: dicewatch history --journal DIR [--last N] [--json]")
		return 2
	}
	games, err := journal.LastGames(*dir, *last)
	if err != nil {
		fmt.Fprintf(stderr, "dicewatch history: %v\n", err)
		if errors.Is(err, journal.ErrCorrupt) {
			fmt.Fprintf(stderr, "dicewatch history: the journal has a damaged record: dicewatch journal check --journal %s\n", *dir)
		}
		return 1
	}
	if len(games) == 0 {
		fmt.Fprintln(stderr, "dicewatch history: no games in the journal")
		return 0
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		for _, g := range games {
			if err := enc.Encode(g); err != nil {
				fmt.Fprintf(stderr, "dicewatch history: %v\n", err)
				return 1
			}
		}
		return 0
	}
	if err := journal.WriteGames(stdout, games); err != nil {
		fmt.Fprintf(stderr, "dicewatch history: %v\n", err)
		return 1
	}
	return 0
}

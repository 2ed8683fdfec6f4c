package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/dicewatch/dicewatch/rules"
)

// cmdRules runs a game's rules over decided throws: `dicewatch rules craps`
// reads JSON lines on stdin ({"verdict":"valid","dice":[a,b]} or
// {"verdict":"no_roll","reasons":[...]}) and writes one JSON line per input
// with the outcome and the game state after it. A malformed line is an
// error naming its line number; processing stops there with exit code 1.
func cmdRules(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rules", flag.ContinueOnError)
	fs.SetOutput(stderr)
	streak := fs.Int("invalid-streak", rules.DefaultStreakAdvisory, "invalid rolls in a row that raise the pass advisory (3.7.2)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: dicewatch rules craps [--invalid-streak N] < decisions.jsonl")
		fs.PrintDefaults()
	}
	// Accept flags before or after the game name.
	var game string
	rest := args
	if len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		game, rest = rest[0], rest[1:]
	}
	if err := fs.Parse(rest); err != nil {
		return 2
	}
	if game == "" && fs.NArg() > 0 {
		game = fs.Arg(0)
	} else if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "dicewatch rules: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if game != "craps" {
		fs.Usage()
		if game != "" {
			fmt.Fprintf(stderr, "dicewatch rules: game %q is not supported (only craps)\n", game)
		}
		return 2
	}
	p := rules.DefaultProfile(rules.Craps)
	p.InvalidStreakAdvisory = *streak
	if err := p.Validate(); err != nil {
		fmt.Fprintf(stderr, "dicewatch rules: %v\n", err)
		return 2
	}
	if *streak == 0 {
		p.InvalidStreakAdvisory = -1 // 0 on the command line disables the advisory
	}

	st := rules.NewCrapsState()
	sc := bufio.NewScanner(stdin)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	enc := json.NewEncoder(out)
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if strings.TrimSpace(string(b)) == "" {
			continue
		}
		d, err := rules.ParseCrapsInput(b)
		if err == nil {
			var o rules.Outcome
			st, o, err = st.Apply(d, p)
			if err == nil {
				err = enc.Encode(st.Report(line, o, d))
			}
		}
		if err != nil {
			out.Flush()
			fmt.Fprintf(stderr, "dicewatch rules: line %d: %v\n", line, err)
			return 1
		}
	}
	if err := sc.Err(); err != nil {
		out.Flush()
		fmt.Fprintf(stderr, "dicewatch rules: line %d: %v\n", line+1, err)
		return 1
	}
	if err := out.Flush(); err != nil {
		fmt.Fprintf(stderr, "dicewatch rules: %v\n", err)
		return 1
	}
	return 0
}

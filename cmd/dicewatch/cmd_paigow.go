package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/dicewatch/dicewatch/rules"
)

// cmdPaigow is `dicewatch paigow deal --dice a,b,c --chung AREA --areas N`
// (prints {"first":AREA,"order":[...]}) and `dicewatch paigow settle`
// (reads one JSON table settlement on stdin, prints every payout).
func cmdPaigow(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: dicewatch paigow deal --dice a,b,c --chung AREA --areas N\n       dicewatch paigow settle < settlement.json")
		return 2
	}
	switch args[0] {
	case "deal":
		return paigowDeal(args[1:], stdout, stderr)
	case "settle":
		return paigowSettle(args[1:], stdin, stdout, stderr)
	default:
		fmt.Fprintf(stderr, "dicewatch paigow: unknown subcommand %q (deal, settle)\n", args[0])
		return 2
	}
}

func paigowDeal(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("paigow deal", flag.ContinueOnError)
	fs.SetOutput(stderr)
	diceFlag := fs.String("dice", "", "the three dice, comma separated, e.g. 3,5,6")
	chung := fs.Int("chung", 1, "the playing area holding the chung (areas are numbered counter-clockwise)")
	areas := fs.Int("areas", 7, "the number of playing areas")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "dicewatch paigow deal: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	var dice []int
	for _, f := range strings.Split(*diceFlag, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			fmt.Fprintf(stderr, "dicewatch paigow deal: --dice %q: want three values like 3,5,6\n", *diceFlag)
			return 2
		}
		dice = append(dice, v)
	}
	d, err := rules.PaiGowDeal(dice, *chung, *areas)
	if err != nil {
		fmt.Fprintf(stderr, "dicewatch paigow deal: %v\n", err)
		return 2
	}
	return paigowWriteJSON(stdout, stderr, d)
}

func paigowSettle(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("paigow settle", flag.ContinueOnError)
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	dec := json.NewDecoder(stdin)
	dec.DisallowUnknownFields()
	var s rules.Settlement
	if err := dec.Decode(&s); err != nil {
		fmt.Fprintf(stderr, "dicewatch paigow settle: reading the settlement: %v\n", err)
		return 1
	}
	if dec.More() {
		fmt.Fprintln(stderr, "dicewatch paigow settle: more than one settlement on stdin")
		return 1
	}
	r, err := rules.Settle(s, rules.DefaultProfile(rules.PaiGow))
	if err != nil {
		fmt.Fprintf(stderr, "dicewatch paigow settle: %v\n", err)
		return 1
	}
	if !r.Conserved() {
		fmt.Fprintln(stderr, "dicewatch paigow settle: internal error: money not conserved")
		return 1
	}
	return paigowWriteJSON(stdout, stderr, r)
}

func paigowWriteJSON(stdout, stderr io.Writer, v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		fmt.Fprintf(stderr, "dicewatch: %v\n", err)
		return 1
	}
	if _, err := fmt.Fprintf(stdout, "%s\n", b); err != nil {
		fmt.Fprintf(stderr, "dicewatch: %v\n", err)
		return 1
	}
	return 0
}

package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/dicewatch/dicewatch/journal"
	"github.com/dicewatch/dicewatch/rules"
)

// truthThrow is the part of a generator truth line that scoring needs.
type truthThrow struct {
	Throw    int            `json:"throw"`
	Kind     string         `json:"kind"`
	StartMS  int64          `json:"start_ms"`
	AtRestMS int64          `json:"at_rest_ms"`
	Expected rules.Decision `json:"expected"`
}

// decided is one journalled decision.
type decided struct {
	Seq uint64
	decisionBody
}

// Score compares decisions with ground truth.
type Score struct {
	Throws, Decisions     int
	VerdictRight          int
	ReasonsRight          int // no-rolls whose reasons equal the truth's
	ValidRight            int // valid rolls with the right values
	InvalidPublishedValid int
	Missing, Extra        int
	Rows                  []ScoreRow
}

// ScoreRow is one throw's comparison.
type ScoreRow struct {
	Truth   truthThrow
	Got     *decided
	Verdict bool
	Reasons bool
}

func readTruth(path string) ([]truthThrow, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []truthThrow
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for n := 1; sc.Scan(); n++ {
		var t truthThrow
		if err := json.Unmarshal(sc.Bytes(), &t); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, n, err)
		}
		out = append(out, t)
	}
	return out, sc.Err()
}

func readDecisions(dir string) ([]decided, error) {
	var out []decided
	err := journal.ReadDir(dir, func(r journal.Record) error {
		if r.Kind != "roll" && r.Kind != "noroll" {
			return nil
		}
		var d decided
		if err := json.Unmarshal(r.Body, &d.decisionBody); err != nil {
			return fmt.Errorf("record %d: %w", r.Seq, err)
		}
		d.Seq = r.Seq
		out = append(out, d)
		return nil
	})
	return out, err
}

// scoreDecisions matches each truth throw with the decision whose throw
// window holds the truth's rest time (decisions are in throw order).
func scoreDecisions(truth []truthThrow, ds []decided) Score {
	s := Score{Throws: len(truth), Decisions: len(ds)}
	used := make([]bool, len(ds))
	for _, t := range truth {
		row := ScoreRow{Truth: t}
		best := -1
		var bestGap int64 = 1 << 62
		for i, d := range ds {
			if used[i] {
				continue
			}
			// The decision's throw must overlap the truth throw: it started
			// before the truth's rest and came to rest after the truth's start.
			if d.StartMS > t.AtRestMS+1000 || d.AtRestMS < t.StartMS {
				continue
			}
			gap := abs64(d.AtRestMS - t.AtRestMS)
			if gap < bestGap {
				best, bestGap = i, gap
			}
		}
		if best < 0 {
			s.Missing++
			s.Rows = append(s.Rows, row)
			continue
		}
		used[best] = true
		d := ds[best]
		row.Got = &d
		row.Verdict = d.Verdict == t.Expected.Verdict
		if row.Verdict {
			s.VerdictRight++
		}
		if t.Expected.Verdict == rules.Valid {
			if d.Verdict == rules.Valid && slices.Equal(sortedInts(d.Values), sortedInts(t.Expected.Values)) {
				s.ValidRight++
				row.Reasons = true
			}
		} else {
			if d.Verdict == rules.Valid {
				s.InvalidPublishedValid++
			}
			if slices.Equal(d.Reasons, t.Expected.Reasons) {
				s.ReasonsRight++
				row.Reasons = true
			}
		}
		s.Rows = append(s.Rows, row)
	}
	for _, u := range used {
		if !u {
			s.Extra++
		}
	}
	return s
}

func sortedInts(a []int) []int {
	b := slices.Clone(a)
	slices.Sort(b)
	return b
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

func describeDecision(d rules.Decision) string {
	if d.Verdict == rules.Valid {
		parts := make([]string, len(d.Values))
		for i, v := range d.Values {
			parts[i] = fmt.Sprint(v)
		}
		return fmt.Sprintf("valid %s=%d", strings.Join(parts, "+"), d.Total)
	}
	rs := make([]string, len(d.Reasons))
	for i, r := range d.Reasons {
		rs[i] = string(r)
	}
	return fmt.Sprintf("%s [%s]", d.Verdict, strings.Join(rs, ","))
}

// cmdScore prints decisions next to the generator's ground truth.
func cmdScore(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("score", flag.ContinueOnError)
	fs.SetOutput(stderr)
	truthPath := fs.String("truth", "", "generator truth file (truth.jsonl)")
	dir := fs.String("journal", "", "journal directory")
	strict := fs.Bool("strict", false, "exit 1 unless every throw has exactly one decision with the right verdict")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *truthPath == "" || *dir == "" {
		fmt.Fprintln(stderr, "score: --truth and --journal are required")
		return 2
	}
	truth, err := readTruth(*truthPath)
	if err != nil {
		fmt.Fprintln(stderr, "score:", err)
		return 1
	}
	ds, err := readDecisions(*dir)
	if err != nil {
		fmt.Fprintln(stderr, "score:", err)
		return 1
	}
	s := scoreDecisions(truth, ds)
	fmt.Fprintf(stdout, "  %-5s %-10s %-28s %-28s %s\n", "throw", "kind", "expected", "decided", "")
	for _, r := range s.Rows {
		got := "(no decision)"
		mark := "MISSING"
		if r.Got != nil {
			got = describeDecision(rules.Decision{Verdict: r.Got.Verdict, Values: r.Got.Values, Total: r.Got.Total, Reasons: r.Got.Reasons})
			switch {
			case r.Verdict && r.Reasons:
				mark = "ok"
			case r.Verdict:
				mark = "verdict ok, detail differs"
			default:
				mark = "WRONG"
			}
		}
		fmt.Fprintf(stdout, "  %-5d %-10s %-28s %-28s %s\n", r.Truth.Throw, r.Truth.Kind, describeDecision(r.Truth.Expected), got, mark)
	}
	fmt.Fprintf(stdout, "  throws %d, decisions %d (missing %d, extra %d); verdict right %d/%d; no-roll reasons exact %d; valid values right %d; invalid published as valid: %d\n",
		s.Throws, s.Decisions, s.Missing, s.Extra, s.VerdictRight, s.Throws, s.ReasonsRight, s.ValidRight, s.InvalidPublishedValid)
	if *strict && (s.VerdictRight != s.Throws || s.Extra != 0 || s.InvalidPublishedValid != 0) {
		return 1
	}
	return 0
}

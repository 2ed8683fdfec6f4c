package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestCmdRulesCraps(t *testing.T) {
	in := strings.Join([]string{
		`{"verdict":"valid","dice":[2,2]}`,
		`{"verdict":"no_roll","reasons":["off_table"]}`,
		``,
		`{"verdict":"no_roll","reasons":["in_bowl"]}`,
		`{"verdict":"no_roll","reasons":["stacked"]}`,
		`{"verdict":"valid","dice":[3,4]}`,
		`{"verdict":"valid","dice":[6,5]}`,
	}, "\n")
	var out, errb bytes.Buffer
	if code := cmdRules([]string{"craps"}, strings.NewReader(in), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	type rec struct {
		Line            int    `json:"line"`
		Outcome         string `json:"outcome"`
		Phase           string `json:"phase"`
		Point           *int   `json:"point"`
		Puck            string `json:"puck"`
		ShooterMustPass bool   `json:"shooter_must_pass"`
		InvalidStreak   int    `json:"invalid_streak"`
		PassAdvisory    bool   `json:"pass_advisory"`
	}
	var got []rec
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var r rec
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("output line %q: %v", l, err)
		}
		got = append(got, r)
	}
	four := 4
	want := []rec{
		{1, "point_established", "point", &four, "on", false, 0, false},
		{2, "no_roll", "point", &four, "on", false, 1, false},
		{4, "no_roll", "point", &four, "on", false, 2, false},
		{5, "no_roll", "point", &four, "on", false, 3, true},     // 3.7.2
		{6, "seven_out", "come_out", nil, "off", true, 0, false}, // 3.7.1
		{7, "natural", "come_out", nil, "off", false, 0, false},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d lines, want %d:\n%s", len(got), len(want), out.String())
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Line != w.Line || g.Outcome != w.Outcome || g.Phase != w.Phase || g.Puck != w.Puck ||
			g.ShooterMustPass != w.ShooterMustPass || g.InvalidStreak != w.InvalidStreak || g.PassAdvisory != w.PassAdvisory ||
			(g.Point == nil) != (w.Point == nil) || (g.Point != nil && *g.Point != *w.Point) {
			t.Errorf("line %d: got %+v, want %+v", i+1, g, w)
		}
	}
}

func TestCmdRulesErrors(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		in      string
		code    int
		lines   int
		wantErr string
	}{
		{"malformed line stops with its number", []string{"craps"}, "{\"verdict\":\"valid\",\"dice\":[1,2]}\n{\"verdict\":\"valid\",\"dice\":[9,2]}\n{\"verdict\":\"valid\",\"dice\":[1,2]}\n", 1, 1, "line 2:"},
		{"not JSON", []string{"craps"}, "hello\n", 1, 0, "line 1:"},
		{"no game", nil, "", 2, 0, "usage"},
		{"unknown game", []string{"roulette"}, "", 2, 0, "not supported"},
		{"bad flag", []string{"craps", "--nope"}, "", 2, 0, "flag provided but not defined"},
		{"extra argument", []string{"craps", "extra"}, "", 2, 0, "unexpected argument"},
		{"streak out of range", []string{"craps", "--invalid-streak", "500"}, "", 2, 0, "invalid_streak_advisory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := cmdRules(tc.args, strings.NewReader(tc.in), &out, &errb)
			if code != tc.code {
				t.Errorf("exit %d, want %d (stderr %s)", code, tc.code, errb.String())
			}
			if n := strings.Count(out.String(), "\n"); n != tc.lines {
				t.Errorf("%d output lines, want %d", n, tc.lines)
			}
			if !strings.Contains(errb.String(), tc.wantErr) {
				t.Errorf("stderr %q does not contain %q", errb.String(), tc.wantErr)
			}
		})
	}
}

func TestCmdRulesFlagsAfterOrBefore(t *testing.T) {
	in := strings.Repeat("{\"verdict\":\"no_roll\",\"reasons\":[\"cocked\"]}\n", 2)
	for _, args := range [][]string{{"craps", "--invalid-streak", "2"}, {"--invalid-streak", "2", "craps"}} {
		var out, errb bytes.Buffer
		if code := cmdRules(args, strings.NewReader(in), &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		if !strings.Contains(out.String(), `"invalid_streak":2,"pass_advisory":true`) {
			t.Errorf("%v: advisory not raised at 2:\n%s", args, out.String())
		}
	}
	var out, errb bytes.Buffer
	cmdRules([]string{"craps", "--invalid-streak", "0"}, strings.NewReader(strings.Repeat(in, 5)), &out, &errb)
	if strings.Contains(out.String(), `"pass_advisory":true`) {
		t.Errorf("--invalid-streak 0 must disable the advisory:\n%s", out.String())
	}
}

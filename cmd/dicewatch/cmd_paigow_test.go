package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestCmdPaigowDeal(t *testing.T) {
	var out, errb bytes.Buffer
	code := cmdPaigow([]string{"deal", "--dice", "3,5,6", "--chung", "1", "--areas", "7"}, nil, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if got, want := out.String(), "{\"first\":7,\"order\":[7,1,2,3,4,5,6]}\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestCmdPaigowErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		in   string
		code int
		want string
	}{
		{"no subcommand", nil, "", 2, "usage"},
		{"unknown subcommand", []string{"shuffle"}, "", 2, "unknown subcommand"},
		{"bad dice", []string{"deal", "--dice", "3,x,6"}, "", 2, "--dice"},
		{"two dice", []string{"deal", "--dice", "3,6"}, "", 2, "three dice"},
		{"bad flag", []string{"deal", "--nope"}, "", 2, "not defined"},
		{"extra argument", []string{"deal", "--dice", "1,2,3", "x"}, "", 2, "unexpected"},
		{"settle not JSON", []string{"settle"}, "nope", 1, "reading the settlement"},
		{"settle unknown field", []string{"settle"}, `{"mode":"house","areas":7,"tip":5}`, 1, "unknown field"},
		{"settle two documents", []string{"settle"}, `{"mode":"house","areas":7} {}`, 1, "more than one"},
		{"settle invalid", []string{"settle"}, `{"mode":"co_bank","areas":7,"chung":1,"banker_wager":1,"hands":[{"area":2,"wager":100,"result":"win"}]}`, 1, "13.3.1"},
		{"settle bad flag", []string{"settle", "--x"}, "", 2, "not defined"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := cmdPaigow(tc.args, strings.NewReader(tc.in), &out, &errb); code != tc.code {
				t.Errorf("exit %d, want %d", code, tc.code)
			}
			if !strings.Contains(errb.String(), tc.want) {
				t.Errorf("stderr %q does not contain %q", errb.String(), tc.want)
			}
		})
	}
}

func TestCmdPaigowSettle(t *testing.T) {
	in := `{"mode":"player_banker","areas":7,"chung":4,"banker_wager":1000,"hands":[
		{"area":1,"wager":200,"result":"lose"},{"area":2,"wager":50,"result":"win"},
		{"area":5,"wager":300,"result":"lose"},{"area":6,"wager":100,"result":"win"}]}`
	var out, errb bytes.Buffer
	if code := cmdPaigow([]string{"settle"}, strings.NewReader(in), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var r struct {
		Mode   string `json:"mode"`
		Hands  []struct{ Area, Net int64 }
		Banker struct{ Net, Commission int64 }
		House  struct{ Net int64 }
	}
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	sum := r.Banker.Net + r.House.Net
	for _, h := range r.Hands {
		sum += h.Net
	}
	if sum != 0 {
		t.Errorf("money not conserved: %s", out.String())
	}
	if r.Mode != "player_banker" || r.Banker.Net != 333 || r.Banker.Commission != 17 || r.House.Net != 24 || len(r.Hands) != 4 || r.Hands[0].Area != 5 {
		t.Errorf("unexpected settlement: %s", out.String())
	}
}

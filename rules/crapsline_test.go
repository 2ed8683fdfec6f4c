package rules

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestParseCrapsInput(t *testing.T) {
	tests := []struct {
		line    string
		want    Decision
		wantErr string
	}{
		{`{"verdict":"valid","dice":[3,4]}`, roll(3, 4), ""},
		{`{"verdict":"no_roll","reasons":["off_table","staff_call"]}`, Decision{Verdict: NoRoll, Reasons: []Reason{OffTable, StaffCall}}, ""},
		{`{"verdict":"valid","dice":[3,4],"seq":17}`, roll(3, 4), ""},
		{`{"verdict":"valid","dice":[3]}`, Decision{}, "two values 1..6"},
		{`{"verdict":"valid","dice":[0,4]}`, Decision{}, "two values 1..6"},
		{`{"verdict":"valid","dice":[3,4],"reasons":["cocked"]}`, Decision{}, "no reasons"},
		{`{"verdict":"no_roll"}`, Decision{}, "at least one reason"},
		{`{"dice":[1,2]}`, Decision{}, "missing"},
		{`{"verdict":"reroll","reasons":["cocked"]}`, Decision{}, "not one of valid, no_roll"},
		{`{"verdict":"valid",`, Decision{}, "unexpected EOF"},
		{`{"verdict":"valid","dice":[1,2]} {}`, Decision{}, "more than one"},
		{`{"verdict":"valid","dice":"1,2"}`, Decision{}, "cannot unmarshal"},
	}
	for _, tc := range tests {
		t.Run(tc.line, func(t *testing.T) {
			got, err := ParseCrapsInput([]byte(tc.line))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestCrapsReportJSON(t *testing.T) {
	p := DefaultProfile(Craps)
	s := NewCrapsState()
	var lines []string
	for i, d := range []Decision{roll(2, 3), noRoll, roll(3, 4)} {
		var o Outcome
		s, o, _ = s.Apply(d, p)
		b, err := json.Marshal(s.Report(i+1, o, d))
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	want := []string{
		`{"line":1,"outcome":"point_established","total":5,"phase":"point","point":5,"puck":"on","shooter_must_pass":false,"invalid_streak":0,"pass_advisory":false}`,
		`{"line":2,"outcome":"no_roll","phase":"point","point":5,"puck":"on","shooter_must_pass":false,"invalid_streak":1,"pass_advisory":false}`,
		`{"line":3,"outcome":"seven_out","total":7,"phase":"come_out","point":null,"puck":"off","shooter_must_pass":true,"invalid_streak":0,"pass_advisory":false}`,
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("line %d:\ngot  %s\nwant %s", i+1, lines[i], want[i])
		}
	}
}

// A shooter's hand: point of 6 set, a no-roll, the point made, then a
// seven on the come-out (a natural) and a point of 4 that sevens out.
func ExampleCrapsState_Apply() {
	p := DefaultProfile(Craps)
	s := NewCrapsState()
	for _, d := range []Decision{roll(2, 4), noRoll, roll(3, 3), roll(5, 2), roll(1, 3), roll(6, 1)} {
		var o Outcome
		s, o, _ = s.Apply(d, p)
		fmt.Println(o, s.Phase, s.Point, s.Puck(), s.MustPass)
	}
	// Output:
	// point_established point 6 on false
	// no_roll point 6 on false
	// point_made come_out 0 off false
	// natural come_out 0 off false
	// point_established point 4 on false
	// seven_out come_out 0 off true
}

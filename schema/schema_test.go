package schema

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestExamplesValidate(t *testing.T) {
	names := Names()
	if len(names) != 8 {
		t.Fatalf("schemas: %v", names)
	}
	for _, n := range names {
		b, err := Raw(n)
		if err != nil {
			t.Fatal(err)
		}
		var s struct {
			Examples []json.RawMessage `json:"examples"`
		}
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		if len(s.Examples) == 0 {
			t.Errorf("%s: no examples", n)
		}
		for i, ex := range s.Examples {
			if err := ValidateAs(n, ex); err != nil {
				t.Errorf("%s example %d: %v", n, i, err)
			}
		}
	}
}

func TestRejects(t *testing.T) {
	const env = `"table":"t1","seq":5,"id":"9f2c4e1a7b3d5c60-5","ts":"2026-11-22T07:30:01.250Z"`
	cases := []struct {
		name    string
		payload string
		want    string // substring of the error; "" means valid
	}{
		{"valid roll", `{"schema":"dicewatch/roll/v1",` + env + `,"verdict":"valid","values":[3,4],"total":7}`, ""},
		{"roll with extra evidence", `{"schema":"dicewatch/roll/v1",` + env + `,"verdict":"valid","values":[1],"total":1,"throw":{"dice":[]}}`, ""},
		{"roll missing total", `{"schema":"dicewatch/roll/v1",` + env + `,"verdict":"valid","values":[3,4]}`, `"total" is required`},
		{"roll face 7", `{"schema":"dicewatch/roll/v1",` + env + `,"verdict":"valid","values":[7,4],"total":11}`, "above 6"},
		{"roll not valid verdict", `{"schema":"dicewatch/roll/v1",` + env + `,"verdict":"no_roll","values":[3],"total":3}`, "is not"},
		{"noroll without reasons", `{"schema":"dicewatch/noroll/v1",` + env + `,"verdict":"no_roll","reasons":[]}`, "at least 1"},
		{"noroll unknown reason", `{"schema":"dicewatch/noroll/v1",` + env + `,"verdict":"no_roll","reasons":["sneeze"]}`, "not one of"},
		{"ts not UTC", `{"schema":"dicewatch/event/v1","table":"t1","seq":5,"id":"9f2c4e1a7b3d5c60-5","ts":"2026-11-22T08:30:01+01:00","event":"x"}`, "UTC"},
		{"ts not a date", `{"schema":"dicewatch/event/v1","table":"t1","seq":5,"id":"9f2c4e1a7b3d5c60-5","ts":"yesterday","event":"x"}`, "RFC 3339"},
		{"seq zero", `{"schema":"dicewatch/event/v1","table":"t1","seq":0,"id":"9f2c4e1a7b3d5c60-5","ts":"2026-11-22T07:30:01Z","event":"x"}`, "below 1"},
		{"seq float", `{"schema":"dicewatch/event/v1","table":"t1","seq":1.5,"id":"9f2c4e1a7b3d5c60-5","ts":"2026-11-22T07:30:01Z","event":"x"}`, "want integer"},
		{"bad id", `{"schema":"dicewatch/event/v1","table":"t1","seq":5,"id":"x","ts":"2026-11-22T07:30:01Z","event":"x"}`, "does not match"},
		{"status extra key", `{"schema":"dicewatch/status/v1","table":"t1","id":"9f2c4e1a7b3d5c60-status-0a1b2c3d4e5f","ts":"2026-11-22T07:30:01Z","status":"online","client_id":"c","last_seq":0,"password":"x"}`, "not allowed"},
		{"unknown schema", `{"schema":"dicewatch/nope/v1"}`, "nope"},
		{"no schema", `{"seq":1}`, "not dicewatch"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := Validate([]byte(c.payload))
			if c.want == "" {
				if err != nil {
					t.Fatalf("valid payload rejected: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want it to contain %q", err, c.want)
			}
		})
	}
}

func TestUnknownKeywordIsAnError(t *testing.T) {
	v := &validator{root: map[string]any{}}
	err := v.check(map[string]any{"oneOf": []any{}}, "x", "$")
	if err == nil || !strings.Contains(err.Error(), "unsupported") {
		t.Fatalf("got %v", err)
	}
}

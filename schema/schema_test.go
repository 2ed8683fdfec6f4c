package schema

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestExamplesValidate(t *testing.T) {
	if names := Names(); len(names) != 8 {
		t.Fatalf("schemas: %v", names)
	}
	vers := Versions()
	if len(vers) != 9 {
		t.Fatalf("schema files: %v", vers)
	}
	for _, n := range vers {
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
	const st = `"table":"t1","id":"9f2c4e1a7b3d5c60-status-0a1b2c3d4e5f","ts":"2026-11-22T07:30:01Z","client_id":"c","last_seq":4`
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
		{"unknown version", `{"schema":"dicewatch/roll/v3",` + env + `,"verdict":"valid","values":[1],"total":1}`, "roll.v3"},
		{"version not a number", `{"schema":"dicewatch/roll/vx"}`, "not dicewatch"},
		{"version zero", `{"schema":"dicewatch/roll/v0"}`, "not dicewatch"},
		{"status v1 online", `{"schema":"dicewatch/status/v1",` + st + `,"status":"online","version":"0.1.0"}`, ""},
		{"status v1 journal_damaged", `{"schema":"dicewatch/status/v1",` + st + `,"status":"offline","reason":"journal_damaged"}`, "not one of"},
		{"status v1 detail", `{"schema":"dicewatch/status/v1",` + st + `,"status":"offline","reason":"shutdown","detail":"x"}`, "not allowed"},
		{"status v2 journal_damaged", `{"schema":"dicewatch/status/v2",` + st + `,"status":"offline","reason":"journal_damaged","detail":"seq 5: crc"}`, ""},
		{"status v2 connection_lost", `{"schema":"dicewatch/status/v2",` + st + `,"status":"offline","reason":"connection_lost"}`, ""},
		{"status v2 unknown reason", `{"schema":"dicewatch/status/v2",` + st + `,"status":"offline","reason":"nap"}`, "not one of"},
		{"status v2 extra key", `{"schema":"dicewatch/status/v2",` + st + `,"status":"online","password":"x"}`, "not allowed"},
		{"status v2 payload named v1", `{"schema":"dicewatch/status/v1",` + st + `,"status":"offline","reason":"journal_damaged","detail":"x"}`, "not allowed"},
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

// TestPublishedSchemasUnchanged: a published schema file is never edited
// (a consumer validates against the copy it took); a change to a contract
// is a new version. The hashes are of the files as published. In session
// 21 status.v1.json had been given a new reason and property in place,
// which a consumer validating strictly against v1 rejects; they went into
// status.v2.json instead.
func TestPublishedSchemasUnchanged(t *testing.T) {
	published := map[string]string{
		"cmd-envelope.v1": "0ae9ac4619eb67edeab4a2f500c9e9f93e431829cfb3eca05ca90311028295f3",
		"cmd.v1":          "507b701a73cd4540c0c3492b4a13204274c8fc306551b249f1bfcdb29b04e90c",
		"event.v1":        "5350814eb72ba6a0fb5987e8ed1f8775b563d98699c32ce4b6b8c839c498e5bf",
		"noroll.v1":       "d2ecc56a514a7d5903add030d44b495bc1ee75e1270199b1e3288b876ad9d051",
		"roll.v1":         "f2cbc36e6aa943ca7eab5003d6584c47dbbf0301d6c61d1089dc4730b5967ea1",
		"snapshot.v1":     "fdcbdf7d416a9d65a6799c54eeae8126ab23d1f2c54425f9d2c479bcbd75b969",
		"state.v1":        "6dae4379891ba44b6866897741185a7fd66a01c400f86d09eb25dab539b8adac",
		"status.v1":       "6fe390607d2adee240cf4eda5235063ac4c988bb8a6d946343f9257e124565dc",
	}
	for name, want := range published {
		b, err := Raw(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprintf("%x", sha256.Sum256(b)); got != want {
			t.Errorf("%s.json changed after it was published (sha256 %s, published %s): put the change in a new version", name, got, want)
		}
	}
}

func TestNewestVersion(t *testing.T) {
	if v := Latest("status"); v != 2 {
		t.Errorf("status newest version %d, want 2", v)
	}
	if v := Latest("roll"); v != 1 {
		t.Errorf("roll newest version %d, want 1", v)
	}
	for name, want := range map[string]string{"status": "dicewatch/status/v2", "status.v1": "dicewatch/status/v1", "status.v2": "dicewatch/status/v2", "roll": "dicewatch/roll/v1"} {
		b, err := Raw(name)
		if err != nil {
			t.Fatal(err)
		}
		var s struct {
			Properties struct {
				Schema struct {
					Const string `json:"const"`
				} `json:"schema"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		if s.Properties.Schema.Const != want {
			t.Errorf("Raw(%q) is the schema of %q, want %q", name, s.Properties.Schema.Const, want)
		}
	}
}

package main

import (
	"strings"
	"testing"

	"github.com/dicewatch/dicewatch/schema"
)

// TestDescribe: the lines dicewatch watch (the demo's window) prints for
// each kind of message: the time of day, the topic, seq; a roll's values
// and clip; a no roll's verdict, reasons and what was read; a snapshot as
// the decision it shows (it was not subscribed before, so the demo's seq
// seemed to skip every third number); a status with why it went offline.
func TestDescribe(t *testing.T) {
	for _, c := range []struct {
		name, topic, payload string
		retained             bool
		want                 string
	}{
		{"roll", "dicewatch/t1/roll",
			`{"schema":"dicewatch/roll/v1","table":"t1","seq":1042,"id":"e-1042","ts":"2026-11-22T07:30:01.250Z","verdict":"valid","values":[3,4],"total":7,"advisories":["hit_chips"],"clip":{"file":"t1-x.avi","from_ms":1,"to_ms":2}}`,
			false, "07:30:01.250 roll     seq=1042 VALID   [3 4] total=7 advisories=[hit_chips] clip=t1-x.avi"},
		{"noroll", "dicewatch/t1/noroll",
			`{"schema":"dicewatch/noroll/v1","table":"t1","seq":1043,"id":"e-1043","ts":"2026-11-22T07:30:19.020Z","verdict":"no_roll","reasons":["cocked"],"values":[5,0]}`,
			false, "07:30:19.020 noroll   seq=1043 NO ROLL reasons=[cocked] read=[5 0]"},
		{"reroll", "dicewatch/t1/noroll",
			`{"schema":"dicewatch/noroll/v1","table":"t1","seq":7,"id":"e-7","ts":"2026-11-22T07:30:19.020Z","verdict":"reroll","reasons":["wrong_side"]}`,
			false, "07:30:19.020 noroll   seq=7    REROLL reasons=[wrong_side]"},
		{"snapshot", "dicewatch/t1/snapshot",
			`{"schema":"dicewatch/snapshot/v1","table":"t1","seq":1044,"id":"e-1044","ts":"2026-11-22T07:30:19.030Z","decision_id":"e-1043","content_type":"image/jpeg","jpeg":"` + strings.Repeat("QUJD", 1024) + `","width":960,"height":540}`,
			false, "07:30:19.030 snapshot seq=1044 picture of decision e-1043: 960x540 JPEG, 3 KB"},
		{"status offline", "dicewatch/t1/status",
			`{"schema":"dicewatch/status/v1","table":"t1","id":"9f2c4e1a7b3d5c60-status-0a1b2c3d4e5f","ts":"2026-11-22T08:00:00.000Z","status":"offline","client_id":"dicewatch-t1","last_seq":1044,"reason":"connection_lost"}`,
			true, "08:00:00.000 status   offline (connection_lost) last_seq=1044 (retained)"},
		{"status v2 offline", "dicewatch/t1/status",
			`{"schema":"dicewatch/status/v2","table":"t1","id":"9f2c4e1a7b3d5c60-status-0a1b2c3d4e5f","ts":"2026-11-22T08:00:00.000Z","status":"offline","client_id":"dicewatch-t1","last_seq":1044,"reason":"connection_lost"}`,
			true, "08:00:00.000 status   offline (connection_lost) last_seq=1044 (retained)"},
		{"status journal damaged", "dicewatch/t1/status",
			`{"schema":"dicewatch/status/v2","table":"t1","id":"9f2c4e1a7b3d5c60-status-0a1b2c3d4e5f","ts":"2026-11-22T08:00:00.000Z","status":"offline","client_id":"dicewatch-t1","last_seq":1044,"reason":"journal_damaged","detail":"seq 5: corrupt"}`,
			true, "08:00:00.000 status   offline (journal_damaged) last_seq=1044 detail=\"seq 5: corrupt\" (retained)"},
		{"fault", "dicewatch/t1/event",
			`{"schema":"dicewatch/event/v1","table":"t1","seq":1050,"id":"e-1050","ts":"2026-11-22T08:02:11.400Z","event":"fault","what":"disk","state":"raised","detail":"212 MB free"}`,
			false, "08:02:11.400 event    seq=1050 event=fault what=disk state=raised detail=212 MB free"},
		{"no ts", "dicewatch/t1/event", `{"seq":3,"event":"x"}`, false, "--:--:--.--- event    seq=3    event=x"},
	} {
		t.Run(c.name, func(t *testing.T) {
			// The fixtures are payloads as published (v1 status as an
			// older daemon sends it, v2 as this one does): each is valid
			// under the schema it names.
			if strings.HasSuffix(c.topic, "/status") {
				if err := schema.Validate([]byte(c.payload)); err != nil {
					t.Errorf("fixture: %v", err)
				}
			}
			if got := describe(c.topic, []byte(c.payload), c.retained); got != c.want {
				t.Errorf("describe:\n got %q\nwant %q", got, c.want)
			}
		})
	}
}

// TestSeqWatch: watch marks re-deliveries and gaps per table, as the MQTT
// contract tells a consumer to; retained messages (old, sent on
// subscribing) are not followed.
func TestSeqWatch(t *testing.T) {
	w := newSeqWatch()
	steps := []struct {
		payload  string
		retained bool
		want     string
	}{
		{`{"table":"t1","seq":41}`, true, ""}, // retained state from before
		{`{"table":"t1","seq":50}`, false, ""},
		{`{"table":"t1","seq":51}`, false, ""},
		{`{"table":"t2","seq":3}`, false, ""}, // another table has its own seq
		{`{"table":"t1","seq":50}`, false, "  (re-delivery: already seen)"},
		{`{"table":"t1","seq":53}`, false, "  (GAP: seq 52 not received)"},
		{`{"table":"t1","seq":60}`, false, "  (GAP: seq 54..59 not received)"},
		{`{"table":"t2","seq":4}`, false, ""},
		{`{"table":"t1","status":"online"}`, false, ""}, // status has no seq
	}
	for i, s := range steps {
		if got := w.note([]byte(s.payload), s.retained); got != s.want {
			t.Errorf("step %d %s: %q, want %q", i, s.payload, got, s.want)
		}
	}
}

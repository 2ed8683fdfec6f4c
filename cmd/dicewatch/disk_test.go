package main

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/dicewatch/dicewatch/journal"
	"github.com/dicewatch/dicewatch/mqtt"
	"github.com/dicewatch/dicewatch/ops"
	"github.com/dicewatch/dicewatch/schema"
)

// TestDiskNearlyFull drives the disk watch with a fake statfs through
// raise, hysteresis, an unknown reading and clear, and checks that each
// change is one journalled event whose MQTT payload fits event.v1.json.
func TestDiskNearlyFull(t *testing.T) {
	j, err := journal.Open(t.TempDir(), journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	const mb = 1 << 20
	free := map[string]uint64{"/j": 1000 * mb, "/c": 1000 * mb}
	var statErr error
	var got []journal.Record
	m := ops.NewMetrics("test")
	health := ops.NewHealth(time.Now)
	d := &diskWatch{
		paths: []string{"/j", "/c"}, minFree: 256 * mb, metrics: m, health: health,
		log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		space: func(p string) (uint64, uint64, error) {
			if statErr != nil {
				return 0, 0, statErr
			}
			return free[p], 4096 * mb, nil
		},
		emit: func(body map[string]any) {
			r, err := j.Append("event", time.Now().UTC(), body)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, r)
		},
	}
	steps := []struct {
		name     string
		j, c     uint64 // MB free
		statErr  error
		want     string // "raised", "cleared" or "" for no event
		healthy  bool
		gaugeOfC float64
	}{
		{"plenty", 1000, 1000, nil, "", true, 1000 * mb},
		{"clips disk low", 1000, 100, nil, "raised", false, 100 * mb},
		{"still low", 1000, 200, nil, "", false, 200 * mb},
		{"back over the limit but within the margin", 1000, 270, nil, "", false, 270 * mb},
		{"statfs fails: unknown is not cleared", 1000, 1000, errors.New("statfs: EIO"), "", false, 270 * mb},
		{"a tenth over the limit", 1000, 300, nil, "cleared", true, 300 * mb},
		{"journal disk low", 10, 1000, nil, "raised", false, 1000 * mb},
	}
	for _, s := range steps {
		got = got[:0]
		free["/j"], free["/c"], statErr = s.j*mb, s.c*mb, s.statErr
		d.check()
		switch {
		case s.want == "" && len(got) != 0:
			t.Errorf("%s: %d events, want none", s.name, len(got))
		case s.want != "" && len(got) != 1:
			t.Errorf("%s: %d events, want one %s", s.name, len(got), s.want)
		case s.want != "":
			p := mqtt.Encode("t1", got[0])
			if err := schema.Validate(p); err != nil {
				t.Errorf("%s: payload %s: %v", s.name, p, err)
			}
			var body struct{ Event, What, State string }
			if err := json.Unmarshal(got[0].Body, &body); err != nil {
				t.Fatal(err)
			}
			if body.Event != "fault" || body.What != "disk" || body.State != s.want {
				t.Errorf("%s: event %+v, want fault disk %s", s.name, body, s.want)
			}
		}
		if h := health.Report().Components[ops.ComponentDisk].Healthy; h != s.healthy {
			t.Errorf("%s: healthy %v, want %v", s.name, h, s.healthy)
		}
		if g := m.DiskFreeBytes.With("/c").Value(); g != s.gaugeOfC {
			t.Errorf("%s: dicewatch_disk_free_bytes{path=/c} = %v, want %v", s.name, g, s.gaugeOfC)
		}
	}
}

package main

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dicewatch/dicewatch/config"
	"github.com/dicewatch/dicewatch/journal"
	"github.com/dicewatch/dicewatch/journal/journaltest"
	"github.com/dicewatch/dicewatch/mqtt"
	"github.com/dicewatch/dicewatch/ops"
	"github.com/dicewatch/dicewatch/schema"
)

// TestDiskNearlyFull drives the disk watch with a fake statfs through
// raise, hysteresis, an unknown reading and clear, and checks that each
// change is one journalled event whose MQTT payload fits event.v1.json,
// of the fault of the file system that changed (the journal's and the
// clips' are two).
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
		dirs: []watchedDir{{"journal", "/j"}, {"clips", "/c"}}, minFree: 256 * mb, metrics: m, health: health,
		fsID: func(p string) (uint64, error) {
			if statErr != nil {
				return 0, statErr
			}
			return map[string]uint64{"/j": 1, "/c": 2}[p], nil
		},
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
		what     string // the fault the event is of
		healthy  bool   // both faults
		gaugeOfC float64
	}{
		{"plenty", 1000, 1000, nil, "", "", true, 1000 * mb},
		{"clips disk low", 1000, 100, nil, "raised", "disk:clips", false, 100 * mb},
		{"still low", 1000, 200, nil, "", "", false, 200 * mb},
		{"back over the limit but within the margin", 1000, 270, nil, "", "", false, 270 * mb},
		{"statfs fails: unknown is not cleared", 1000, 1000, errors.New("statfs: EIO"), "", "", false, 270 * mb},
		{"a tenth over the limit", 1000, 300, nil, "cleared", "disk:clips", true, 300 * mb},
		{"journal disk low", 10, 1000, nil, "raised", "disk", false, 1000 * mb},
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
			if body.Event != "fault" || body.What != s.what || body.State != s.want {
				t.Errorf("%s: event %+v, want fault %s %s", s.name, body, s.what, s.want)
			}
		}
		rep := health.Report()
		if h := rep.Components["disk"].Healthy && rep.Components["disk:clips"].Healthy; h != s.healthy {
			t.Errorf("%s: healthy %v, want %v", s.name, h, s.healthy)
		}
		if g := m.DiskFreeBytes.With("/c").Value(); g != s.gaugeOfC {
			t.Errorf("%s: dicewatch_disk_free_bytes{path=/c} = %v, want %v", s.name, g, s.gaugeOfC)
		}
	}
}

// TestDiskWatchEveryFolder watches the four folders the daemon writes on
// three real tmpfs mounts: the journal and the MQTT state on one, the hold
// file on another, the clips on a third. Filling each mount raises that
// mount's fault alone, once however many folders it holds, and emptying it
// clears it; every folder has its free space in dicewatch_disk_free_bytes.
// A folder of the journal's mount made a mount of its own under the daemon
// (the state folder moved to a new disk) is watched apart from then, and
// with the journal again once that mount goes, its own fault cleared.
func TestDiskWatchEveryFolder(t *testing.T) {
	main, hold, clips := journaltest.SmallDisk(t, "4m"), journaltest.SmallDisk(t, "1m"), journaltest.SmallDisk(t, "1m")
	dirs := []watchedDir{
		{"journal", filepath.Join(main, "journal")}, {"clips", filepath.Join(clips, "clips")},
		{"hold", filepath.Join(hold, "held")}, {"state", filepath.Join(main, "mqtt")},
	}
	for _, w := range dirs {
		if err := os.MkdirAll(w.path, 0o750); err != nil {
			t.Fatal(err)
		}
	}
	type event struct{ what, state string }
	var got []event
	var details []string
	m := ops.NewMetrics("test")
	health := ops.NewHealth(time.Now)
	d := &diskWatch{
		dirs: dirs, minFree: 256 << 20, space: ops.DiskSpace, fsID: ops.FileSystemID,
		metrics: m, health: health, log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		emit: func(body map[string]any) {
			if err := schema.Validate(mqtt.Encode("t1", journalRecord(t, body))); err != nil {
				t.Errorf("event %v: %v", body, err)
			}
			got = append(got, event{body["what"].(string), body["state"].(string)})
			if d, ok := body["detail"].(string); ok {
				details = append(details, d)
			}
		},
	}
	stateSeen := false // the state folder has stood apart
	step := func(name string, want ...event) {
		t.Helper()
		got = got[:0]
		d.check()
		if !slices.Equal(got, want) {
			t.Errorf("%s: events %v, want %v", name, got, want)
		}
		for _, w := range dirs {
			free, _, err := ops.DiskSpace(w.path)
			if err != nil {
				t.Fatal(err)
			}
			if g := m.DiskFreeBytes.With(w.path).Value(); g != float64(free) {
				t.Errorf("%s: dicewatch_disk_free_bytes{path=%s} = %v, want %d", name, w.path, g, free)
			}
		}
		faults := []string{"disk", "disk:clips", "disk:hold"}
		if stateSeen {
			faults = append(faults, "disk:state")
		}
		for _, f := range faults {
			raised := d.raised[f]
			if h, ok := health.Report().Components[f]; !ok || h.Healthy == raised {
				t.Errorf("%s: /healthz %s %+v (reported %v), want healthy %v", name, f, h, ok, !raised)
			}
		}
		// Until its folder stands apart, the state has no fault of its own.
		if _, ok := health.Report().Components["disk:state"]; ok != stateSeen {
			t.Errorf("%s: /healthz has disk:state %v, want %v", name, ok, stateSeen)
		}
	}
	step("room everywhere")
	fill := func(dir string) string {
		t.Helper()
		p := filepath.Join(dir, "filler")
		if err := journaltest.Fill(p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	h := fill(hold)
	step("hold disk full", event{"disk:hold", "raised"})
	step("hold disk still full")
	c := fill(clips)
	step("clips disk full too", event{"disk:clips", "raised"})
	j := fill(main)
	step("journal and state disk full: one fault", event{"disk", "raised"})
	// One fault names both folders; a 4 MB tmpfs's limit is a quarter of it.
	if want := dirs[0].path + ", " + dirs[3].path + ": "; len(details) == 0 || !strings.HasPrefix(details[len(details)-1], want) ||
		!strings.HasSuffix(details[len(details)-1], "free, under 1 MB") {
		t.Errorf("the journal and state fault's detail %q: want it to start %q and end \"free, under 1 MB\"", details, want)
	}
	for _, p := range []string{h, c, j} {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	step("all emptied", event{"disk", "cleared"}, event{"disk:clips", "cleared"}, event{"disk:hold", "cleared"})
	// The state folder becomes a mount of its own, and that mount fills.
	state := dirs[3].path
	if err := syscall.Mount("tmpfs", state, "tmpfs", 0, "size=1m"); err != nil {
		t.Fatal(err)
	}
	mounted := true
	defer func() {
		if mounted {
			syscall.Unmount(state, syscall.MNT_DETACH)
		}
	}()
	stateSeen = true
	fill(state)
	step("state on its own mount", event{"disk:state", "raised"})
	// The journal's mount fills while the state's is full: each its own.
	fill(main)
	step("journal disk full again", event{"disk", "raised"})
	// The state's mount goes: its folder is on the journal's file system
	// again, under that fault, and its own fault is cleared.
	if err := syscall.Unmount(state, syscall.MNT_DETACH); err != nil {
		t.Fatal(err)
	}
	mounted = false
	step("state back on the journal's disk", event{"disk:state", "cleared"})
}

// journalRecord journals body in a fresh journal and returns its record.
func journalRecord(t *testing.T, body map[string]any) journal.Record {
	t.Helper()
	j, err := journal.Open(t.TempDir(), journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	r, err := j.Append("event", time.Now().UTC(), body)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestWatchedDirs: the daemon watches the journal, and the clips, the hold
// file's folder and the MQTT state when it writes them, in that order (the
// order that names a shared file system's fault).
func TestWatchedDirs(t *testing.T) {
	var cfg config.Config
	cfg.Journal.Dir, cfg.Evidence.Dir, cfg.MQTT.StateDir = "/var/lib/dw/journal", "/srv/clips", "/var/lib/dw/mqtt"
	j, c, s := watchedDir{"journal", "/var/lib/dw/journal"}, watchedDir{"clips", "/srv/clips"}, watchedDir{"state", "/var/lib/dw/mqtt"}
	h := watchedDir{"hold", "/run/dw/held"}
	for _, tc := range []struct {
		name                string
		hold, clips, broker bool
		want                []watchedDir
	}{
		{"all", true, true, true, []watchedDir{j, c, h, s}},
		{"no broker, no clips", true, false, false, []watchedDir{j, h}},
		{"no hold_dir", false, true, true, []watchedDir{j, c, s}},
	} {
		cfg.Journal.HoldDir = ""
		if tc.hold {
			cfg.Journal.HoldDir = h.path
		}
		if got := watchedDirs(&cfg, tc.clips, tc.broker); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

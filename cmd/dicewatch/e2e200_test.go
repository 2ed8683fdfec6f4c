package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dicewatch/dicewatch/mqtt/mqtttest"
	"github.com/dicewatch/dicewatch/rules"
	"github.com/dicewatch/dicewatch/vision/scene"
)

// e2e200Config is the size of the long end-to-end run. By default the test
// renders a short session so that `go test ./cmd/dicewatch` stays quick,
// and checks one decision per throw and no invalid throw published valid
// (the accuracy bar needs the long run); DICEWATCH_E2E200=1 (or `make
// e2e200`) runs the full 200 throws and holds the 99.5% bar.
// DICEWATCH_E2E200_SEED and DICEWATCH_E2E200_THROWS override the seed and
// the number of throws, so a held-out seed is one command.
func e2e200Config(t *testing.T) (seed int64, throws int) {
	t.Helper()
	seed, throws = 404, 12
	if os.Getenv("DICEWATCH_E2E200") == "1" {
		throws = 200
	}
	if s := os.Getenv("DICEWATCH_E2E200_SEED"); s != "" {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("DICEWATCH_E2E200_SEED=%q: %v", s, err)
		}
		seed = v
	}
	if s := os.Getenv("DICEWATCH_E2E200_THROWS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 {
			t.Fatalf("DICEWATCH_E2E200_THROWS=%q: want a positive integer", s)
		}
		throws = v
	}
	return seed, throws
}

// TestEndToEnd200 renders a long generated session (the demo's 1920x1080
// 30 fps camera, a seeded mix of all throw kinds, about half valid) with
// its synchronised sensor trace, runs `dicewatch run` on it as a real
// process publishing to a real mosquitto, and scores what a subscriber
// receives against the generator's ground truth. It fails unless every
// throw gets exactly one decision, the verdict is right for at least 99.5%
// of throws, and no invalid throw is published as valid. It prints the
// confusion table of truth verdict by decided verdict.
func TestEndToEnd200(t *testing.T) {
	if testing.Short() {
		t.Skip("renders a long recording and runs the daemon: skipped with -short")
	}
	seed, throws := e2e200Config(t)
	dir := t.TempDir()
	session := e2e200Session(t, seed, throws)

	broker := mqtttest.StartBroker(t)
	sub := mqtttest.Subscribe(t, broker.URL(), mqtttest.SubscriberOptions{ClientID: "e2e200-sub"}, "dicewatch/e2e200/#")
	// The demo's vision and throw settings, so this run measures what
	// `make demo` shows; evidence clips are off (TestEndToEndSession checks
	// them) to keep the long run's disk use to the recording.
	cfgPath := daemonConfig{Table: "e2e200", Source: "file:" + filepath.Join(session, scene.FileVideo) + "?pace=fast",
		Calibration: filepath.Join(session, scene.FileCalibration), Journal: filepath.Join(dir, "journal"),
		Broker: broker.URL(), HTTP: "127.0.0.1:0",
		Extra: `vision:
  settle_ms: 300
throw:
  max_duration_ms: 15000
  staff_call_grace_ms: 0
profile:
  game: craps
  cocked: no_roll
` + noClips + e2eSensors,
	}.Write(t, filepath.Join(dir, "dicewatch.yaml"))
	run := dicewatchProcess(t, "run", "--config", cfgPath, "--exit-at-eof",
		"--sensor-trace", filepath.Join(session, scene.FileSensors))
	var stderr bytes.Buffer
	run.Stderr = &stderr
	start := time.Now()
	if err := run.Run(); err != nil {
		t.Fatalf("daemon: %v\n%s", err, tail(stderr.String(), 30))
	}
	t.Logf("daemon ran the session in %.1f s", time.Since(start).Seconds())
	defer func() {
		if t.Failed() {
			t.Logf("daemon log (last 30 lines):\n%s", tail(stderr.String(), 30))
		}
	}()

	truth, err := readTruth(filepath.Join(session, scene.FileTruth))
	if err != nil {
		t.Fatal(err)
	}
	if len(truth) != throws {
		t.Fatalf("truth has %d throws; rendered %d", len(truth), throws)
	}
	// The daemon exits only once the broker has acknowledged every decision
	// it journalled, so the subscriber waits for those to be delivered (a
	// throw the daemon missed is scored below as missing, not waited for).
	journalled, err := readDecisions(filepath.Join(dir, "journal"))
	if err != nil {
		t.Fatal(err)
	}
	isDecision := func(topic string) bool {
		return strings.HasSuffix(topic, "/roll") || strings.HasSuffix(topic, "/noroll")
	}
	msgs := sub.Wait(30*time.Second, func(ms []mqtttest.Message) bool {
		n := 0
		for _, m := range ms {
			if isDecision(m.Topic) {
				n++
			}
		}
		return n >= len(journalled)
	})
	var ds []decided
	for _, m := range msgs {
		if !isDecision(m.Topic) {
			continue
		}
		var d decided
		if err := json.Unmarshal(m.Payload, &d.decisionBody); err != nil {
			t.Fatalf("%s: %v", m.Topic, err)
		}
		d.Seq = m.Seq
		if (d.Verdict == rules.Valid) != strings.HasSuffix(m.Topic, "/roll") {
			t.Errorf("verdict %s published on %s", d.Verdict, m.Topic)
		}
		ds = append(ds, d)
	}

	s := scoreDecisions(truth, ds)
	for _, r := range s.Rows {
		if r.Verdict && (r.Truth.Expected.Verdict != rules.Valid || r.Reasons) {
			continue
		}
		got := "(none)"
		if r.Got != nil {
			got = describeDecision(rules.Decision{Verdict: r.Got.Verdict, Values: r.Got.Values, Total: r.Got.Total, Reasons: r.Got.Reasons})
		}
		t.Logf("miss: throw %d %-9s at rest %6.2f s expected %-24s decided %s",
			r.Truth.Throw, r.Truth.Kind, float64(r.Truth.AtRestMS)/1000, describeDecision(r.Truth.Expected), got)
	}
	t.Logf("confusion (rows truth verdict, columns decided verdict), seed %d, %d throws:\n%s", seed, len(truth), confusionTable(s))
	acc := float64(s.VerdictRight) / float64(len(truth))
	validTruth := 0
	for _, r := range s.Rows {
		if r.Truth.Expected.Verdict == rules.Valid {
			validTruth++
		}
	}
	t.Logf("seed %d: %d throws, %d decisions (missing %d, extra %d); verdict right %d/%d = %.2f%%; valid rolls with the right values %d/%d; no-rolls with the right reasons %d/%d; invalid published as valid %d",
		seed, len(truth), len(ds), s.Missing, s.Extra, s.VerdictRight, len(truth), 100*acc,
		s.ValidRight, validTruth, s.ReasonsRight, len(truth)-validTruth, s.InvalidPublishedValid)

	if len(ds) != len(journalled) {
		t.Errorf("%d decisions received over MQTT; the daemon journalled %d", len(ds), len(journalled))
	}
	if len(ds) != len(truth) || s.Missing != 0 || s.Extra != 0 {
		t.Errorf("%d decisions for %d throws (missing %d, extra %d): each throw must yield exactly one", len(ds), len(truth), s.Missing, s.Extra)
	}
	if s.InvalidPublishedValid != 0 {
		t.Errorf("%d invalid throws published as valid", s.InvalidPublishedValid)
	}
	// On the default dozen throws one miss is 8%: there the accuracy is
	// reported, and the bar is held on an asked-for long run.
	long := os.Getenv("DICEWATCH_E2E200") == "1" || os.Getenv("DICEWATCH_E2E200_THROWS") != ""
	if acc < 0.995 && !long {
		t.Logf("verdict accuracy %.2f%% (%d/%d): below the 99.5%% bar, which is checked on the long run (DICEWATCH_E2E200=1)", 100*acc, s.VerdictRight, len(truth))
	}
	if acc < 0.995 && long {
		t.Errorf("verdict accuracy %.2f%% (%d/%d); want at least 99.5%%", 100*acc, s.VerdictRight, len(truth))
	}
}

// e2e200Session renders the session into a temporary directory, or, with
// DICEWATCH_E2E200_DIR=DIR, into DIR/seed-S-throws-N-qQ, where a later run
// with the same seed and count reuses it (a 200-throw recording takes
// minutes to render and about 5 GB). A reused session must have been
// rendered with the same seed, count and camera.
// e2e200JPEGQuality is the generator's default JPEG quality. At it, 200
// throws of 1920x1080 at 30 fps come to about 5.4 GB, past AVI 1.0's 4 GiB;
// the MJPG AVI writer (vision/avi) writes such a file as OpenDML AVI, which
// gocv.VideoCaptureFile reads. At quality 60 the daemon found only 48 of
// 100 throws (seed 404).
const e2e200JPEGQuality = 80

// e2e200Rendered marks a session directory whose render finished.
const e2e200Rendered = ".rendered"

func e2e200Session(t *testing.T, seed int64, throws int) string {
	t.Helper()
	dir := t.TempDir()
	if root := os.Getenv("DICEWATCH_E2E200_DIR"); root != "" {
		dir = filepath.Join(root, fmt.Sprintf("seed-%d-throws-%d-q%d", seed, throws, e2e200JPEGQuality))
		// The manifest is written before the video: the stamp says the
		// render finished.
		_, done := os.Stat(filepath.Join(dir, e2e200Rendered))
		if b, err := os.ReadFile(filepath.Join(dir, scene.FileManifest)); err == nil && done == nil {
			var m scene.Manifest
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatalf("%s: %v", dir, err)
			}
			if m.Seed != seed || m.Throws != throws || m.Camera != scene.DefaultCamera() {
				t.Fatalf("%s holds seed %d, %d throws, camera %+v: not this run's session", dir, m.Seed, m.Throws, m.Camera)
			}
			t.Logf("reusing the session rendered in %s (seed %d, %d throws, %dx%d at %g fps)", dir, seed, throws, m.Camera.Width, m.Camera.Height, m.Camera.FPS)
			return dir
		}
	}
	start := time.Now()
	m, err := scene.Generate(dir, scene.Config{Seed: seed, Throws: throws, Camera: scene.DefaultCamera(), JPEGQuality: e2e200JPEGQuality})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, e2e200Rendered), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("rendered %d throws, %d frames (%.1f s of %dx%d at %g fps), seed %d, into %s in %.1f s",
		m.Throws, m.Frames, float64(m.DurationMS)/1000, m.Camera.Width, m.Camera.Height, m.Camera.FPS, seed, dir, time.Since(start).Seconds())
	return dir
}

// confusionTable prints truth verdicts (rows) against decided verdicts
// (columns); a throw with no decision is counted under "(none)".
func confusionTable(s Score) string {
	counts := map[[2]string]int{}
	seen := map[string]bool{}
	for _, r := range s.Rows {
		want := string(r.Truth.Expected.Verdict)
		got := "(none)"
		if r.Got != nil {
			got = string(r.Got.Verdict)
		}
		counts[[2]string{want, got}]++
		seen[want], seen[got] = true, true
	}
	var names []string
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	fmt.Fprintf(&b, "%-10s", "truth\\got")
	for _, c := range names {
		fmt.Fprintf(&b, " %8s", c)
	}
	b.WriteString("\n")
	for _, r := range names {
		fmt.Fprintf(&b, "%-10s", r)
		for _, c := range names {
			fmt.Fprintf(&b, " %8d", counts[[2]string{r, c}])
		}
		b.WriteString("\n")
	}
	return b.String()
}

func tail(s string, n int) string {
	lines := strings.Split(s, "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

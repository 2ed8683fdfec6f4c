package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/mqtt/mqtttest"
	"github.com/dicewatch/dicewatch/rules"
	"github.com/dicewatch/dicewatch/schema"
	"github.com/dicewatch/dicewatch/vision/scene"
)

// TestMain lets the test binary stand in for the dicewatch binary: with
// DICEWATCH_AS_MAIN=1 it runs the command line it was given, so end-to-end
// tests start the daemon as a real process without a separate build.
func TestMain(m *testing.M) {
	if os.Getenv("DICEWATCH_AS_MAIN") == "1" {
		os.Exit(dispatch(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// dicewatchProcess runs the test binary as `dicewatch args...`.
func dicewatchProcess(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "DICEWATCH_AS_MAIN=1")
	return cmd
}

const e2eSensors = `sensors:
  inputs:
    - {name: back_wall, role: back_wall, pin: GPIO5, active: high, denoise_ms: 1, debounce_ms: 5}
    - {name: bowl, role: bowl, pin: GPIO6, active: low, pull: up, denoise_ms: 2, debounce_ms: 20, stuck_after_ms: 10000}
    - {name: rail_box, role: rail, pin: GPIO13, active: low, pull: up, denoise_ms: 2, debounce_ms: 10, stuck_after_ms: 10000}
    - {name: rail_stick, role: rail, pin: GPIO19, active: low, pull: up, denoise_ms: 2, debounce_ms: 10, stuck_after_ms: 10000}
    - {name: rail_far, role: rail, pin: GPIO26, active: low, pull: up, denoise_ms: 2, debounce_ms: 10, stuck_after_ms: 10000}
    - {name: noroll_button, role: noroll_button, pin: GPIO16, active: low, pull: up, denoise_ms: 5, debounce_ms: 50}
`

// TestEndToEndSession renders a short session (SD 20:18:33:06: valid rolls,
// a die off the table, a die in the bowl), runs `dicewatch run` on it as a
// real process publishing to a real mosquitto, and checks what a subscriber
// receives: exactly one decision per throw, seq strictly increasing, the
// retained birth and state, and no invalid throw published as valid.
func TestEndToEndSession(t *testing.T) {
	if testing.Short() {
		t.Skip("renders a recording and runs the daemon: skipped with -short")
	}
	dir := t.TempDir()
	kinds := []scene.Kind{"valid", "off_table", "in_bowl", "valid"}
	_, err := scene.Generate(dir, scene.Config{
		Seed: 11, Throws: len(kinds), Kinds: kinds,
		Camera: scene.DefaultCamera(),
	})
	if err != nil {
		t.Fatal(err)
	}
	broker := mqtttest.StartBroker(t)
	sub := mqtttest.Subscribe(t, broker.URL(), mqtttest.SubscriberOptions{ClientID: "e2e-sub"}, "dicewatch/e2e/#")

	cfgPath := daemonConfig{Table: "e2e", Source: "file:" + filepath.Join(dir, scene.FileVideo) + "?pace=fast",
		Calibration: filepath.Join(dir, scene.FileCalibration), Journal: filepath.Join(dir, "journal"),
		Broker: broker.URL(), HTTP: "127.0.0.1:0", Extra: e2eSensors,
	}.Write(t, filepath.Join(dir, "dicewatch.yaml"))
	check := dicewatchProcess(t, "run", "--config", cfgPath, "--config.check")
	if out, err := check.CombinedOutput(); err != nil || !strings.Contains(string(out), "config OK") {
		t.Fatalf("config check: %v\n%s", err, out)
	}
	run := dicewatchProcess(t, "run", "--config", cfgPath, "--exit-at-eof",
		"--sensor-trace", filepath.Join(dir, scene.FileSensors))
	var stderr bytes.Buffer
	run.Stderr = &stderr
	if err := run.Run(); err != nil {
		t.Fatalf("daemon: %v\n%s", err, stderr.String())
	}

	defer func() {
		if t.Failed() {
			lines := strings.Split(stderr.String(), "\n")
			t.Logf("daemon log (last 30 lines):\n%s", strings.Join(lines[max(0, len(lines)-30):], "\n"))
		}
	}()
	msgs := sub.Wait(20*time.Second, func(ms []mqtttest.Message) bool {
		n := 0
		for _, m := range ms {
			if strings.HasSuffix(m.Topic, "/roll") || strings.HasSuffix(m.Topic, "/noroll") {
				n++
			}
		}
		return n >= len(kinds)
	})
	truth, err := readTruth(filepath.Join(dir, scene.FileTruth))
	if err != nil {
		t.Fatal(err)
	}
	var ds []decided
	var lastSeq uint64
	var sawOnline, sawState bool
	decisionIDs := map[string]bool{}
	snapshots := map[string]int{} // decision id -> snapshots naming it
	for _, m := range msgs {
		if strings.HasSuffix(m.Topic, "/snapshot") {
			var sn struct {
				DecisionID string `json:"decision_id"`
				JPEG       []byte `json:"jpeg"`
			}
			if err := json.Unmarshal(m.Payload, &sn); err != nil || len(sn.JPEG) < 4 || sn.JPEG[0] != 0xff || sn.JPEG[1] != 0xd8 {
				t.Errorf("snapshot is not a JPEG for a decision: %v", err)
			}
			snapshots[sn.DecisionID]++
		}
		if strings.HasSuffix(m.Topic, "/roll") || strings.HasSuffix(m.Topic, "/noroll") {
			decisionIDs[m.ID] = true
		}
		var body map[string]any
		if err := json.Unmarshal(m.Payload, &body); err != nil {
			t.Fatalf("%s: payload is not JSON: %v", m.Topic, err)
		}
		if err := schema.Validate(m.Payload); err != nil {
			t.Errorf("%s: payload does not match its JSON Schema: %v\n%s", m.Topic, err, m.Payload)
		}
		for _, k := range []string{"schema", "table", "id", "ts"} {
			if _, ok := body[k]; !ok {
				t.Errorf("%s: payload lacks %q: %s", m.Topic, k, m.Payload)
			}
		}
		switch {
		case strings.HasSuffix(m.Topic, "/status"):
			if body["status"] == "online" {
				sawOnline = true
			}
			continue
		case strings.HasSuffix(m.Topic, "/state"):
			sawState = true
		}
		if m.Seq <= lastSeq {
			t.Errorf("seq %d after %d: not strictly increasing", m.Seq, lastSeq)
		}
		lastSeq = m.Seq
		if strings.HasSuffix(m.Topic, "/roll") || strings.HasSuffix(m.Topic, "/noroll") {
			var d decided
			if err := json.Unmarshal(m.Payload, &d.decisionBody); err != nil {
				t.Fatal(err)
			}
			d.Seq = m.Seq
			if (d.Verdict == rules.Valid) != strings.HasSuffix(m.Topic, "/roll") {
				t.Errorf("verdict %s published on %s", d.Verdict, m.Topic)
			}
			ds = append(ds, d)
		}
	}
	if !sawOnline || !sawState {
		t.Errorf("birth seen %v, state seen %v; want both", sawOnline, sawState)
	}
	// Every throw here comes to rest in view, so every decision is made on
	// an at-rest frame and gets exactly that frame's snapshot.
	for id := range decisionIDs {
		if snapshots[id] != 1 {
			t.Errorf("decision %s has %d snapshots, want 1", id, snapshots[id])
		}
	}
	for id := range snapshots {
		if !decisionIDs[id] {
			t.Errorf("snapshot names %q, which is no decision", id)
		}
	}
	s := scoreDecisions(truth, ds)
	for _, r := range s.Rows {
		got := "(none)"
		if r.Got != nil {
			got = describeDecision(rules.Decision{Verdict: r.Got.Verdict, Values: r.Got.Values, Total: r.Got.Total, Reasons: r.Got.Reasons})
		}
		t.Logf("throw %d %-9s expected %-24s decided %s", r.Truth.Throw, r.Truth.Kind, describeDecision(r.Truth.Expected), got)
	}
	if len(ds) != len(truth) || s.Missing != 0 || s.Extra != 0 {
		t.Errorf("%d decisions for %d throws (missing %d, extra %d): each throw must yield exactly one", len(ds), len(truth), s.Missing, s.Extra)
	}
	if s.InvalidPublishedValid != 0 {
		t.Errorf("%d invalid throws published as valid", s.InvalidPublishedValid)
	}
	for _, r := range s.Rows {
		if r.Truth.Expected.Verdict == rules.Valid || r.Got == nil {
			continue
		}
		want := r.Truth.Expected.Reasons[0]
		found := false
		for _, got := range r.Got.Reasons {
			found = found || got == want
		}
		if !found {
			t.Errorf("throw %d (%s): reasons %v lack %s", r.Truth.Throw, r.Truth.Kind, r.Got.Reasons, want)
		}
	}
	checkClips(t, filepath.Join(dir, scene.FileVideo), filepath.Join(dir, "clips"), ds)
}

// checkClips checks that every decision names an evidence clip that is in
// the clip folder and plays for the window the decision gives (pre-roll
// before the throw opened to post-roll after the decision), within one
// frame; a window reaching past the end of the recording may be shorter.
func checkClips(t *testing.T, recording, clipDir string, ds []decided) {
	t.Helper()
	src, err := gocv.VideoCaptureFile(recording)
	if err != nil {
		t.Fatal(err)
	}
	srcFPS := src.Get(gocv.VideoCaptureFPS)
	endMS := int64((src.Get(gocv.VideoCaptureFrameCount) - 1) * 1000 / srcFPS)
	src.Close()
	img := gocv.NewMat()
	defer img.Close()
	for _, d := range ds {
		if d.Clip == nil || d.Clip.File == "" || filepath.Base(d.Clip.File) != d.Clip.File {
			t.Errorf("decision %d names no clip file: %+v", d.Seq, d.Clip)
			continue
		}
		vc, err := gocv.VideoCaptureFile(filepath.Join(clipDir, d.Clip.File))
		if err != nil {
			t.Errorf("decision %d: clip %s: %v", d.Seq, d.Clip.File, err)
			continue
		}
		fps := vc.Get(gocv.VideoCaptureFPS)
		n := 0
		for vc.Read(&img) && !img.Empty() {
			n++
		}
		vc.Close()
		want := float64(d.Clip.ToMS-d.Clip.FromMS) * fps / 1000
		t.Logf("decision %d clip %s: %d frames at %g fps = %.2f s; window %d..%d ms = %.2f s",
			d.Seq, d.Clip.File, n, fps, float64(n)/fps, d.Clip.FromMS, d.Clip.ToMS, float64(d.Clip.ToMS-d.Clip.FromMS)/1000)
		if math.Abs(fps-srcFPS) > 0.5 {
			t.Errorf("clip %s plays at %g fps; the camera gave %g", d.Clip.File, fps, srcFPS)
		}
		inside := d.Clip.FromMS >= 0 && d.Clip.ToMS <= endMS
		if n == 0 || inside && math.Abs(float64(n-1)-want) > 1 {
			t.Errorf("clip %s has %d frames; its window holds %.1f+1 (+-1)", d.Clip.File, n, want)
		}
	}
}

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/dicewatch/dicewatch/mqtt/mqtttest"
	"github.com/dicewatch/dicewatch/rules"
	"github.com/dicewatch/dicewatch/schema"
	"github.com/dicewatch/dicewatch/vision/scene"
	"github.com/dicewatch/dicewatch/vision/source/sourcetest"
)

// lockedBuffer is a bytes.Buffer safe to write from the process plumbing
// while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// outage is one camera loss the test caused, in wall time.
type outage struct {
	name      string
	from, to  time.Time // stream killed/frozen .. restarted/thawed
	faultAt   time.Time // fault event received
	clearedAt time.Time // recovery event received
}

// shownThrow is one throw of the looping recording as the camera showed
// it, in wall time.
type shownThrow struct {
	truth                     scene.ThrowTruth
	loop                      int
	start, rest, collect, end time.Time
}

// TestCameraKilledMidRun runs the daemon as a process on a live MJPEG
// camera (a generated session served in real time by sourcetest.Stream)
// publishing to a real mosquitto, and takes the camera away three times:
// killed in the middle of a throw, killed while the table is idle (a throw
// then happens in the dark), and frozen (connection open, no frames). Each
// time it checks that a camera fault event arrives within 1 s, that a
// recovery event follows the restart, that no throw overlapping the outage
// is published valid, and that decisions resume afterwards (a throw decided
// without the fault after each outage, and valid rolls again). The daemon
// must keep running throughout.
func TestCameraKilledMidRun(t *testing.T) {
	if testing.Short() {
		t.Skip("renders a recording and runs the daemon for about a minute: skipped with -short")
	}
	dir := t.TempDir()
	cam := scene.CloseCamera()
	if _, err := scene.Generate(dir, scene.Config{
		Seed: 5, Throws: 6, Kinds: []scene.Kind{scene.Kind("valid")}, Camera: cam,
	}); err != nil {
		t.Fatal(err)
	}
	truth := readSceneTruth(t, filepath.Join(dir, scene.FileTruth))
	frames, fps, err := sourcetest.EncodeFile(filepath.Join(dir, scene.FileVideo), 95)
	if err != nil {
		t.Fatal(err)
	}
	// The camera shows the empty table for 3 s before the session, so the
	// daemon starts on an empty table (it takes its first frame as the
	// background: see the report on starting mid-throw).
	const padMS = 3000
	pad := int(padMS * fps / 1000)
	frames = append(slices.Repeat([][]byte{frames[0]}, pad), frames...)
	padDur := time.Duration(float64(pad)/fps*1e9) * time.Nanosecond

	broker := mqtttest.StartBroker(t)
	sub := mqtttest.Subscribe(t, broker.URL(), mqtttest.SubscriberOptions{ClientID: "camkill-sub"}, "dicewatch/ck/#")
	st, err := sourcetest.NewStream(frames, fps)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const stallMS = 500
	logLevel := "info"
	if os.Getenv("CAMKILL_LOG") != "" {
		logLevel = "debug"
	}
	cfgPath := daemonConfig{Table: "ck", Source: st.URL(), StallMS: stallMS,
		Calibration: filepath.Join(dir, scene.FileCalibration), Journal: filepath.Join(dir, "journal"), Broker: broker.URL(),
		Extra: "log:\n  level: " + logLevel + "\n",
	}.Write(t, filepath.Join(dir, "dicewatch.yaml"))
	run, stderr, exited := startDaemon(t, "run", "--config", cfgPath)
	stopped := false
	defer func() {
		if !stopped {
			_ = run.Process.Kill()
			<-exited
		}
		if path := os.Getenv("CAMKILL_LOG"); path != "" {
			_ = os.WriteFile(path, []byte(stderr.String()), 0o644)
		}
		if t.Failed() {
			lines := strings.Split(stderr.String(), "\n")
			t.Logf("daemon log (last 60 lines):\n%s", strings.Join(lines[max(0, len(lines)-60):], "\n"))
		}
	}()
	alive := func(when string) {
		t.Helper()
		select {
		case err := <-exited:
			stopped = true
			t.Fatalf("daemon exited %s: %v", when, err)
		default:
		}
	}

	// Throws as the camera shows them, for the next few loops.
	loopLen := time.Duration(len(frames)) * time.Duration(float64(time.Second)/fps)
	var shown []shownThrow
	for loop := 0; loop < 8; loop++ {
		for _, tt := range truth {
			at := func(ms int64) time.Time {
				return st.Start().Add(time.Duration(loop)*loopLen + padDur + time.Duration(ms)*time.Millisecond)
			}
			shown = append(shown, shownThrow{truth: tt, loop: loop, start: at(tt.StartMS), rest: at(tt.AtRestMS),
				collect: at(tt.CollectMS), end: at(tt.ClearMS)})
		}
	}
	nextThrow := func(after time.Time) shownThrow {
		for _, s := range shown {
			if s.start.After(after) {
				return s
			}
		}
		t.Fatal("no throw left in the planned loops")
		return shownThrow{}
	}
	decisions := func(ms []mqtttest.Message) []mqtttest.Message {
		var out []mqtttest.Message
		for _, m := range ms {
			if strings.HasSuffix(m.Topic, "/roll") || strings.HasSuffix(m.Topic, "/noroll") {
				out = append(out, m)
			}
		}
		return out
	}
	validAfter := func(at time.Time) func([]mqtttest.Message) bool {
		return func(ms []mqtttest.Message) bool {
			for _, m := range decisions(ms) {
				if strings.HasSuffix(m.Topic, "/roll") && m.At.After(at) {
					return true
				}
			}
			return false
		}
	}
	// resumedAfter: a decision made without the fault, received after at.
	resumedAfter := func(at time.Time) func([]mqtttest.Message) bool {
		return func(ms []mqtttest.Message) bool {
			for _, m := range decisions(ms) {
				if m.At.After(at) && !bytes.Contains(m.Payload, []byte(`"`+string(rules.CameraFault)+`"`)) {
					return true
				}
			}
			return false
		}
	}
	faultEvent := func(state string, after time.Time) func([]mqtttest.Message) bool {
		return func(ms []mqtttest.Message) bool {
			_, ok := findFault(ms, state, after)
			return ok
		}
	}

	// The daemon reads the camera and decides a first valid roll.
	t0 := time.Now()
	sub.Wait(30*time.Second, validAfter(t0))
	alive("before the first outage")
	t.Logf("first valid roll %.1f s after start", time.Since(t0).Seconds())

	var outs []outage
	cut := func(name string, at time.Time, hold time.Duration, stop, resume func()) {
		t.Helper()
		time.Sleep(time.Until(at))
		o := outage{name: name, from: time.Now()}
		stop()
		fm := sub.Wait(5*time.Second, faultEvent("raised", o.from))
		f, _ := findFault(fm, "raised", o.from)
		o.faultAt = f.At
		time.Sleep(time.Until(o.from.Add(hold)))
		o.to = time.Now()
		resume()
		cm := sub.Wait(15*time.Second, faultEvent("cleared", o.to))
		c, _ := findFault(cm, "cleared", o.to)
		o.clearedAt = c.At
		t.Logf("%s: fault event %d ms after the cut; restarted %.1f s later; recovery event %d ms after the restart",
			name, o.faultAt.Sub(o.from).Milliseconds(), o.to.Sub(o.from).Seconds(), o.clearedAt.Sub(o.to).Milliseconds())
		outs = append(outs, o)
		// Decisions resume: a throw decided without the fault.
		sub.Wait(30*time.Second, resumedAfter(o.clearedAt))
		alive("after " + name)
	}
	restart := func() {
		if err := st.Restart(); err != nil {
			t.Fatal(err)
		}
	}
	th := nextThrow(time.Now().Add(300 * time.Millisecond))
	cut("killed mid-throw", th.start.Add(400*time.Millisecond), 3*time.Second, st.Kill, restart)
	th = nextThrow(time.Now().Add(400 * time.Millisecond))
	cut("killed while idle", th.start.Add(-250*time.Millisecond), 3*time.Second, st.Kill, restart)
	th = nextThrow(time.Now().Add(300 * time.Millisecond))
	cut("frozen mid-throw", th.start.Add(300*time.Millisecond), 2*time.Second, st.Freeze, st.Thaw)
	// And valid rolls get through again (the reader does not read every
	// throw of this recording, so this may take a loop).
	sub.Wait(40*time.Second, validAfter(outs[0].clearedAt))
	alive("at the end")

	// Stop it the way systemd does; it must stop cleanly.
	if err := run.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		stopped = true
		if err != nil {
			t.Errorf("daemon stopped with %v after SIGTERM", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("daemon did not stop within 20 s of SIGTERM")
	}

	msgs := sub.Messages()
	for _, m := range msgs {
		if m.Retained {
			continue
		}
		if err := schema.Validate(m.Payload); err != nil {
			t.Errorf("%s: payload does not match its JSON Schema: %v\n%s", m.Topic, err, m.Payload)
		}
	}
	for _, o := range outs {
		if lat := o.faultAt.Sub(o.from); lat > time.Second || lat < 0 {
			t.Errorf("%s: fault event %v after the cut; want within 1 s", o.name, lat)
		}
		if !o.clearedAt.After(o.to) {
			t.Errorf("%s: no recovery event after the restart", o.name)
		}
	}
	// When the daemon read its first frame after each restart.
	var recoveries []time.Time
	for _, line := range strings.Split(stderr.String(), "\n") {
		if !strings.Contains(line, `msg="camera recovered"`) || !strings.HasPrefix(line, "time=") {
			continue
		}
		ts, _, _ := strings.Cut(strings.TrimPrefix(line, "time="), " ")
		if at, err := time.Parse(time.RFC3339Nano, ts); err == nil {
			recoveries = append(recoveries, at)
		}
	}
	for _, r := range recoveries {
		t.Logf("first frame after a restart read at +%.2f s", r.Sub(t0).Seconds())
	}
	// The overlap rule below needs each outage's first frame back: without
	// its log line (a changed message or log format) it would fall back
	// on the recovery event's time and test a different window unseen.
	for _, o := range outs {
		if !slices.ContainsFunc(recoveries, func(r time.Time) bool { return r.After(o.to) }) {
			t.Errorf("%s: no %q log line after the restart", o.name, "camera recovered")
		}
	}
	// How long after the logged time of the first frame back the camera
	// showed the second: a frame period rounded up to the millisecond (34
	// ms at the recording's 30 fps), and 1 ms more, as the log's time is
	// cut to the millisecond.
	secondBack := time.Duration(math.Ceil(1000/fps)+1) * time.Millisecond
	// Every decision, matched to the throw the camera showed: the one
	// whose dice came to rest last before the decision arrived.
	faulted := 0
	for _, m := range decisions(msgs) {
		var d decisionBody
		if err := json.Unmarshal(m.Payload, &d); err != nil {
			t.Fatal(err)
		}
		var match *shownThrow
		for i := range shown {
			if shown[i].rest.Before(m.At) {
				match = &shown[i]
			}
		}
		hasFault := false
		for _, r := range d.Reasons {
			hasFault = hasFault || r == rules.CameraFault
		}
		if hasFault {
			faulted++
		}
		during := ""
		for _, o := range outs {
			// A throw overlaps an outage when it came to rest after the cut
			// and its first die was in the picture by the daemon's second
			// frame back (the first is logged as "camera recovered"; the
			// camera showed it at or before then, the second one frame
			// period later: secondBack): the daemon must see the table
			// empty and still, which takes a frame measured against the
			// one before, before a throw after an outage may be valid.
			back := o.clearedAt
			for _, r := range recoveries {
				if r.After(o.to) {
					back = r
					break
				}
			}
			if match != nil && match.start.Before(back.Add(secondBack)) && match.rest.After(o.from) {
				during = o.name
			}
			if m.At.After(o.from) && m.At.Before(o.clearedAt) && during == "" {
				during = o.name + " (decided during it)"
			}
		}
		desc := describeDecision(rules.Decision{Verdict: d.Verdict, Values: d.Values, Total: d.Total, Reasons: d.Reasons})
		if match == nil {
			t.Logf("seq %d at +%.1f s: %s (no throw shown yet)", m.Seq, m.At.Sub(t0).Seconds(), desc)
		} else {
			t.Logf("seq %d at +%.1f s: %-34s throw %d (loop %d, started +%.2f s, at rest %.1f s earlier, truth %v)%s", m.Seq,
				m.At.Sub(t0).Seconds(), desc, match.truth.Throw, match.loop, match.start.Sub(t0).Seconds(), m.At.Sub(match.rest).Seconds(),
				match.truth.Expected.Values, map[bool]string{true: " overlaps " + during}[during != ""])
		}
		if d.Verdict != rules.Valid {
			continue
		}
		switch {
		case match == nil || m.At.Sub(match.rest) > 3*time.Second:
			t.Errorf("seq %d: valid %v matches no throw the camera showed", m.Seq, d.Values)
		case during != "":
			t.Errorf("seq %d: valid %v for throw %d, which overlaps the outage %q", m.Seq, d.Values, match.truth.Throw, during)
		case !slices.Equal(sortedInts(d.Values), sortedInts(match.truth.Expected.Values)): // the reader lists dice in its own order
			t.Errorf("seq %d: valid %v for throw %d, which rolled %v", m.Seq, d.Values, match.truth.Throw, match.truth.Expected.Values)
		}
	}
	if faulted == 0 {
		t.Errorf("no decision carries %s: the throw killed mid-air was not caught", rules.CameraFault)
	}
}

// findFault returns the first camera fault event in state received after t.
func findFault(ms []mqtttest.Message, state string, after time.Time) (mqtttest.Message, bool) {
	for _, m := range ms {
		if !strings.HasSuffix(m.Topic, "/event") || !m.At.After(after) {
			continue
		}
		var b struct {
			Event, What, State string
		}
		if json.Unmarshal(m.Payload, &b) == nil && b.Event == "fault" && b.What == "camera" && b.State == state {
			return m, true
		}
	}
	return mqtttest.Message{}, false
}

func readSceneTruth(t *testing.T, path string) []scene.ThrowTruth {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []scene.ThrowTruth
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var tt scene.ThrowTruth
		if err := json.Unmarshal(sc.Bytes(), &tt); err != nil {
			t.Fatal(err)
		}
		out = append(out, tt)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dicewatch/dicewatch/config"
	"github.com/dicewatch/dicewatch/mqtt/mqtttest"
	"github.com/dicewatch/dicewatch/vision"
	"github.com/dicewatch/dicewatch/vision/scene"
)

// latencyTruth is the part of a generated throw's truth the latency
// benchmark needs.
type latencyTruth struct {
	Throw       int    `json:"throw"`
	Kind        string `json:"kind"`
	StartMS     int64  `json:"start_ms"`
	AtRestMS    int64  `json:"at_rest_ms"`
	AtRestFrame int    `json:"at_rest_frame"`
}

// BenchmarkDecisionLatency measures issue 9's bar: from the moment the dice
// are at rest in the recording to a subscriber receiving the decision, the
// median is at most the settle window plus 30 ms.
//
// It renders a 1280x720 30 fps session (10 throws, seed 9) and runs the
// whole daemon in this process on it, the file source paced at the
// recording's own timestamps as a camera delivers frames, looping until
// DICEWATCH_LATENCY_THROWS throws (default 30) have been played, publishing
// to a real mosquitto; a QoS 1 subscriber on the same machine takes the
// decisions. For each throw the clock starts when the truth's at-rest frame
// was due from the camera (the paced source's schedule: its first frame's
// hand-over plus the frame's stream time, so a pipeline running behind
// counts against the daemon) and stops when the subscriber has the
// decision. The stage breakdown comes from the daemon's own timing of each
// decision (the same values as the dicewatch_stage_latency_seconds
// histograms): vision (truth frame due to at-rest detected: the settle
// window, the frame hand-over and motion + reading), decide, journal
// (append + fsync), dispatch (to the MQTT client) and delivery (to the
// subscriber). Playback is real time, so one run takes about 4 s per
// throw.
//
//	nice go test -run '^$' -bench DecisionLatency -benchtime 1x ./cmd/dicewatch
func BenchmarkDecisionLatency(b *testing.B) {
	throws := 30
	if s := os.Getenv("DICEWATCH_LATENCY_THROWS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			b.Fatalf("DICEWATCH_LATENCY_THROWS=%q: want a positive count", s)
		}
		throws = n
	}
	const perRecording = 10
	dir := b.TempDir()
	if _, err := scene.Generate(dir, scene.Config{
		Seed: 9, Throws: perRecording, Camera: scene.Camera{Width: 1280, Height: 720, FPS: 30},
	}); err != nil {
		b.Fatal(err)
	}
	truth, err := readLatencyTruth(filepath.Join(dir, scene.FileTruth))
	if err != nil {
		b.Fatal(err)
	}
	broker := mqtttest.StartBroker(b)
	b.ResetTimer()
	var all []throwTimes
	settle := 0
	for i := 0; i < b.N; i++ {
		ts, s, err := runLatency(b, dir, broker.URL(), fmt.Sprintf("lat%d", i), truth, throws)
		if err != nil {
			b.Fatal(err)
		}
		all, settle = append(all, ts...), s
	}
	b.StopTimer()
	reportLatency(b, all, settle, throws*b.N)
}

// throwTimes is one throw's measured path, in durations from the moment
// its at-rest frame was due from the camera.
type throwTimes struct {
	loop, throw int
	kind        string
	total       time.Duration // to the subscriber's receipt
	// the stages, which add up to total
	vision, decide, journal, dispatch, deliver time.Duration
	// inside vision: the settle window as the stream clock counts it
	// (truth at-rest frame to the deciding frame), how late the deciding
	// frame was handed to the pipeline, and motion + reading on it
	window, lag, process time.Duration
}

// loopStart is where one pass over the recording began.
type loopStart struct {
	wall time.Time // the first frame's hand-over: the paced source's time zero
	atMS int64     // its stream time (the loop offset)
}

func runLatency(b *testing.B, dir, brokerURL, table string, truth []latencyTruth, throws int) ([]throwTimes, int, error) {
	loops := (throws + len(truth) - 1) / len(truth)
	cfgPath := daemonConfig{Table: table, Source: "file:" + filepath.Join(dir, scene.FileVideo),
		Calibration: filepath.Join(dir, scene.FileCalibration), Journal: filepath.Join(dir, table, "journal"),
		Broker: brokerURL, Extra: os.Getenv("DICEWATCH_LATENCY_EXTRA") + "\nlog:\n  level: warn\n",
	}.Write(b, filepath.Join(dir, table+".yaml"))
	cfg, err := config.Load(cfgPath)
	if err != nil {
		return nil, 0, err
	}
	sub := mqtttest.Subscribe(b, brokerURL, mqtttest.SubscriberOptions{ClientID: table + "-sub"}, "dicewatch/"+table+"/#")

	var mu sync.Mutex
	var starts []loopStart
	frameMS := map[[2]int]int64{} // (loop, index) -> stream ms
	timed := map[uint64]throwLatency{}
	played := make(chan struct{})
	// Playing stops 1 s of stream time after the last throw needed came to
	// rest (its decision is out by then), or at the end of the last pass.
	lastK, lastT := (throws-1)/len(truth), truth[(throws-1)%len(truth)]
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			close(played)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := runFlags{
		loop: true,
		onFrame: func(ev vision.Event) {
			if ev.Obs == nil {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if ev.Frame.Index == 0 {
				starts = append(starts, loopStart{wall: ev.Delivered, atMS: ev.Obs.AtMS})
				if len(starts) == loops+1 {
					stop()
				}
			}
			frameMS[[2]int{len(starts) - 1, ev.Frame.Index}] = ev.Obs.AtMS
			if len(starts) == lastK+1 && ev.Obs.AtMS >= starts[lastK].atMS+lastT.AtRestMS+1000 {
				stop()
			}
		},
		onLatency: func(tl throwLatency) {
			mu.Lock()
			timed[tl.Seq] = tl
			mu.Unlock()
		},
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	done := make(chan error, 1)
	go func() { done <- daemon(ctx, cfg, f, log) }()
	limit := time.Duration(loops+1) * 2 * time.Minute
	select {
	case <-played:
	case err := <-done:
		return nil, 0, fmt.Errorf("daemon stopped before the recording was played %d times: %v", loops, err)
	case <-time.After(limit):
		return nil, 0, fmt.Errorf("recording not played %d times in %v", loops, limit)
	}
	// Every throw of the last pass came to rest seconds before its end;
	// give the last acknowledgement a moment, then stop.
	time.Sleep(200 * time.Millisecond)
	cancel()
	if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
		return nil, 0, fmt.Errorf("daemon: %w", err)
	}

	type received struct {
		seq               uint64
		at                time.Time
		startMS, atRestMS int64
		used              bool
	}
	var decs []*received
	for _, m := range sub.Messages() {
		if !strings.HasSuffix(m.Topic, "/roll") && !strings.HasSuffix(m.Topic, "/noroll") {
			continue
		}
		var body struct {
			StartMS  int64 `json:"start_ms"`
			AtRestMS int64 `json:"at_rest_ms"`
		}
		if err := json.Unmarshal(m.Payload, &body); err != nil {
			return nil, 0, fmt.Errorf("%s: %w", m.Topic, err)
		}
		if slices.ContainsFunc(decs, func(r *received) bool { return r.seq == m.Seq }) {
			continue // a re-delivery
		}
		decs = append(decs, &received{seq: m.Seq, at: m.At, startMS: body.StartMS, atRestMS: body.AtRestMS})
	}

	mu.Lock()
	defer mu.Unlock()
	var out []throwTimes
	for k := 0; k < loops; k++ {
		for _, tt := range truth {
			if k*len(truth)+tt.Throw >= throws {
				break
			}
			// The decision of this throw: the one whose start is nearest
			// the truth's (the tracker opens within a frame or two).
			want := starts[k].atMS + tt.StartMS
			var best *received
			for _, d := range decs {
				if !d.used && abs64(d.startMS-want) <= 500 && (best == nil || abs64(d.startMS-want) < abs64(best.startMS-want)) {
					best = d
				}
			}
			if best == nil {
				b.Errorf("pass %d throw %d (%s): no decision received", k, tt.Throw, tt.Kind)
				continue
			}
			best.used = true
			tl, ok := timed[best.seq]
			ms, okf := frameMS[[2]int{k, tt.AtRestFrame}]
			if !ok || !okf {
				b.Errorf("pass %d throw %d (%s): decision seq %d has no daemon timing (decided without an at-rest frame?)",
					k, tt.Throw, tt.Kind, best.seq)
				continue
			}
			due := starts[k].wall.Add(time.Duration(ms-starts[k].atMS) * time.Millisecond)
			decidingDue := starts[k].wall.Add(time.Duration(tl.FrameMS-starts[k].atMS) * time.Millisecond)
			out = append(out, throwTimes{
				loop: k, throw: tt.Throw, kind: tt.Kind,
				total:    best.at.Sub(due),
				vision:   tl.Detected.Sub(due),
				decide:   tl.Decided.Sub(tl.Detected),
				journal:  tl.Durable.Sub(tl.Decided),
				dispatch: tl.Sent.Sub(tl.Durable),
				deliver:  best.at.Sub(tl.Sent),
				window:   decidingDue.Sub(due),
				lag:      tl.Delivered.Sub(decidingDue),
				process:  tl.Detected.Sub(tl.Delivered),
			})
		}
	}
	return out, cfg.Vision.SettleMS, nil
}

func reportLatency(b *testing.B, ts []throwTimes, settleMS, want int) {
	if len(ts) == 0 {
		b.Fatal("no throw measured")
	}
	if len(ts) < want {
		b.Errorf("%d of %d throws measured", len(ts), want)
	}
	col := func(f func(throwTimes) time.Duration) []float64 {
		v := make([]float64, len(ts))
		for i, t := range ts {
			v[i] = float64(f(t)) / 1e6
		}
		slices.Sort(v)
		return v
	}
	total := col(func(t throwTimes) time.Duration { return t.total })
	med, p90, worst := quantile(total, 0.5), quantile(total, 0.9), total[len(total)-1]
	bar := float64(settleMS + 30)
	verdict := "PASS"
	if med > bar {
		verdict = "FAIL"
	}
	// go test keeps the first 10 lines of a benchmark's log: keep to 9.
	var sb strings.Builder
	fmt.Fprintf(&sb, "%d throws, at-rest frame due from the camera -> subscriber has the decision: median %.1f ms, p90 %.1f ms, max %.1f ms; bar median <= settle %d + 30 = %.0f ms: %s\n",
		len(ts), med, p90, worst, settleMS, bar, verdict)
	stage := func(name string, f func(throwTimes) time.Duration) string {
		v := col(f)
		return fmt.Sprintf("%s %.1f (%.1f)", name, quantile(v, 0.5), quantile(v, 0.9))
	}
	fmt.Fprintf(&sb, "  stages, median (p90) ms:\n")
	fmt.Fprintf(&sb, "    %s\n", stage("vision: at-rest frame due -> at rest detected", func(t throwTimes) time.Duration { return t.vision }))
	fmt.Fprintf(&sb, "      = %s + %s + %s\n",
		stage("settle window (stream clock)", func(t throwTimes) time.Duration { return t.window }),
		stage("deciding frame handed over late", func(t throwTimes) time.Duration { return t.lag }),
		stage("motion + reading", func(t throwTimes) time.Duration { return t.process }))
	fmt.Fprintf(&sb, "    %s\n", stage("decide: at rest detected -> decision made", func(t throwTimes) time.Duration { return t.decide }))
	fmt.Fprintf(&sb, "    %s\n", stage("journal: decision -> journal durable (fsync)", func(t throwTimes) time.Duration { return t.journal }))
	fmt.Fprintf(&sb, "    %s\n", stage("dispatch: durable -> handed to the MQTT client", func(t throwTimes) time.Duration { return t.dispatch }))
	fmt.Fprintf(&sb, "    %s\n", stage("deliver: published -> subscriber received", func(t throwTimes) time.Duration { return t.deliver }))
	over := col(func(t throwTimes) time.Duration { return t.total - t.window })
	fmt.Fprintf(&sb, "  daemon's own time (total less the settle window): median %.1f ms, p90 %.1f ms, max %.1f ms",
		quantile(over, 0.5), quantile(over, 0.9), over[len(over)-1])
	b.Log(sb.String())
	b.ReportMetric(med, "median-ms")
	b.ReportMetric(p90, "p90-ms")
	b.ReportMetric(worst, "max-ms")
	b.ReportMetric(bar, "bar-ms")
	pass := 0.0
	if verdict == "PASS" {
		pass = 1
	}
	b.ReportMetric(pass, "pass")
	b.ReportMetric(float64(len(ts)), "throws")
	b.ReportMetric(quantile(over, 0.5), "own-median-ms")
	// ns/op is the wall time of a whole run; it says nothing here.
	b.ReportMetric(0, "ns/op")
}

// quantile of sorted values, nearest rank.
func quantile(sorted []float64, q float64) float64 {
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

func readLatencyTruth(path string) ([]latencyTruth, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []latencyTruth
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var t latencyTruth
		if err := json.Unmarshal(sc.Bytes(), &t); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, t)
	}
	return out, sc.Err()
}

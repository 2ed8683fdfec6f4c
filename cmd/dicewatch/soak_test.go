package main

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dicewatch/dicewatch/config"
	"github.com/dicewatch/dicewatch/mqtt/mqtttest"
	"github.com/dicewatch/dicewatch/vision/scene"
)

// residentMB reads this process's resident set size (Go heap, OpenCV's
// C++ allocations and everything else) from /proc.
func residentMB(t testing.TB) float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseFloat(strings.Fields(rest)[0], 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb / 1024
		}
	}
	t.Fatal("no VmRSS in /proc/self/status")
	return 0
}

// TestSoak runs the whole daemon on a looping 1280x720 30 fps recording,
// publishing to a real mosquitto, for DICEWATCH_SOAK (e.g. 1h; `make soak`),
// sampling resident memory. It fails if memory goes over 150 MB or keeps
// growing (last quarter more than 10% above the second quarter).
func TestSoak(t *testing.T) {
	d, err := time.ParseDuration(os.Getenv("DICEWATCH_SOAK"))
	if err != nil || d <= 0 {
		t.Skip("set DICEWATCH_SOAK=1h (make soak) to run the memory soak")
	}
	dir := t.TempDir()
	cam := scene.Camera{Width: 1280, Height: 720, FPS: 30}
	if _, err := scene.Generate(dir, scene.Config{Seed: 5, Throws: 12, Camera: cam}); err != nil {
		t.Fatal(err)
	}
	broker := mqtttest.StartBroker(t)
	cfgText := fmt.Sprintf("table: soak\ncamera:\n  source: file:%s\ncalibration: %s\njournal:\n  dir: %s\n  max_mb: 64\nmqtt:\n  broker: %s\nhttp:\n  listen: off\nlog:\n  level: warn\n",
		filepath.Join(dir, scene.FileVideo), filepath.Join(dir, scene.FileCalibration), filepath.Join(dir, "journal"), broker.URL())
	cfg, err := config.Parse("soak.yaml", []byte(cfgText))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	f := runFlags{loop: true}
	done := make(chan error, 1)
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	go func() { done <- daemon(ctx, cfg, f, log) }()

	var samples []float64
	tick := time.NewTicker(max(d/60, time.Second))
	defer tick.Stop()
	start := time.Now()
loop:
	for {
		select {
		case err := <-done:
			if err != nil && ctx.Err() == nil {
				t.Fatalf("daemon stopped early: %v", err)
			}
			break loop
		case <-tick.C:
			runtime.GC()
			mb := residentMB(t)
			samples = append(samples, mb)
			t.Logf("soak %6.0fs  rss %6.1f MB", time.Since(start).Seconds(), mb)
		}
	}
	if len(samples) < 8 {
		t.Fatalf("only %d samples", len(samples))
	}
	n := len(samples)
	mean := func(a []float64) float64 {
		s := 0.0
		for _, v := range a {
			s += v
		}
		return s / float64(len(a))
	}
	q2, q4 := mean(samples[n/4:n/2]), mean(samples[3*n/4:])
	peak := 0.0
	for _, v := range samples {
		peak = max(peak, v)
	}
	fmt.Printf("soak: %s at 1280x720 30 fps: rss peak %.1f MB, second quarter %.1f MB, last quarter %.1f MB\n", d, peak, q2, q4)
	if peak > 150 {
		t.Errorf("resident memory peaked at %.1f MB, over 150 MB", peak)
	}
	if q4 > q2*1.10 {
		t.Errorf("resident memory grew from %.1f MB to %.1f MB (over 10%%)", q2, q4)
	}
}

package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dicewatch/dicewatch/mqtt/mqtttest"
	"github.com/dicewatch/dicewatch/vision/scene"
)

// residentMB reads a process's resident set size (Go heap, OpenCV's C++
// allocations and everything else) from /proc.
func residentMB(t testing.TB, pid int) float64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
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
	t.Fatalf("no VmRSS in /proc/%d/status", pid)
	return 0
}

// TestSoak runs `dicewatch run --loop` as its own process on a looping
// 1280x720 30 fps recording, publishing to a real mosquitto, for
// DICEWATCH_SOAK (e.g. 1h; `make soak`), sampling the daemon's resident
// memory. It fails if memory goes over 150 MB or keeps growing (last
// quarter more than 10% above the second quarter), or if the daemon stops.
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
	sub := mqtttest.Subscribe(t, broker.URL(), mqtttest.SubscriberOptions{ClientID: "soak-sub"}, "dicewatch/soak/roll", "dicewatch/soak/noroll")
	cfgPath := filepath.Join(dir, "soak.yaml")
	// DICEWATCH_SOAK_CLIPS=off measures the daemon without evidence clips.
	clips := os.Getenv("DICEWATCH_SOAK_CLIPS") != "off"
	cfgText := fmt.Sprintf("table: soak\ncamera:\n  source: file:%s\ncalibration: %s\njournal:\n  dir: %s\n  max_mb: 64\nevidence:\n  enabled: %v\n  max_mb: 64\nmqtt:\n  broker: %s\nhttp:\n  listen: off\nlog:\n  level: warn\n",
		filepath.Join(dir, scene.FileVideo), filepath.Join(dir, scene.FileCalibration), filepath.Join(dir, "journal"), clips, broker.URL())
	if err := os.WriteFile(cfgPath, []byte(cfgText), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := dicewatchProcess(t, "run", "--config", cfgPath, "--loop")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		_ = cmd.Process.Signal(os.Interrupt)
		<-exited
	}()

	var samples []float64
	tick := time.NewTicker(max(d/60, time.Second))
	defer tick.Stop()
	start := time.Now()
	for time.Since(start) < d {
		select {
		case err := <-exited:
			t.Fatalf("daemon stopped after %s: %v", time.Since(start), err)
		case <-tick.C:
			mb := residentMB(t, cmd.Process.Pid)
			samples = append(samples, mb)
			t.Logf("soak %6.0fs  rss %6.1f MB  decisions received %d", time.Since(start).Seconds(), mb, len(sub.Messages()))
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
	if clips {
		ents, _ := os.ReadDir(filepath.Join(dir, "clips"))
		fmt.Printf("soak: %d clips in the ring\n", len(ents))
	}
	fmt.Printf("soak: %s at 1280x720 30 fps (clips %v): daemon rss peak %.1f MB, second quarter %.1f MB, last quarter %.1f MB, %d decisions received\n",
		d, clips, peak, q2, q4, len(sub.Messages()))
	if len(sub.Messages()) == 0 {
		t.Error("no decisions reached the broker")
	}
	if peak > 150 {
		t.Errorf("resident memory peaked at %.1f MB, over 150 MB", peak)
	}
	if q4 > q2*1.10 {
		t.Errorf("resident memory grew from %.1f MB to %.1f MB (over 10%%)", q2, q4)
	}
}

package main

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dicewatch/dicewatch/mqtt/mqtttest"
	"github.com/dicewatch/dicewatch/ops"
	"github.com/dicewatch/dicewatch/vision/scene"
	"github.com/dicewatch/dicewatch/vision/source/sourcetest"
)

// TestDaemonHTTPPortTaken: the operations endpoint's port is taken by
// another process for the whole run. The daemon decides its throws all
// the same, and journals (so publishes) an "http" fault: the technicians'
// /healthz and /metrics are gone. Before, that was one line in the log.
func TestDaemonHTTPPortTaken(t *testing.T) {
	if testing.Short() {
		t.Skip("renders a session and runs the daemon: skipped with -short")
	}
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	sess, dir := validSession(t, 5, 1)
	broker := mqtttest.StartBroker(t)
	jdir := filepath.Join(t.TempDir(), "journal")
	cfg := daemonConfig{Table: "hp", Source: scriptedCamera, Calibration: filepath.Join(dir, scene.FileCalibration),
		Journal: jdir, Broker: broker.URL(), HTTP: taken.Addr().String(), Extra: noClips}.Parse(t, "httpport.yaml")
	cam := sessionCamera(sess, [][]int{sourcetest.FrameRange(0, sess.Frames()-1)}, nil)
	logs, err := runLogged(cfg, runFlags{exitAtEOF: true, openSource: cam.Open})
	if err != nil {
		t.Fatalf("daemon: %v; log (last 30 lines):\n%s", err, logTail(logs, 30))
	}
	if !strings.Contains(logs, "msg=decision") {
		t.Errorf("no throw decided:\n%s", logTail(logs, 30))
	}
	var raised bool
	for _, f := range journalFaults(t, jdir, 1) {
		if f.What == "http" && f.State == "raised" && strings.Contains(f.Detail, "address already in use") {
			raised = true
		}
	}
	if !raised {
		t.Errorf("no http fault raised in the journal; log (last 30 lines):\n%s", logTail(logs, 30))
	}
}

// TestServeHTTPRecovers: serveHTTP raises the fault while its port is
// taken, tries again, and once the port is free serves /healthz and
// clears the fault; it returns when its context ends.
func TestServeHTTPRecovers(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := taken.Addr().String()
	health := ops.NewHealth(time.Now)
	srv := ops.NewServer(ops.ServerConfig{Addr: addr, Registry: ops.NewMetrics("test").Registry, Health: health,
		Snapshot: &ops.Snapshot{}, Logger: slog.New(slog.DiscardHandler)})
	var mu sync.Mutex
	var events []map[string]any
	changed := make(chan struct{}, 8)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		serveHTTP(ctx, srv, addr, 200*time.Millisecond, slog.New(slog.DiscardHandler), func(body map[string]any) {
			mu.Lock()
			events = append(events, body)
			mu.Unlock()
			changed <- struct{}{}
		})
	}()
	wait := func(what string) {
		t.Helper()
		select {
		case <-changed:
		case <-time.After(10 * time.Second):
			t.Fatalf("no %s event", what)
		}
	}
	wait("raised")
	taken.Close()
	wait("cleared")
	// Listening again: /healthz answers (503: nothing reported healthy).
	var resp *http.Response
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if resp, err = http.Get("http://" + addr + "/healthz"); err == nil {
			resp.Body.Close()
			break
		}
	}
	if err != nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("GET /healthz after the port came free: %v %v", resp, err)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("serveHTTP did not return when its context ended")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(events) != 2 || events[0]["state"] != "raised" || events[1]["state"] != "cleared" || events[0]["what"] != "http" {
		t.Errorf("events %v, want http raised then cleared", events)
	}
}

package ops

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// fakeClock is a settable clock for Health.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestHealthz(t *testing.T) {
	clk := &fakeClock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	tests := []struct {
		name        string
		set         func(h *Health)
		wantCode    int
		wantStatus  string
		wantFailing []string
	}{
		{"nothing reported", func(h *Health) {}, 503, "unhealthy", []string{"calibration", "camera", "journal", "publisher"}},
		{"all required ok", func(h *Health) {
			h.OK(ComponentCamera)
			h.OK(ComponentCalibration)
			h.OK(ComponentJournal)
			h.OK(ComponentPublisher)
		}, 200, "ok", nil},
		{"broker down is not unhealthy", func(h *Health) {
			h.OK(ComponentCamera)
			h.OK(ComponentCalibration)
			h.OK(ComponentJournal)
			h.OK(ComponentPublisher)
			h.Fault(ComponentBroker, "connection refused")
		}, 200, "ok", nil},
		{"camera lost", func(h *Health) {
			h.OK(ComponentCamera)
			h.OK(ComponentCalibration)
			h.OK(ComponentJournal)
			h.OK(ComponentPublisher)
			h.Fault(ComponentCamera, "no frame for 1s")
		}, 503, "unhealthy", []string{"camera"}},
		{"camera recovered", func(h *Health) {
			h.OK(ComponentCalibration)
			h.OK(ComponentJournal)
			h.OK(ComponentPublisher)
			h.Fault(ComponentCamera, "no frame for 1s")
			h.OK(ComponentCamera)
		}, 200, "ok", nil},
		{"calibration and journal", func(h *Health) {
			h.OK(ComponentCamera)
			h.OK(ComponentPublisher)
			h.Fault(ComponentCalibration, "hash mismatch")
			h.Fault(ComponentJournal, "disk full")
		}, 503, "unhealthy", []string{"calibration", "journal"}},
		{"publisher stopped", func(h *Health) {
			h.OK(ComponentCamera)
			h.OK(ComponentCalibration)
			h.OK(ComponentJournal)
			h.OK(ComponentPublisher)
			h.Fault(ComponentPublisher, "mqtt: read journal: corrupt")
		}, 503, "unhealthy", []string{"publisher"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := NewHealth(clk.now)
			tc.set(h)
			srv := NewServer(ServerConfig{Health: h, Logger: quietLogger()})
			rec := httptest.NewRecorder()
			srv.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/healthz", nil))
			if rec.Code != tc.wantCode {
				t.Errorf("code %d, want %d", rec.Code, tc.wantCode)
			}
			if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
				t.Errorf("content type %q", ct)
			}
			var rep HealthReport
			if err := json.Unmarshal(rec.Body.Bytes(), &rep); err != nil {
				t.Fatalf("body %q: %v", rec.Body, err)
			}
			if rep.Status != tc.wantStatus {
				t.Errorf("status %q, want %q", rep.Status, tc.wantStatus)
			}
			if strings.Join(rep.Failing, ",") != strings.Join(tc.wantFailing, ",") {
				t.Errorf("failing %v, want %v", rep.Failing, tc.wantFailing)
			}
			for _, name := range tc.wantFailing {
				if rep.Components[name].Detail == "" {
					t.Errorf("failing %s has no detail", name)
				}
			}
		})
	}
}

func TestHealthSince(t *testing.T) {
	clk := &fakeClock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	h := NewHealth(clk.now)
	t0 := clk.t
	clk.t = t0.Add(time.Minute)
	h.OK(ComponentCamera) // first report: since moves
	clk.t = t0.Add(2 * time.Minute)
	h.OK(ComponentCamera) // no flip: since stays
	if got := h.Report().Components[ComponentCamera].Since; !got.Equal(t0.Add(time.Minute)) {
		t.Errorf("since %v, want %v", got, t0.Add(time.Minute))
	}
	clk.t = t0.Add(3 * time.Minute)
	h.Fault(ComponentCamera, "lost")
	if got := h.Report().Components[ComponentCamera].Since; !got.Equal(t0.Add(3 * time.Minute)) {
		t.Errorf("since after flip %v, want %v", got, t0.Add(3*time.Minute))
	}
}

func TestSnapshotEndpoint(t *testing.T) {
	snap := &Snapshot{}
	srv := NewServer(ServerConfig{Snapshot: snap, Logger: quietLogger()})
	h := srv.Handler()

	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/snapshot.jpg", nil))
	if rec.Code != http.StatusNotFound {
		t.Fatalf("before first frame: code %d, want 404", rec.Code)
	}

	first := []byte("\xff\xd8\xff\xe0first-frame\xff\xd9")
	at := time.Date(2026, 3, 1, 12, 0, 0, 123e6, time.UTC)
	snap.Set(first, at)
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/snapshot.jpg", nil))
	if rec.Code != 200 || !bytes.Equal(rec.Body.Bytes(), first) {
		t.Fatalf("code %d body %q, want 200 and the first frame", rec.Code, rec.Body)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "image/jpeg" {
		t.Errorf("content type %q", ct)
	}
	if got := rec.Header().Get("X-Frame-Time"); got != "2026-03-01T12:00:00.123Z" {
		t.Errorf("X-Frame-Time %q", got)
	}
	etag := rec.Header().Get("ETag")

	// Same frame again: a conditional request is 304.
	req := httptest.NewRequest(http.MethodGet, "/snapshot.jpg", nil)
	req.Header.Set("If-None-Match", etag)
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusNotModified {
		t.Errorf("conditional on unchanged frame: code %d, want 304", rec.Code)
	}

	// A new frame in the same second is served, not 304.
	second := []byte("\xff\xd8second\xff\xd9")
	snap.Set(second, at.Add(time.Millisecond))
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != 200 || !bytes.Equal(rec.Body.Bytes(), second) {
		t.Errorf("new frame: code %d body %q", rec.Code, rec.Body)
	}
	if rec.Header().Get("ETag") == etag {
		t.Error("ETag did not change with the frame")
	}
}

func TestMetricsEndpointAndRouting(t *testing.T) {
	m := NewMetrics("test")
	m.FramesRead.Add(5)
	srv := NewServer(ServerConfig{Registry: m.Registry, Health: NewHealth(nil), Logger: quietLogger()})
	h := srv.Handler()
	tests := []struct {
		method, path string
		wantCode     int
		wantBody     string
	}{
		{"GET", "/metrics", 200, "dicewatch_frames_read_total 5\n"},
		{"HEAD", "/metrics", 200, ""},
		{"POST", "/metrics", 405, ""},
		{"GET", "/", 200, "<h1>dicewatch</h1>"},
		{"GET", "/nope", 404, ""},
	}
	for _, tc := range tests {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(tc.method, tc.path, nil))
			if rec.Code != tc.wantCode {
				t.Errorf("code %d, want %d", rec.Code, tc.wantCode)
			}
			if tc.wantBody != "" && !strings.Contains(rec.Body.String(), tc.wantBody) {
				t.Errorf("body does not contain %q:\n%s", tc.wantBody, rec.Body)
			}
			if tc.path == "/metrics" && tc.wantCode == 200 && rec.Header().Get("Content-Type") != ContentType {
				t.Errorf("content type %q", rec.Header().Get("Content-Type"))
			}
		})
	}
	// The body parses.
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	e := parseExposition(t, rec.Body.String())
	if e.samples["dicewatch_frames_read_total"] != 5 {
		t.Errorf("frames = %v", e.samples["dicewatch_frames_read_total"])
	}
}

func TestServeShutsDownOnCancel(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m := NewMetrics("test")
	srv := NewServer(ServerConfig{Registry: m.Registry, Logger: quietLogger()})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()

	url := "http://" + ln.Addr().String() + "/metrics"
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("code %d", resp.StatusCode)
	}
	http.DefaultClient.CloseIdleConnections()

	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Serve after cancel = %v, want nil", err)
	}
	if _, err := http.Get(url); err == nil {
		t.Error("server still answering after shutdown")
	}
}

func TestRunListenError(t *testing.T) {
	srv := NewServer(ServerConfig{Addr: "256.0.0.1:1", Logger: quietLogger()})
	err := srv.Run(context.Background())
	var opErr *net.OpError
	if err == nil || !errors.As(err, &opErr) || !strings.HasPrefix(err.Error(), "ops: listen") {
		t.Errorf("Run = %v, want a wrapped listen error", err)
	}
}

func TestIsLoopback(t *testing.T) {
	tests := []struct {
		addr string
		want bool
	}{
		{"127.0.0.1:9108", true},
		{"[::1]:9108", true},
		{"localhost:9108", true},
		{":9108", false},
		{"0.0.0.0:9108", false},
		{"192.168.1.20:9108", false},
		{"garbage", false},
	}
	for _, tc := range tests {
		if got := IsLoopback(tc.addr); got != tc.want {
			t.Errorf("IsLoopback(%q) = %v, want %v", tc.addr, got, tc.want)
		}
	}
}

package ops

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"
)

// DefaultListen is the operations endpoint's default address: loopback only.
// Expose it on the LAN deliberately (a reverse proxy, or a config change).
const DefaultListen = "127.0.0.1:9108"

// Snapshot holds the latest annotated frame as JPEG bytes. It is safe for
// concurrent use; Set is a single atomic store.
type Snapshot struct {
	p   atomic.Pointer[snapshotFrame]
	seq atomic.Uint64
}

type snapshotFrame struct {
	jpeg []byte
	at   time.Time
	seq  uint64
}

// Set publishes jpeg as the latest frame, taken at at. Set takes ownership:
// the caller must not modify jpeg afterwards (encode into a fresh buffer).
func (s *Snapshot) Set(jpeg []byte, at time.Time) {
	s.p.Store(&snapshotFrame{jpeg: jpeg, at: at, seq: s.seq.Add(1)})
}

// Latest returns the latest frame and when it was taken; ok is false before
// the first Set. The bytes must not be modified.
func (s *Snapshot) Latest() (jpeg []byte, at time.Time, ok bool) {
	f := s.p.Load()
	if f == nil {
		return nil, time.Time{}, false
	}
	return f.jpeg, f.at, true
}

// ServerConfig configures the operations HTTP server. Nil Health or Snapshot
// make their endpoints report unhealthy / not found; a nil Registry serves
// an empty /metrics.
type ServerConfig struct {
	Addr            string // DefaultListen when empty
	Registry        *Registry
	Health          *Health
	Snapshot        *Snapshot
	Logger          *slog.Logger  // slog.Default() when nil
	ShutdownTimeout time.Duration // 5 s when zero
}

// Server serves /metrics, /healthz, /snapshot.jpg and a small index page.
type Server struct {
	cfg ServerConfig
	log *slog.Logger
}

// NewServer returns a server for cfg; nothing listens until Run or Serve.
func NewServer(cfg ServerConfig) *Server {
	if cfg.Addr == "" {
		cfg.Addr = DefaultListen
	}
	if cfg.Registry == nil {
		cfg.Registry = NewRegistry()
	}
	if cfg.ShutdownTimeout <= 0 {
		cfg.ShutdownTimeout = 5 * time.Second
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Server{cfg: cfg, log: log.With("component", "ops")}
}

// Run listens on the configured address and serves until ctx is cancelled,
// then shuts down gracefully. It returns nil after a clean shutdown.
func (s *Server) Run(ctx context.Context) error {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", s.cfg.Addr)
	if err != nil {
		return fmt.Errorf("ops: listen %s: %w", s.cfg.Addr, err)
	}
	return s.Serve(ctx, ln)
}

// Serve serves on ln until ctx is cancelled, then shuts down gracefully
// (in-flight requests get ShutdownTimeout) and closes ln.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	addr := ln.Addr().String()
	if !IsLoopback(addr) {
		s.log.Warn("operations endpoint is not loopback-only", "addr", addr)
	}
	srv := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 5 * time.Second,
		WriteTimeout:      15 * time.Second,
		IdleTimeout:       60 * time.Second,
		MaxHeaderBytes:    16 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	s.log.Info("operations endpoint listening", "addr", addr)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("ops: serve %s: %w", addr, err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.ShutdownTimeout)
	defer cancel()
	err := srv.Shutdown(sctx)
	if serr := <-errc; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
		return fmt.Errorf("ops: serve %s: %w", addr, serr)
	}
	if err != nil {
		return fmt.Errorf("ops: shut down %s: %w", addr, err)
	}
	return nil
}

// IsLoopback reports whether a host:port address binds only to loopback.
// An empty host (all interfaces) is not loopback; "localhost" is.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil || host == "" {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Handler returns the endpoint's HTTP handler (also for httptest).
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /metrics", s.metrics)
	mux.HandleFunc("GET /healthz", s.healthz)
	mux.HandleFunc("GET /snapshot.jpg", s.snapshot)
	mux.HandleFunc("GET /{$}", s.index)
	return mux
}

func (s *Server) metrics(w http.ResponseWriter, r *http.Request) {
	var buf bytes.Buffer
	if err := s.cfg.Registry.WriteText(&buf); err != nil {
		s.log.Error("write metrics", "err", err)
		http.Error(w, "metrics unavailable", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", ContentType)
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write(buf.Bytes())
}

func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	var rep HealthReport
	if s.cfg.Health != nil {
		rep = s.cfg.Health.Report()
	} else {
		rep = HealthReport{Status: "unhealthy", Failing: []string{"health"}, Components: map[string]ComponentStatus{}}
	}
	body, err := json.Marshal(rep)
	if err != nil {
		http.Error(w, "health unavailable", http.StatusInternalServerError)
		return
	}
	body = append(body, '\n')
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	code := http.StatusOK
	if !rep.OK() {
		code = http.StatusServiceUnavailable
	}
	w.WriteHeader(code)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

func (s *Server) snapshot(w http.ResponseWriter, r *http.Request) {
	var f *snapshotFrame
	if s.cfg.Snapshot != nil {
		f = s.cfg.Snapshot.p.Load()
	}
	if f == nil {
		http.Error(w, "no frame yet", http.StatusNotFound)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "image/jpeg")
	h.Set("Cache-Control", "no-cache")
	// The sequence number, not Last-Modified: frames change many times a
	// second and Last-Modified has a one-second resolution.
	h.Set("ETag", `"`+strconv.FormatUint(f.seq, 10)+`"`)
	if !f.at.IsZero() {
		h.Set("X-Frame-Time", f.at.UTC().Format(time.RFC3339Nano))
	}
	http.ServeContent(w, r, "snapshot.jpg", time.Time{}, bytes.NewReader(f.jpeg))
}

var indexPage = template.Must(template.New("index").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>dicewatch</title>
<meta http-equiv="refresh" content="2"></head>
<body style="font-family:sans-serif">
<h1>dicewatch</h1>
<p>Status: <b>{{.Status}}</b>{{range .Failing}} · {{.}} failing{{end}}</p>
<p><a href="/metrics">metrics</a> · <a href="/healthz">healthz</a> · <a href="/snapshot.jpg">snapshot.jpg</a></p>
<img src="/snapshot.jpg" alt="no frame yet" style="max-width:100%">
</body></html>
`))

func (s *Server) index(w http.ResponseWriter, r *http.Request) {
	rep := HealthReport{Status: "unknown"}
	if s.cfg.Health != nil {
		rep = s.cfg.Health.Report()
	}
	var buf bytes.Buffer
	if err := indexPage.Execute(&buf, rep); err != nil {
		http.Error(w, "index unavailable", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(buf.Bytes())
}

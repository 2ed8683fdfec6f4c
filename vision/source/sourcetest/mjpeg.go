package sourcetest

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"gocv.io/x/gocv"
)

// Stream serves a recording as a live MJPEG camera over HTTP
// (multipart/x-mixed-replace), for tests of what happens when a camera
// goes away. Like a real camera it runs on the wall clock whether or not
// anyone watches: at time t after NewStream it shows frame t*fps of the
// recording (looping at the end), to every client alike. It can be killed
// (listener and connections gone), restarted on the same address, and
// frozen (connections stay open, nothing is sent).
type Stream struct {
	frames [][]byte
	period time.Duration
	start  time.Time
	addr   string

	mu     sync.Mutex
	srv    *http.Server
	frozen chan struct{} // non-nil while frozen; closed on Thaw
	killed chan struct{} // closed on Kill
}

// NewStream serves frames (JPEG bytes) at fps on a free loopback port.
func NewStream(frames [][]byte, fps float64) (*Stream, error) {
	if len(frames) == 0 || fps <= 0 {
		return nil, errors.New("sourcetest: a stream needs frames and a positive fps")
	}
	s := &Stream{frames: frames, period: time.Duration(float64(time.Second) / fps), start: time.Now()}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("sourcetest: listen: %w", err)
	}
	s.addr = ln.Addr().String()
	s.serve(ln)
	return s, nil
}

// EncodeFile reads a video file and JPEG-encodes every frame, for NewStream.
// It returns the frames and the file's frame rate.
func EncodeFile(path string, quality int) ([][]byte, float64, error) {
	vc, err := gocv.VideoCaptureFile(path)
	if err != nil {
		return nil, 0, fmt.Errorf("sourcetest: open %s: %w", path, err)
	}
	defer vc.Close()
	fps := vc.Get(gocv.VideoCaptureFPS)
	img := gocv.NewMat()
	defer img.Close()
	var out [][]byte
	for vc.Read(&img) && !img.Empty() {
		buf, err := gocv.IMEncodeWithParams(gocv.JPEGFileExt, img, []int{gocv.IMWriteJpegQuality, quality})
		if err != nil {
			return nil, 0, fmt.Errorf("sourcetest: encode frame %d: %w", len(out), err)
		}
		out = append(out, append([]byte(nil), buf.GetBytes()...))
		buf.Close()
	}
	if len(out) == 0 || fps <= 0 {
		return nil, 0, fmt.Errorf("sourcetest: %s has no frames or no frame rate", path)
	}
	return out, fps, nil
}

// URL is the stream's address; it stays the same across Kill and Restart.
func (s *Stream) URL() string { return "http://" + s.addr + "/video.mjpg" }

// Start is the wall time the camera showed the recording's first frame.
func (s *Stream) Start() time.Time { return s.start }

// FrameAt is the recording frame the camera shows at wall time t.
func (s *Stream) FrameAt(t time.Time) int {
	return int(t.Sub(s.start)/s.period) % len(s.frames)
}

// RecordingMS is the recording time (ms from its first frame, before
// looping) shown at wall time t.
func (s *Stream) RecordingMS(t time.Time) int64 {
	return int64(s.FrameAt(t)) * s.period.Milliseconds()
}

// WallAt is the first wall time at or after from when the camera shows the
// recording at ms (ms from its first frame).
func (s *Stream) WallAt(ms int64, from time.Time) time.Time {
	loop := time.Duration(len(s.frames)) * s.period
	off := time.Duration(ms) * time.Millisecond
	n := from.Sub(s.start) / loop
	t := s.start.Add(n*loop + off)
	for t.Before(from) {
		t = t.Add(loop)
	}
	return t
}

func (s *Stream) serve(ln net.Listener) {
	mux := http.NewServeMux()
	mux.HandleFunc("/video.mjpg", s.handle)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	s.mu.Lock()
	s.srv = srv
	s.killed = make(chan struct{})
	s.mu.Unlock()
	go func() { _ = srv.Serve(ln) }()
}

// Kill drops every connection and stops listening, as a camera losing
// power or its cable does. Clients see the connection end at once.
func (s *Stream) Kill() {
	s.mu.Lock()
	srv, killed := s.srv, s.killed
	s.srv = nil
	s.mu.Unlock()
	if srv == nil {
		return
	}
	close(killed)
	_ = srv.Close()
}

// Restart listens again on the same address after Kill.
func (s *Stream) Restart() error {
	s.mu.Lock()
	up := s.srv != nil
	s.mu.Unlock()
	if up {
		return nil
	}
	var ln net.Listener
	var err error
	for i := 0; i < 50; i++ { // the port may take a moment to be free again
		if ln, err = net.Listen("tcp", s.addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		return fmt.Errorf("sourcetest: listen again on %s: %w", s.addr, err)
	}
	s.serve(ln)
	return nil
}

// Freeze stops sending frames on every connection, which stay open (a
// hung camera or network). Thaw resumes with the frame of the moment.
func (s *Stream) Freeze() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.frozen == nil {
		s.frozen = make(chan struct{})
	}
}

// Thaw ends a Freeze.
func (s *Stream) Thaw() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.frozen != nil {
		close(s.frozen)
		s.frozen = nil
	}
}

// Close stops the stream for good.
func (s *Stream) Close() { s.Kill() }

func (s *Stream) handle(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "no flusher", http.StatusInternalServerError)
		return
	}
	s.mu.Lock()
	killed := s.killed
	s.mu.Unlock()
	const boundary = "dicewatchframe"
	w.Header().Set("Content-Type", "multipart/x-mixed-replace; boundary="+boundary)
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fl.Flush()
	next := time.Now()
	for {
		s.mu.Lock()
		frozen := s.frozen
		s.mu.Unlock()
		if frozen != nil {
			select {
			case <-frozen:
				next = time.Now()
			case <-killed:
				return
			case <-r.Context().Done():
				return
			}
			continue
		}
		if d := time.Until(next); d > 0 {
			select {
			case <-time.After(d):
			case <-killed:
				return
			case <-r.Context().Done():
				return
			}
		}
		now := time.Now()
		jpeg := s.frames[s.FrameAt(now)]
		if _, err := fmt.Fprintf(w, "--%s\r\nContent-Type: image/jpeg\r\nContent-Length: %d\r\n\r\n", boundary, len(jpeg)); err != nil {
			return
		}
		if _, err := w.Write(jpeg); err != nil {
			return
		}
		if _, err := w.Write([]byte("\r\n")); err != nil {
			return
		}
		fl.Flush()
		// The next frame boundary on the camera's clock.
		k := now.Sub(s.start)/s.period + 1
		next = s.start.Add(k * s.period)
	}
}

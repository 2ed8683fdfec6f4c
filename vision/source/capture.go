package source

import (
	"fmt"
	"math"
	"net/url"
	"os"
	"strings"
	"time"

	"gocv.io/x/gocv"
)

// CaptureSource reads frames through an OpenCV VideoCapture: V4L2 devices,
// video files, RTSP streams and GStreamer pipelines.
type CaptureSource struct {
	kind string // "v4l2", "file", "rtsp", "gst": error context
	name string // device path, file path, URL or pipeline
	vc   *gocv.VideoCapture
	opts Options

	pace       bool // file: wait for each frame's timestamp
	frameCount int  // file: frames the header promises (0: unknown)
	fps        float64
	opened     time.Time
	idx        int
	lastTS     int64
	w, h       int
	wallStart  time.Time
	tsStart    int64
	done       bool // a file or pipeline has ended; further reads are ErrEndOfStream
	classify   func() error
}

var _ Source = (*CaptureSource)(nil)

func openV4L2(u *url.URL, opts Options) (Source, error) {
	dev := u.Path
	if dev == "" {
		dev = u.Opaque
	}
	if dev == "" {
		return nil, fmt.Errorf("source: %w: v4l2 url needs a device path, e.g. v4l2:///dev/video0", ErrBadURL)
	}
	q := u.Query()
	w, err := queryInt(q, "width", 0)
	if err != nil {
		return nil, err
	}
	h, err := queryInt(q, "height", 0)
	if err != nil {
		return nil, err
	}
	fps, err := queryInt(q, "fps", 0)
	if err != nil {
		return nil, err
	}
	format := strings.ToUpper(q.Get("format"))
	if format != "" && format != "MJPG" && format != "YUYV" {
		return nil, fmt.Errorf("source: %w: format=%q: want MJPG or YUYV", ErrBadURL, format)
	}
	if _, err := os.Stat(dev); err != nil {
		return nil, fmt.Errorf("source: v4l2 %s: %w: %v", dev, ErrUnplugged, err)
	}
	vc, err := gocv.VideoCaptureFileWithAPI(dev, gocv.VideoCaptureV4L)
	if err != nil || !vc.IsOpened() {
		if vc != nil {
			vc.Close()
		}
		return nil, fmt.Errorf("source: v4l2 %s: %w: cannot open device", dev, ErrUnplugged)
	}
	if format != "" {
		vc.Set(gocv.VideoCaptureFOURCC, vc.ToCodec(format))
	}
	if w > 0 {
		vc.Set(gocv.VideoCaptureFrameWidth, float64(w))
	}
	if h > 0 {
		vc.Set(gocv.VideoCaptureFrameHeight, float64(h))
	}
	if fps > 0 {
		vc.Set(gocv.VideoCaptureFPS, float64(fps))
	}
	vc.Set(gocv.VideoCaptureBufferSize, 2)
	s := newCapture("v4l2", dev, vc, opts)
	s.classify = func() error {
		if _, err := os.Stat(dev); err != nil {
			return fmt.Errorf("source: v4l2 %s: %w: %v", dev, ErrUnplugged, err)
		}
		return fmt.Errorf("source: v4l2 %s: %w: driver returned no frame", dev, ErrStalled)
	}
	return s, nil
}

func openFile(u *url.URL, opts Options) (Source, error) {
	path := pathOf(u)
	if path == "" {
		return nil, fmt.Errorf("source: %w: file url needs a path, e.g. file:throw.avi", ErrBadURL)
	}
	pace := u.Query().Get("pace")
	if pace != "" && pace != "fast" && pace != "realtime" {
		return nil, fmt.Errorf("source: %w: pace=%q: want fast or realtime", ErrBadURL, pace)
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("source: file: %w", err)
	}
	if st.IsDir() {
		return nil, fmt.Errorf("source: file %s: %w: is a directory (use dir:)", path, ErrBadURL)
	}
	vc, err := gocv.VideoCaptureFile(path)
	if err != nil || !vc.IsOpened() {
		if vc != nil {
			vc.Close()
		}
		return nil, fmt.Errorf("source: file %s: %w: cannot decode the container", path, ErrCorruptFrame)
	}
	s := newCapture("file", path, vc, opts)
	s.pace = pace != "fast"
	if n := vc.Get(gocv.VideoCaptureFrameCount); n > 0 && n < math.MaxInt32 {
		s.frameCount = int(n)
	}
	s.classify = func() error {
		s.done = true
		if s.frameCount > 0 && s.idx < s.frameCount {
			return fmt.Errorf("source: file %s: %w: stream ends at frame %d of %d (truncated or damaged)",
				path, ErrCorruptFrame, s.idx, s.frameCount)
		}
		if s.idx == 0 {
			return fmt.Errorf("source: file %s: %w: no decodable frame", path, ErrCorruptFrame)
		}
		return fmt.Errorf("source: file %s: %w after %d frames", path, ErrEndOfStream, s.idx)
	}
	return s, nil
}

func openRTSP(raw string, opts Options) (Source, error) {
	vc, err := gocv.VideoCaptureFileWithAPI(raw, gocv.VideoCaptureFFmpeg)
	if err != nil || !vc.IsOpened() {
		if vc != nil {
			vc.Close()
		}
		return nil, fmt.Errorf("source: rtsp %s: %w: cannot connect", redact(raw), ErrUnplugged)
	}
	s := newCapture("rtsp", redact(raw), vc, opts)
	s.classify = func() error {
		return fmt.Errorf("source: rtsp %s: %w: stream lost", s.name, ErrUnplugged)
	}
	return s, nil
}

func openGst(pipeline string, opts Options) (Source, error) {
	if strings.TrimSpace(pipeline) == "" {
		return nil, fmt.Errorf("source: %w: empty gstreamer pipeline", ErrBadURL)
	}
	vc, err := gocv.VideoCaptureFileWithAPI(pipeline, gocv.VideoCaptureGstreamer)
	if err != nil || !vc.IsOpened() {
		if vc != nil {
			vc.Close()
		}
		return nil, fmt.Errorf("source: gst %q: %w: pipeline does not start", pipeline, ErrUnplugged)
	}
	s := newCapture("gst", pipeline, vc, opts)
	s.classify = func() error {
		s.done = true
		return fmt.Errorf("source: gst: %w after %d frames", ErrEndOfStream, s.idx)
	}
	return s, nil
}

// redact drops a password from a URL before it reaches an error or a log.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	return u.Redacted()
}

func newCapture(kind, name string, vc *gocv.VideoCapture, opts Options) *CaptureSource {
	s := &CaptureSource{kind: kind, name: name, vc: vc, opts: opts, opened: opts.Now()}
	s.fps = vc.Get(gocv.VideoCaptureFPS)
	if s.fps <= 0 || s.fps > 1000 || math.IsNaN(s.fps) {
		s.fps = 0
	}
	return s
}

// Read decodes the next frame into dst.
func (s *CaptureSource) Read(dst *gocv.Mat) (Frame, error) {
	if s.vc == nil {
		return Frame{}, fmt.Errorf("source: %s %s: %w: source closed", s.kind, s.name, ErrEndOfStream)
	}
	if s.done {
		return Frame{}, fmt.Errorf("source: %s %s: %w", s.kind, s.name, ErrEndOfStream)
	}
	if !s.vc.Read(dst) || dst.Empty() {
		return Frame{}, s.classify()
	}
	w, h := dst.Cols(), dst.Rows()
	if s.idx == 0 {
		s.w, s.h = w, h
	} else if w != s.w || h != s.h {
		s.idx++
		return Frame{}, fmt.Errorf("source: %s %s: %w: frame %d is %dx%d, stream is %dx%d",
			s.kind, s.name, ErrCorruptFrame, s.idx-1, w, h, s.w, s.h)
	}
	ts := s.timestamp()
	f := Frame{Index: s.idx, AtMS: ts, Width: w, Height: h}
	s.idx++
	s.lastTS = ts
	if s.pace {
		if f.Index == 0 {
			s.wallStart, s.tsStart = s.opts.Now(), ts
		} else {
			due := s.wallStart.Add(time.Duration(ts-s.tsStart) * time.Millisecond)
			if d := due.Sub(s.opts.Now()); d > 0 {
				s.opts.Sleep(d)
			}
		}
	}
	return f, nil
}

// timestamp is the frame time: the backend's position when it has one that
// moves forward, else the frame index at the stream's rate, else the
// injected clock since Open.
func (s *CaptureSource) timestamp() int64 {
	// Whole milliseconds, rounded down (frame k of a 30 fps file is at
	// floor(k*1000/30) ms, the convention of the scene generator's truth).
	pos := s.vc.Get(gocv.VideoCapturePosMsec)
	if !math.IsNaN(pos) && pos > 0 && (s.idx == 0 || int64(math.Floor(pos+1e-6)) > s.lastTS) {
		return int64(math.Floor(pos + 1e-6))
	}
	if s.idx == 0 && pos == 0 {
		return 0
	}
	if s.fps > 0 && s.kind == "file" {
		return int64(math.Floor(float64(s.idx)*1000/s.fps + 1e-6))
	}
	ts := s.opts.Now().Sub(s.opened).Milliseconds()
	if ts <= s.lastTS {
		ts = s.lastTS + 1
	}
	return ts
}

// Close releases the capture. It is safe to call more than once.
func (s *CaptureSource) Close() error {
	if s.vc == nil {
		return nil
	}
	err := s.vc.Close()
	s.vc = nil
	if err != nil {
		return fmt.Errorf("source: %s %s: close: %w", s.kind, s.name, err)
	}
	return nil
}

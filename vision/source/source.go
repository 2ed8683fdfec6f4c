// Package source opens camera and recording frame sources by URL and reads
// them one frame at a time into a caller-owned gocv.Mat.
//
// One small interface covers every kind of source:
//
//	src, err := source.Open("v4l2:///dev/video0?width=1280&height=720&fps=60&format=MJPG", source.Options{StallMS: 500})
//	if err != nil { ... }
//	defer src.Close()
//	frame := gocv.NewMat()
//	defer frame.Close()
//	for {
//		f, err := src.Read(&frame)
//		switch {
//		case errors.Is(err, source.ErrEndOfStream): // recording finished
//		case errors.Is(err, source.ErrCorruptFrame): // skip this frame, or fault
//		case errors.Is(err, source.ErrUnplugged), errors.Is(err, source.ErrStalled):
//			// raise a camera fault, Close, and Open again
//		}
//		_ = f.AtMS // the frame's time on the stream clock
//	}
//
// URL forms:
//
//	v4l2:///dev/video0?width=1280&height=720&fps=60&format=MJPG   (format MJPG or YUYV; per-frame driver timestamps)
//	file:testdata/throw.avi                                       (paced at the file's own timestamps)
//	file:testdata/throw.avi?pace=fast                             (as fast as it decodes: tests, benchmarks, replay)
//	file:///abs/path/throw.avi
//	rtsp://camera.local/stream1
//	http://camera.local/video.mjpg                                (MJPEG over HTTP, multipart/x-mixed-replace; frames stamped on arrival)
//	gst:videotestsrc num-buffers=10 ! videoconvert ! appsink      (any GStreamer pipeline ending in appsink)
//	dir:testdata/stills?fps=30                                    (sorted .png/.jpg/.jpeg/.bmp files)
//
// Failures are typed so the daemon can turn them into fault events and
// reconnects: ErrUnplugged, ErrEndOfStream, ErrCorruptFrame and ErrStalled,
// all usable with errors.Is. A truncated or garbage file gives
// ErrCorruptFrame (on Open or on the Read where it breaks), never a panic.
//
// A Source is not safe for concurrent use: one goroutine owns it.
package source

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"gocv.io/x/gocv"
)

// Frame describes one frame read from a source.
type Frame struct {
	// Index counts the frames this source has delivered, from 0.
	Index int
	// AtMS is the frame time on the stream clock in milliseconds: the
	// recording's own timestamp for files, the driver timestamp for V4L2,
	// the buffer timestamp for GStreamer/RTSP where the backend gives one.
	AtMS int64
	// Width and Height are the frame size in pixels.
	Width, Height int
}

// Source delivers frames. Read decodes the next frame into dst (which it
// reallocates as needed; the caller owns and closes it). Close releases the
// device or file; it is safe to call more than once.
type Source interface {
	Read(dst *gocv.Mat) (Frame, error)
	Close() error
}

// Errors a source returns, wrapped with context; test them with errors.Is.
var (
	// ErrUnplugged: the camera or stream is gone (device node removed,
	// connection lost, or it cannot be opened). Reconnect.
	ErrUnplugged = errors.New("camera unplugged")
	// ErrEndOfStream: a finite source (file, directory, finite pipeline)
	// delivered its last frame.
	ErrEndOfStream = errors.New("end of stream")
	// ErrCorruptFrame: a frame (or the whole file) cannot be decoded, or the
	// file ends before the frame count its header promises.
	ErrCorruptFrame = errors.New("corrupt frame")
	// ErrStalled: no frame arrived within Options.StallMS.
	ErrStalled = errors.New("stream stalled")
	// ErrBadURL: the URL is not one of the supported forms.
	ErrBadURL = errors.New("bad source url")
)

// Options tune Open. The zero value is usable.
type Options struct {
	// StallMS, when positive, bounds how long one Read may wait for a frame;
	// past it Read returns ErrStalled. After ErrStalled the caller should
	// Close the source and Open it again.
	StallMS int64
	// Now and Sleep pace file playback at the recording's timestamps and
	// stamp frames from sources without timestamps; nil means time.Now and
	// time.Sleep. Tests inject fakes.
	Now   func() time.Time
	Sleep func(time.Duration)
	// After is the timer behind StallMS; nil means time.After.
	After func(time.Duration) <-chan time.Time
}

func (o *Options) defaults() {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Sleep == nil {
		o.Sleep = time.Sleep
	}
	if o.After == nil {
		o.After = time.After
	}
}

// Live reports whether raw names a live camera (device, network stream or
// pipeline) rather than a recording: a live source that gives no frame
// for a while has stalled, a recording has not.
func Live(raw string) bool {
	return !strings.HasPrefix(raw, "file:") && !strings.HasPrefix(raw, "dir:")
}

// Open opens the source named by raw (see the package doc for the forms).
func Open(raw string, opts Options) (Source, error) {
	opts.defaults()
	var (
		src Source
		err error
	)
	switch {
	case strings.HasPrefix(raw, "gst:"):
		src, err = openGst(strings.TrimPrefix(raw, "gst:"), opts)
	case strings.HasPrefix(raw, "dir:"):
		var u *url.URL
		if u, err = url.Parse(raw); err == nil {
			src, err = openDir(u, opts)
		}
	default:
		var u *url.URL
		u, err = url.Parse(raw)
		if err != nil {
			return nil, fmt.Errorf("source: %w: %q: %v", ErrBadURL, raw, err)
		}
		switch u.Scheme {
		case "v4l2":
			src, err = openV4L2(u, opts)
		case "file":
			src, err = openFile(u, opts)
		case "rtsp", "rtsps":
			src, err = openRTSP(raw, opts)
		case "http", "https":
			src, err = openMJPEG(raw, opts)
		default:
			return nil, fmt.Errorf("source: %w: unknown scheme %q in %q", ErrBadURL, u.Scheme, raw)
		}
	}
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			return nil, fmt.Errorf("source: %w: %q: %v", ErrBadURL, raw, err)
		}
		return nil, err
	}
	if opts.StallMS > 0 {
		src = WithStall(src, time.Duration(opts.StallMS)*time.Millisecond, opts.After)
	}
	return src, nil
}

// pathOf returns the path of a file: or dir: URL, opaque or absolute.
func pathOf(u *url.URL) string {
	if u.Opaque != "" {
		p, err := url.PathUnescape(u.Opaque)
		if err == nil {
			return p
		}
		return u.Opaque
	}
	return u.Host + u.Path
}

func queryInt(q url.Values, key string, def int) (int, error) {
	s := q.Get(key)
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("source: %w: %s=%q is not a positive integer", ErrBadURL, key, s)
	}
	return n, nil
}

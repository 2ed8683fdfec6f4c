package source

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/vision/internal/cvsafe"
)

// MJPEGSource reads an HTTP MJPEG stream (multipart/x-mixed-replace of
// JPEG pictures), the form most IP cameras and mjpg-streamer serve. It is
// our own reader on net/http rather than an OpenCV capture so that a lost
// or frozen connection is seen at once and Close always ends a blocked Read.
//
// A goroutine receives the parts as they arrive and keeps only the newest
// undecoded one: a reader that falls behind skips frames instead of
// working through a backlog in the socket buffers, so what it sees is
// current and a camera that stops is noticed stall_ms after its last frame.
type MJPEGSource struct {
	name   string // URL without a password, for errors
	opts   Options
	cancel context.CancelFunc
	body   io.ReadCloser

	latest chan part // at most one: the newest received part
	done   chan struct{}
	err    error // why the receiver stopped; read after done is closed

	idx    int
	w, h   int
	mu     sync.Mutex
	closed bool
	// Skipped counts parts dropped because a newer one arrived first.
	skipped int
}

type part struct {
	jpeg []byte
	atMS int64
}

var _ Source = (*MJPEGSource)(nil)

// maxJPEG bounds one part: a frame larger than this is corrupt.
const maxJPEG = 16 << 20

func openMJPEG(raw string, opts Options) (Source, error) {
	name := redact(raw)
	// Connecting and the response header share one bound: the stall limit
	// when there is one, else 2 s. The body has no deadline (the stream is
	// endless); a frozen stream is the stall limit's business.
	limit := 2 * time.Second
	if opts.StallMS > 0 {
		limit = max(time.Duration(opts.StallMS)*time.Millisecond, 200*time.Millisecond)
	}
	client := &http.Client{Transport: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: limit}).DialContext,
		ResponseHeaderTimeout: limit,
		DisableCompression:    true,
	}}
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("source: %w: %q: %v", ErrBadURL, name, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("source: mjpeg %s: %w: %v", name, ErrUnplugged, stripURL(err))
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		cancel()
		return nil, fmt.Errorf("source: mjpeg %s: %w: http status %s", name, ErrUnplugged, resp.Status)
	}
	mt, params, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if err != nil || !strings.HasPrefix(mt, "multipart/") || params["boundary"] == "" {
		resp.Body.Close()
		cancel()
		return nil, fmt.Errorf("source: mjpeg %s: %w: content type %q is not a multipart stream with a boundary",
			name, ErrCorruptFrame, resp.Header.Get("Content-Type"))
	}
	s := &MJPEGSource{
		name: name, opts: opts, cancel: cancel, body: resp.Body,
		latest: make(chan part, 1), done: make(chan struct{}),
	}
	go s.receive(resp.Body, params["boundary"], opts.Now())
	return s, nil
}

// partReader reads the parts of body. Some cameras declare a boundary that
// already carries the two leading dashes ("boundary=--frame") and then
// separate parts with "--frame", not "----frame" as RFC 2046 has it: when
// the stream's first boundary line shows that, the dashes are taken off.
func partReader(body io.Reader, boundary string) *multipart.Reader {
	br := bufio.NewReaderSize(body, 4096)
	if strings.HasPrefix(boundary, "--") {
		head, _ := br.Peek(len(boundary) + 4) // what arrived of the first line (a short peek is fine)
		first := strings.TrimLeft(string(head), "\r\n")
		if strings.HasPrefix(first, boundary) && !strings.HasPrefix(first, "--"+boundary) {
			boundary = strings.TrimPrefix(boundary, "--")
		}
	}
	return multipart.NewReader(br, boundary)
}

// receive reads parts until the stream ends or the source is closed,
// keeping the newest in s.latest.
func (s *MJPEGSource) receive(body io.Reader, boundary string, opened time.Time) {
	defer close(s.done)
	mr := partReader(body, boundary)
	var last int64 = -1
	for {
		p, err := mr.NextPart()
		if err != nil {
			s.err = fmt.Errorf("source: mjpeg %s: %w: stream lost: %v", s.name, ErrUnplugged, err)
			return
		}
		data, err := io.ReadAll(io.LimitReader(p, maxJPEG+1))
		p.Close()
		if err != nil {
			s.err = fmt.Errorf("source: mjpeg %s: %w: stream lost in a frame: %v", s.name, ErrUnplugged, err)
			return
		}
		// The stream carries no timestamps: frames are stamped on arrival.
		ts := s.opts.Now().Sub(opened).Milliseconds()
		if ts <= last {
			ts = last + 1
		}
		last = ts
		np := part{jpeg: data, atMS: ts}
		select {
		case s.latest <- np:
		default:
			// The reader is behind: replace the waiting part with this one.
			select {
			case <-s.latest:
				s.mu.Lock()
				s.skipped++
				s.mu.Unlock()
			default:
			}
			s.latest <- np
		}
	}
}

// stripURL keeps a url.Error's cause only: the URL is already in the
// message, without its password.
func stripURL(err error) error {
	var ue interface{ Unwrap() error }
	if errors.As(err, &ue) {
		if inner := ue.Unwrap(); inner != nil {
			return inner
		}
	}
	return err
}

// Read decodes the newest received JPEG part into dst, waiting for one.
func (s *MJPEGSource) Read(dst *gocv.Mat) (Frame, error) {
	if s.isClosed() {
		return Frame{}, fmt.Errorf("source: mjpeg %s: %w: source closed", s.name, ErrEndOfStream)
	}
	var p part
	select {
	case p = <-s.latest:
	case <-s.done:
		// A part that arrived just before the end still counts.
		select {
		case p = <-s.latest:
		default:
			if s.isClosed() {
				return Frame{}, fmt.Errorf("source: mjpeg %s: %w: source closed", s.name, ErrEndOfStream)
			}
			return Frame{}, s.err
		}
	}
	if len(p.jpeg) > maxJPEG {
		s.idx++
		return Frame{}, fmt.Errorf("source: mjpeg %s: %w: frame over %d bytes", s.name, ErrCorruptFrame, maxJPEG)
	}
	img, err := cvsafe.Decode(p.jpeg)
	if err != nil {
		s.idx++
		return Frame{}, fmt.Errorf("source: mjpeg %s: %w: frame %d is not a decodable JPEG (%d bytes)",
			s.name, ErrCorruptFrame, s.idx-1, len(p.jpeg))
	}
	defer img.Close()
	w, h := img.Cols(), img.Rows()
	if s.idx == 0 {
		s.w, s.h = w, h
	} else if w != s.w || h != s.h {
		s.idx++
		return Frame{}, fmt.Errorf("source: mjpeg %s: %w: frame %d is %dx%d, stream is %dx%d",
			s.name, ErrCorruptFrame, s.idx-1, w, h, s.w, s.h)
	}
	img.CopyTo(dst)
	// receive stamps parts strictly increasing, and they come out of
	// s.latest in that order.
	f := Frame{Index: s.idx, AtMS: p.atMS, Width: w, Height: h}
	s.idx++
	return f, nil
}

// Skipped reports how many received frames were dropped unread because a
// newer one arrived first (the reader was behind).
func (s *MJPEGSource) Skipped() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.skipped
}

func (s *MJPEGSource) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// Interrupt aborts a Read blocked on the network; it is safe to call from
// another goroutine. The stall wrapper calls it when it gives up on a read.
func (s *MJPEGSource) Interrupt() { s.cancel() }

// Close drops the connection. It is safe to call more than once, and from
// another goroutine than a blocked Read (which then returns).
func (s *MJPEGSource) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	s.cancel()
	s.body.Close()
	return nil
}

package source

import (
	"fmt"
	"time"

	"gocv.io/x/gocv"
)

// StallSource bounds how long a Read of another source may take. Reads run
// on a goroutine into a private Mat; if no frame arrives within the limit,
// Read returns ErrStalled. A read still in flight is waited for (with the
// same limit) by the next Read, and Close never blocks on it: the inner
// source is closed when that read finally returns.
type StallSource struct {
	inner Source
	limit time.Duration
	after func(time.Duration) <-chan time.Time

	buf     gocv.Mat
	pending chan readResult // non-nil while a read is in flight
	closed  bool
}

type readResult struct {
	f   Frame
	err error
}

var _ Source = (*StallSource)(nil)

// WithStall wraps src so that a Read waiting longer than limit returns
// ErrStalled. after is the timer (nil: time.After).
func WithStall(src Source, limit time.Duration, after func(time.Duration) <-chan time.Time) *StallSource {
	if after == nil {
		after = time.After
	}
	return &StallSource{inner: src, limit: limit, after: after, buf: gocv.NewMat()}
}

// Read returns the next frame, or ErrStalled when none arrives in time.
func (s *StallSource) Read(dst *gocv.Mat) (Frame, error) {
	if s.closed {
		return Frame{}, fmt.Errorf("source: %w: source closed", ErrEndOfStream)
	}
	if s.pending == nil {
		ch := make(chan readResult, 1)
		s.pending = ch
		go func() {
			f, err := s.inner.Read(&s.buf)
			ch <- readResult{f, err}
		}()
	}
	select {
	case r := <-s.pending:
		s.pending = nil
		if r.err != nil {
			return r.f, r.err
		}
		s.buf.CopyTo(dst)
		return r.f, nil
	case <-s.after(s.limit):
		return Frame{}, fmt.Errorf("source: %w: no frame for %d ms", ErrStalled, s.limit.Milliseconds())
	}
}

// Close closes the inner source, at once if no read is in flight, else as
// soon as that read returns. It is safe to call more than once.
func (s *StallSource) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	if s.pending == nil {
		s.buf.Close()
		return s.inner.Close()
	}
	ch := s.pending
	s.pending = nil
	// A network source can end the blocked read at once; a device or
	// file read returns on its own.
	if in, ok := s.inner.(interface{ Interrupt() }); ok {
		in.Interrupt()
	}
	go func() {
		<-ch
		s.buf.Close()
		_ = s.inner.Close()
	}()
	return nil
}

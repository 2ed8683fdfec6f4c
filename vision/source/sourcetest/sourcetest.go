// Package sourcetest provides fakes for tests of code that consumes frames
// (the daemon's camera loop, reconnect logic): Source, a scripted
// source.Source with no camera or file, and Stream, a live MJPEG-over-HTTP
// camera playing a recording in real time that a test can kill, restart
// and freeze.
package sourcetest

import (
	"fmt"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/vision/source"
)

// Step is one Read: either a frame (a solid BGR picture of Width x Height
// stamped AtMS) or an error (for example source.ErrStalled).
type Step struct {
	AtMS int64
	BGR  [3]float64
	Err  error
}

// Source plays its steps in order, then returns source.ErrEndOfStream.
type Source struct {
	Width, Height int
	Steps         []Step
	next, frames  int
	// Closed counts calls to Close.
	Closed int
}

var _ source.Source = (*Source)(nil)

// Read plays the next step into dst.
func (s *Source) Read(dst *gocv.Mat) (source.Frame, error) {
	if s.Closed > 0 {
		return source.Frame{}, fmt.Errorf("sourcetest: %w: closed", source.ErrEndOfStream)
	}
	if s.next >= len(s.Steps) {
		return source.Frame{}, fmt.Errorf("sourcetest: %w", source.ErrEndOfStream)
	}
	st := s.Steps[s.next]
	s.next++
	if st.Err != nil {
		return source.Frame{}, fmt.Errorf("sourcetest: step %d: %w", s.next-1, st.Err)
	}
	if dst.Empty() || dst.Cols() != s.Width || dst.Rows() != s.Height || dst.Type() != gocv.MatTypeCV8UC3 {
		m := gocv.NewMatWithSize(s.Height, s.Width, gocv.MatTypeCV8UC3)
		m.CopyTo(dst)
		m.Close()
	}
	dst.SetTo(gocv.NewScalar(st.BGR[0], st.BGR[1], st.BGR[2], 0))
	f := source.Frame{Index: s.frames, AtMS: st.AtMS, Width: s.Width, Height: s.Height}
	s.frames++
	return f, nil
}

// Close marks the source closed.
func (s *Source) Close() error {
	s.Closed++
	return nil
}

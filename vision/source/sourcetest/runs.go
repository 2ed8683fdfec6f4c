package sourcetest

import (
	"fmt"
	"sync"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/vision/source"
)

// Runs is a scripted live camera that drops its connection between runs of
// a recording's frames: each Open plays the next run, whose frames are
// stamped from that open as a live camera's are, and then Read returns
// source.ErrUnplugged; once every run has played, the stream ends
// (source.ErrEndOfStream). Give its Open to vision.PipelineConfig.OpenSource.
type Runs struct {
	// Runs are the recording's frame indices served by each connection.
	Runs [][]int
	// Render draws frame k of the recording into dst.
	Render func(k int, dst *gocv.Mat) error
	// FrameMS is frame k's time in the recording.
	FrameMS func(k int) int64

	mu   sync.Mutex
	next int
}

// Open connects: the next run, or the end of the stream after the last.
func (r *Runs) Open(string, source.Options) (source.Source, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.next >= len(r.Runs) {
		return &run{end: true}, nil
	}
	c := &run{r: r, frames: r.Runs[r.next]}
	r.next++
	return c, nil
}

// FrameRange lists frames from to to, both included.
func FrameRange(from, to int) []int {
	var out []int
	for k := from; k <= to; k++ {
		out = append(out, k)
	}
	return out
}

type run struct {
	r      *Runs
	frames []int
	i      int
	end    bool
}

func (c *run) Read(dst *gocv.Mat) (source.Frame, error) {
	if c.end {
		return source.Frame{}, fmt.Errorf("sourcetest: runs: %w", source.ErrEndOfStream)
	}
	if c.i >= len(c.frames) {
		return source.Frame{}, fmt.Errorf("sourcetest: runs: connection dropped: %w", source.ErrUnplugged)
	}
	k := c.frames[c.i]
	if err := c.r.Render(k, dst); err != nil {
		return source.Frame{}, fmt.Errorf("sourcetest: runs: frame %d: %w", k, err)
	}
	f := source.Frame{Index: c.i, AtMS: c.r.FrameMS(k) - c.r.FrameMS(c.frames[0]), Width: dst.Cols(), Height: dst.Rows()}
	c.i++
	return f, nil
}

func (c *run) Close() error { return nil }

package vision

import (
	"image"
	"sync"
	"sync/atomic"

	"gocv.io/x/gocv"
)

// ClipTap takes a reduced copy of every frame for the evidence clips. The
// frame loop only resizes the frame into one of a few preallocated Mats
// and hands it over; a goroutine of its own JPEG-encodes it and passes the
// bytes on. When every Mat is still waiting to be encoded the frame is
// dropped and counted instead: the frame loop never waits for evidence.
type ClipTap struct {
	// Scale is the clip's size relative to the camera's (0 < Scale <= 1).
	Scale float64
	// Quality is the JPEG quality (1..100).
	Quality int
	// Buffers is how many frames may wait for the encoder (default 4).
	Buffers int
	// Sink receives each encoded frame (a fresh slice it may keep) with its
	// size and stream time, on the encoder's goroutine.
	Sink func(jpeg []byte, width, height int, atMS int64)
	// OnDrop, when set, is called (on the frame loop) for each dropped frame.
	OnDrop func()

	dropped atomic.Uint64
}

// Dropped is the number of frames the encoder could not take.
func (c *ClipTap) Dropped() uint64 { return c.dropped.Load() }

type clipJob struct {
	m    *gocv.Mat
	atMS int64
}

// clipEncoder is a running ClipTap: a pool of Mats and the encoding goroutine.
type clipEncoder struct {
	tap  *ClipTap
	mats []gocv.Mat
	free chan *gocv.Mat
	work chan clipJob
	done sync.WaitGroup
}

func startClipEncoder(tap *ClipTap) *clipEncoder {
	n := tap.Buffers
	if n <= 0 {
		n = 4
	}
	e := &clipEncoder{tap: tap, mats: make([]gocv.Mat, n), free: make(chan *gocv.Mat, n), work: make(chan clipJob, n)}
	for i := range e.mats {
		e.mats[i] = gocv.NewMat()
		e.free <- &e.mats[i]
	}
	e.done.Add(1)
	go e.run()
	return e
}

// offer hands a reduced copy of frame over, or drops it when no buffer is free.
func (e *clipEncoder) offer(frame gocv.Mat, atMS int64) {
	var m *gocv.Mat
	select {
	case m = <-e.free:
	default:
		e.tap.dropped.Add(1)
		if e.tap.OnDrop != nil {
			e.tap.OnDrop()
		}
		return
	}
	if e.tap.Scale >= 1 {
		frame.CopyTo(m)
	} else {
		// Even sizes: what MJPG decoders expect of 4:2:0 chroma.
		w := max(2, int(float64(frame.Cols())*e.tap.Scale)&^1)
		h := max(2, int(float64(frame.Rows())*e.tap.Scale)&^1)
		gocv.Resize(frame, m, image.Pt(w, h), 0, 0, gocv.InterpolationArea)
	}
	e.work <- clipJob{m: m, atMS: atMS} // never blocks: one slot per Mat
}

func (e *clipEncoder) run() {
	defer e.done.Done()
	q := e.tap.Quality
	if q <= 0 {
		q = 75
	}
	params := []int{gocv.IMWriteJpegQuality, q}
	for j := range e.work {
		buf, err := gocv.IMEncodeWithParams(gocv.JPEGFileExt, *j.m, params)
		w, h := j.m.Cols(), j.m.Rows()
		e.free <- j.m
		if err != nil {
			continue
		}
		b := append([]byte(nil), buf.GetBytes()...)
		buf.Close()
		if e.tap.Sink != nil {
			e.tap.Sink(b, w, h, j.atMS)
		}
	}
}

// stop encodes what was handed over, ends the goroutine and closes the Mats.
func (e *clipEncoder) stop() {
	close(e.work)
	e.done.Wait()
	for i := range e.mats {
		e.mats[i].Close()
	}
}

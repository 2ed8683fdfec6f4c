// Package evidence keeps a short video clip of every throw in a bounded ring
// on disk, for disputes. The frame loop hands it JPEG-encoded frames (at a
// reduced scale) with their stream timestamps; the table loop opens a clip
// when a throw opens, which reserves the clip's file name at once so the
// decision can carry it, and closes it when the throw is decided. The
// recorder's one goroutine keeps a pre-roll of recent frames, writes each
// clip as Motion-JPEG AVI under a temporary name, renames it into place
// when it is complete, and prunes the ring oldest-first.
//
// Nothing here blocks its callers: frames and commands go through bounded
// channels and are dropped (and counted) when the recorder falls behind,
// and a failure to write (disk full, permissions) is reported through
// OnFault, never returned to the table loop. The package does not use
// OpenCV.
package evidence

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dicewatch/dicewatch/vision/avi"
)

// Ext is the clips' file name extension; only such files are pruned.
const Ext = ".avi"

// tmpSuffix marks a clip still being written; such files are never named in
// a decision and are removed when the recorder starts.
const tmpSuffix = ".tmp"

// Config sets up a Recorder.
type Config struct {
	// Dir holds the ring of clips. It is created if missing.
	Dir string
	// Table prefixes every clip's name.
	Table string
	// PreMS is how much video before the throw opened a clip holds.
	PreMS int64
	// PostMS is how much video after the decision a clip holds.
	PostMS int64
	// MaxClipMS closes a clip that was never closed (its decision was
	// lost or the command dropped) this long after its start.
	MaxClipMS int64
	// MaxBytes and MaxClips bound the ring; the oldest clips go first
	// (0: no bound of that kind). The newest clip is always kept.
	MaxBytes int64
	MaxClips int
	// FPS is the rate assumed until the stream's own rate is measured.
	FPS float64
	// Queue is how many frames may wait for the recorder (default 64).
	Queue int
	// OnFault is called from the recorder's goroutine when writing clips
	// fails (err set, once until it recovers) and when a clip is written
	// again after a failure (err nil).
	OnFault func(err error)
	// OnClip is called from the recorder's goroutine for each clip put in
	// place.
	OnClip func(Written)
	// OnStall is called when the recorder has refused every frame and
	// command offered to it for StallAfter (its goroutine blocked: a
	// write that does not return, or stopped), with an error, once until
	// it takes a frame again; then with nil. It is called from the
	// goroutine that offered (Frame, Open, Close), one call at a time.
	OnStall func(err error)
	// StallAfter is how long every offer must be refused before OnStall
	// (default 10 s).
	StallAfter time.Duration
	// Now gives the wall clock that names clips and times a stall
	// (default time.Now).
	Now func() time.Time
	Log *slog.Logger
}

// Frame is one encoded frame.
type Frame struct {
	JPEG          []byte
	Width, Height int
	// AtMS is the frame's stream time, the clock throws are timed by.
	AtMS int64
}

// Clip names a reserved clip and the stream window it is meant to cover.
type Clip struct {
	// File is the clip's base name inside the evidence folder.
	File string `json:"file"`
	// FromMS and ToMS are the stream times of its first and last frame
	// (ToMS is known once the throw is decided).
	FromMS int64 `json:"from_ms"`
	ToMS   int64 `json:"to_ms,omitempty"`
}

// Written describes a clip put in place.
type Written struct {
	File           string
	Frames         int
	FPS            float64
	FromMS, ToMS   int64 // stream times of the first and last frame slot
	Bytes          int64
	Pruned         int // older clips removed to keep the ring in bounds
	Truncated      bool
	PreRollShortMS int64 // how much of the wanted pre-roll was not available
}

type command struct {
	open   bool
	file   string
	fromMS int64
	toMS   int64 // close: the last stream time to include
}

// Recorder owns the clip ring. Frame, Open and Close may be called from
// any goroutine; Run is the one goroutine that writes.
type Recorder struct {
	cfg    Config
	frames chan Frame
	cmds   chan command
	log    *slog.Logger

	nameMu   sync.Mutex
	lastBase string
	lastN    int

	// Owned by Run's goroutine.
	faulted  bool
	measured float64

	droppedFrames atomic.Uint64
	droppedCmds   atomic.Uint64

	// refusedSince is when the current run of refused offers began (unix
	// ns; 0: the last offer was taken); stalled is set while OnStall has
	// said so. stallMu keeps OnStall's calls in order.
	refusedSince atomic.Int64
	stalled      atomic.Bool
	stallMu      sync.Mutex
	written      atomic.Uint64
	failed       atomic.Uint64
}

// New returns a recorder; nothing touches the disk until Run.
func New(cfg Config) (*Recorder, error) {
	if cfg.Dir == "" {
		return nil, errors.New("evidence: no folder for clips")
	}
	if cfg.PreMS < 0 || cfg.PostMS < 0 {
		return nil, errors.New("evidence: negative pre- or post-roll")
	}
	if cfg.FPS <= 0 {
		cfg.FPS = 30
	}
	if cfg.Queue <= 0 {
		cfg.Queue = 64
	}
	if cfg.MaxClipMS <= 0 {
		cfg.MaxClipMS = cfg.PreMS + cfg.PostMS + 60000
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.StallAfter <= 0 {
		cfg.StallAfter = 10 * time.Second
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	return &Recorder{
		cfg:    cfg,
		frames: make(chan Frame, cfg.Queue),
		cmds:   make(chan command, 64),
		log:    cfg.Log,
	}, nil
}

// Frame offers one encoded frame. It never blocks: when the recorder is
// behind, the frame is dropped and counted (a clip repeats the previous
// picture in its place, so its time axis stays true).
func (r *Recorder) Frame(f Frame) bool {
	select {
	case r.frames <- f:
		r.taken()
		return true
	default:
		r.droppedFrames.Add(1)
		r.refused()
		return false
	}
}

// taken notes an offer the recorder took: a stall, if one was reported,
// is over.
func (r *Recorder) taken() {
	if r.refusedSince.Load() == 0 && !r.stalled.Load() {
		return
	}
	r.stallMu.Lock()
	defer r.stallMu.Unlock()
	r.refusedSince.Store(0)
	if r.stalled.Load() {
		r.stalled.Store(false)
		r.log.Info("evidence recorder takes frames again")
		if r.cfg.OnStall != nil {
			r.cfg.OnStall(nil)
		}
	}
}

// refused notes an offer the recorder had no room for, and reports a
// stall once every offer has been refused for StallAfter.
func (r *Recorder) refused() {
	now := r.cfg.Now().UnixNano()
	r.stallMu.Lock()
	defer r.stallMu.Unlock()
	since := r.refusedSince.Load()
	if since == 0 {
		r.refusedSince.Store(now)
		return
	}
	if r.stalled.Load() || time.Duration(now-since) < r.cfg.StallAfter {
		return
	}
	r.stalled.Store(true)
	err := fmt.Errorf("evidence: the clip recorder has taken nothing offered for %v: clips are not being written", time.Duration(now-since).Round(time.Second))
	r.log.Error("evidence recorder stalled", "err", err)
	if r.cfg.OnStall != nil {
		r.cfg.OnStall(err)
	}
}

// Open reserves a clip for a throw that opened at startMS (stream time)
// and returns its name at once. The clip starts PreMS before startMS.
// When the recorder is so far behind that it cannot take the command, no
// clip will be written and the Clip returned has no File: a decision must
// not name a clip that will never exist.
func (r *Recorder) Open(startMS int64) Clip {
	c := Clip{File: r.reserveName(), FromMS: startMS - r.cfg.PreMS}
	if !r.send(command{open: true, file: c.File, fromMS: c.FromMS}) {
		return Clip{FromMS: c.FromMS}
	}
	return c
}

// Close ends the clip PostMS after decidedMS (the stream time the throw was
// decided at) and returns the clip with its window complete. (If this
// command is dropped, the clip still ends, at MaxClipMS.) A Clip without a
// File is returned as it is.
func (r *Recorder) Close(c Clip, decidedMS int64) Clip {
	c.ToMS = max(decidedMS+r.cfg.PostMS, c.FromMS)
	if c.File != "" {
		r.send(command{file: c.File, toMS: c.ToMS})
	}
	return c
}

func (r *Recorder) send(c command) bool {
	select {
	case r.cmds <- c:
		// Queued only: that proves nothing of the writer (its frames
		// queue is what it drains all the time).
		return true
	default:
		r.droppedCmds.Add(1)
		r.refused()
		return false
	}
}

// Dropped is the number of frames dropped because the recorder was behind.
func (r *Recorder) Dropped() uint64 { return r.droppedFrames.Load() }

// DroppedCommands is the number of open/close commands dropped.
func (r *Recorder) DroppedCommands() uint64 { return r.droppedCmds.Load() }

// Written is the number of clips put in place; Failed the number lost to
// write errors.
func (r *Recorder) Written() uint64 { return r.written.Load() }

// Failed is the number of clips lost to write errors.
func (r *Recorder) Failed() uint64 { return r.failed.Load() }

// reserveName names a clip after the wall-clock time it opened, so the
// ring sorts by time and a name says when to look in other recordings:
// <table>-20060102T150405.000Z.avi, then -2, -3... while the clock shows
// the same millisecond (or stepped back).
func (r *Recorder) reserveName() string {
	r.nameMu.Lock()
	defer r.nameMu.Unlock()
	base := r.cfg.Table + "-" + r.cfg.Now().UTC().Format("20060102T150405.000Z")
	if base > r.lastBase {
		r.lastBase, r.lastN = base, 1
		return base + Ext
	}
	r.lastN++
	return fmt.Sprintf("%s-%d%s", r.lastBase, r.lastN, Ext)
}

// clip is one clip being written.
type clip struct {
	file     string
	from, to int64 // stream ms; to is the cap until the clip is closed
	closed   bool
	w        *avi.Writer
	tmp      string
	fps      float64
	lastK    int
	prev     []byte
	shortMS  int64
	err      error
}

// Run writes clips until ctx ends, then writes out what is buffered and
// puts every clip still open in place with what it has.
func (r *Recorder) Run(ctx context.Context) error {
	r.prepare()
	var pre []Frame
	clips := map[string]*clip{}
	for {
		select {
		case <-ctx.Done():
			// Commands first: a clip opened just before the end still
			// gets the buffered frames.
			for {
				select {
				case c := <-r.cmds:
					r.command(c, clips, pre)
					continue
				default:
				}
				break
			}
			for {
				select {
				case f := <-r.frames:
					pre = r.frame(f, clips, pre)
					continue
				default:
				}
				break
			}
			for _, c := range takeAll(clips) {
				r.finish(c, true)
			}
			return nil
		case c := <-r.cmds:
			r.command(c, clips, pre)
		case f := <-r.frames:
			pre = r.frame(f, clips, pre)
		}
	}
}

// takeAll empties the map and returns its clips in name order.
func takeAll(m map[string]*clip) []*clip {
	out := make([]*clip, 0, len(m))
	for _, c := range m {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].file < out[j].file })
	for k := range m {
		delete(m, k)
	}
	return out
}

// prepare creates the folder and removes clips left half-written by a
// crash.
func (r *Recorder) prepare() {
	if err := os.MkdirAll(r.cfg.Dir, 0o750); err != nil {
		r.fault(fmt.Errorf("evidence: %w", err))
		return
	}
	ents, err := os.ReadDir(r.cfg.Dir)
	if err != nil {
		r.fault(fmt.Errorf("evidence: %w", err))
		return
	}
	for _, e := range ents {
		if n := e.Name(); strings.HasPrefix(n, ".") && strings.HasSuffix(n, Ext+tmpSuffix) {
			if err := os.Remove(filepath.Join(r.cfg.Dir, n)); err == nil {
				r.log.Info("removed a clip left unfinished", "file", n)
			}
		}
	}
}

func (r *Recorder) fault(err error) {
	if err == nil {
		if r.faulted && r.cfg.OnFault != nil {
			r.cfg.OnFault(nil)
		}
		r.faulted = false
		return
	}
	r.log.Error("evidence clip", "err", err)
	if !r.faulted && r.cfg.OnFault != nil {
		r.cfg.OnFault(err)
	}
	r.faulted = true
}

func (r *Recorder) command(cmd command, clips map[string]*clip, pre []Frame) {
	if cmd.open {
		c := &clip{file: cmd.file, from: cmd.fromMS, to: cmd.fromMS + r.cfg.MaxClipMS, lastK: -1}
		clips[c.file] = c
		// The pre-roll: every buffered frame from the clip's start on.
		for _, f := range pre {
			if r.write(c, f) {
				r.finish(c, false)
				delete(clips, c.file)
				return
			}
		}
		return
	}
	c, ok := clips[cmd.file]
	if !ok {
		return // already closed at its cap, or its open was dropped
	}
	c.to, c.closed = min(cmd.toMS, c.from+r.cfg.MaxClipMS), true
	if c.w != nil && c.lastK >= r.slots(c) {
		r.finish(c, false)
		delete(clips, c.file)
	}
}

// frame keeps f in the pre-roll and writes it into every open clip it
// belongs to; it returns the pre-roll.
func (r *Recorder) frame(f Frame, clips map[string]*clip, pre []Frame) []Frame {
	if n := len(pre); n > 0 && f.AtMS <= pre[n-1].AtMS {
		// The stream clock went back (a camera reopened without --loop):
		// what came before cannot share a time axis with what follows.
		pre = pre[:0]
		for _, c := range takeAll(clips) {
			r.finish(c, true)
		}
	}
	pre = append(pre, f)
	// Keep PreMS plus a margin for the time a throw takes to be opened
	// by the table loop after its frame was taken.
	keep := r.cfg.PreMS + 1000
	drop := 0
	for drop < len(pre)-1 && pre[drop].AtMS < f.AtMS-keep {
		drop++
	}
	if drop > 0 {
		n := copy(pre, pre[drop:])
		clear(pre[n:])
		pre = pre[:n]
	}
	for _, c := range list(clips) {
		if r.write(c, f) {
			r.finish(c, false)
			delete(clips, c.file)
		}
	}
	r.measure(pre)
	return pre
}

// list returns the clips in name order.
func list(m map[string]*clip) []*clip {
	out := make([]*clip, 0, len(m))
	for _, c := range m {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].file < out[j].file })
	return out
}

// measure sets the stream's measured rate from the pre-roll: the mean
// frame interval, leaving out gaps (dropped frames) and doubles (twice
// the median or more, half or less), rounded to a whole number of frames
// per second when within 3% of one.
func (r *Recorder) measure(pre []Frame) {
	n := len(pre)
	if n < 10 {
		return
	}
	dts := make([]int64, 0, n-1)
	for i := 1; i < n; i++ {
		dts = append(dts, pre[i].AtMS-pre[i-1].AtMS)
	}
	sorted := append([]int64(nil), dts...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	med := sorted[len(sorted)/2]
	if med <= 0 {
		return
	}
	var sum, cnt int64
	for _, d := range dts {
		if 2*d > med && d < 2*med {
			sum += d
			cnt++
		}
	}
	fps := float64(cnt) * 1000 / float64(sum)
	if w := math.Round(fps); w > 0 && math.Abs(fps-w)/w < 0.03 {
		fps = w
	} else {
		fps = math.Round(fps*100) / 100
	}
	r.measured = fps
}

func (r *Recorder) rate() float64 {
	if r.measured > 0 {
		return r.measured
	}
	return r.cfg.FPS
}

// slots is the index of a clip's last frame slot: frame k shows stream
// time from + k/fps (rounded: camera stamps are whole milliseconds).
func (r *Recorder) slots(c *clip) int {
	return int(math.Round(float64(c.to-c.from) * c.fps / 1000))
}

// write puts f into c at its slot, repeating the previous picture over
// any gap. It reports whether the clip is complete.
func (r *Recorder) write(c *clip, f Frame) bool {
	if c.err != nil {
		return false
	}
	if c.w == nil {
		c.fps = r.rate()
	}
	k := int(math.Round(float64(f.AtMS-c.from) * c.fps / 1000))
	if k < 0 {
		return false
	}
	if c.w == nil {
		if k > 1 {
			// The pre-roll does not reach back that far (the stream
			// started, or frames were dropped): start at this frame
			// rather than freeze it over the missing time.
			shift := float64(k) * 1000 / c.fps
			c.shortMS = int64(shift)
			c.from += int64(shift)
			k = 0
		}
		if err := r.create(c, f); err != nil {
			c.err = err
			r.failed.Add(1)
			r.fault(err)
			return false
		}
	}
	last := r.slots(c)
	done := false
	if k > last {
		k, done = last+1, true // fill up to the end with the previous picture
	}
	if k <= c.lastK {
		return false // a second frame in one slot: keep the first
	}
	for c.lastK < k-1 {
		pic := c.prev
		if pic == nil {
			pic = f.JPEG
		}
		if !r.put(c, pic) {
			return false
		}
	}
	if done {
		return true
	}
	if !r.put(c, f.JPEG) {
		return false
	}
	c.prev = f.JPEG
	return c.lastK >= last
}

func (r *Recorder) put(c *clip, jpeg []byte) bool {
	if err := c.w.WriteFrame(jpeg); err != nil {
		c.err = fmt.Errorf("evidence: %s: %w", c.file, err)
		r.failed.Add(1)
		r.fault(c.err)
		return false
	}
	c.lastK++
	return true
}

func (r *Recorder) create(c *clip, f Frame) error {
	c.tmp = filepath.Join(r.cfg.Dir, "."+c.file+tmpSuffix)
	w, err := avi.Create(c.tmp, f.Width, f.Height, c.fps)
	if err != nil {
		return fmt.Errorf("evidence: %s: %w", c.file, err)
	}
	c.w = w
	return nil
}

// finish puts a clip in place (or, after a write error, removes what was
// written) and prunes the ring.
func (r *Recorder) finish(c *clip, truncated bool) {
	if c.w == nil {
		if c.err == nil {
			r.log.Warn("no frames for an evidence clip", "file", c.file)
		}
		return
	}
	err := c.err
	if cerr := c.w.CloseSync(); err == nil && cerr != nil {
		err = fmt.Errorf("evidence: %s: %w", c.file, cerr)
	}
	if err == nil {
		if rerr := os.Rename(c.tmp, filepath.Join(r.cfg.Dir, c.file)); rerr != nil {
			err = fmt.Errorf("evidence: %w", rerr)
		}
	}
	if err != nil {
		_ = os.Remove(c.tmp)
		if c.err == nil {
			r.failed.Add(1)
			r.fault(err)
		}
		return
	}
	syncDir(r.cfg.Dir)
	r.written.Add(1)
	r.fault(nil)
	pruned := r.prune(c.file)
	wr := Written{
		File: c.file, Frames: c.w.Frames(), FPS: c.fps, FromMS: c.from,
		ToMS:  c.from + int64(float64(c.w.Frames()-1)*1000/c.fps),
		Bytes: c.w.Size(), Pruned: pruned, Truncated: truncated, PreRollShortMS: c.shortMS,
	}
	r.log.Debug("evidence clip written", "file", wr.File, "frames", wr.Frames, "fps", wr.FPS,
		"bytes", wr.Bytes, "pruned", pruned, "truncated", truncated)
	if r.cfg.OnClip != nil {
		r.cfg.OnClip(wr)
	}
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// prune removes the oldest clips (by modification time, then name) until
// the ring is within MaxClips and MaxBytes; keep is never removed. It
// returns how many it removed.
func (r *Recorder) prune(keep string) int {
	if r.cfg.MaxBytes <= 0 && r.cfg.MaxClips <= 0 {
		return 0
	}
	ents, err := os.ReadDir(r.cfg.Dir)
	if err != nil {
		r.fault(fmt.Errorf("evidence: prune: %w", err))
		return 0
	}
	type entry struct {
		name string
		mod  time.Time
		size int64
	}
	var es []entry
	var total int64
	for _, e := range ents {
		n := e.Name()
		if !e.Type().IsRegular() || strings.HasPrefix(n, ".") || !strings.HasSuffix(n, Ext) {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		es = append(es, entry{n, info.ModTime(), info.Size()})
		total += info.Size()
	}
	sort.Slice(es, func(i, j int) bool {
		if !es[i].mod.Equal(es[j].mod) {
			return es[i].mod.Before(es[j].mod)
		}
		return es[i].name < es[j].name
	})
	removed := 0
	for _, e := range es {
		over := r.cfg.MaxClips > 0 && len(es)-removed > r.cfg.MaxClips ||
			r.cfg.MaxBytes > 0 && total > r.cfg.MaxBytes
		if !over {
			break
		}
		if e.name == keep {
			continue
		}
		if err := os.Remove(filepath.Join(r.cfg.Dir, e.name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			r.fault(fmt.Errorf("evidence: prune: %w", err))
			break
		}
		removed++
		total -= e.size
	}
	return removed
}

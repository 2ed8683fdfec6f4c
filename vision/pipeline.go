package vision

import (
	"context"
	"errors"
	"fmt"
	"image"
	"log/slog"
	"math"
	"time"

	"image/color"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/calibration"
	"github.com/dicewatch/dicewatch/rules"
	"github.com/dicewatch/dicewatch/tracker"
	"github.com/dicewatch/dicewatch/vision/motion"
	"github.com/dicewatch/dicewatch/vision/source"
)

// PipelineConfig wires a frame source, the motion tracker and the dice
// reader into one loop that emits plain observations.
type PipelineConfig struct {
	// Source is the frame source URL (see vision/source).
	Source string
	// SourceOptions tune the source (stall limit, clocks for tests).
	SourceOptions source.Options
	// OpenSource opens Source with SourceOptions, at the start and after
	// every fault; nil means source.Open. Tests script a camera with it.
	OpenSource func(url string, opts source.Options) (source.Source, error)
	// Calibration maps pixels to table mm and zones. Required.
	Calibration *calibration.Calibration
	// Current, when set, gives the calibration in force for each frame (a
	// SIGHUP reload swaps it); Calibration is then only the first one.
	Current func() *calibration.Calibration
	// SettleMS is the at-rest settle window.
	SettleMS int64
	// DiePx overrides the expected die edge (0: from the calibration).
	DiePx float64
	// PipSpread overrides the dice's pip spread (0: the calibration's
	// die.pip_spread, which may be unset), given to the still-photo
	// reader (ReaderOptions.PipSpread). The at-rest reader, which reads
	// every frame once the empty table is seen, learns its pips' ruler
	// from the flat dice instead (pipRuler).
	PipSpread float64
	// ExitAtEOF ends the loop at the end of a finite source instead of
	// reopening it.
	ExitAtEOF bool
	// Loop plays a finite source again from the start when it ends, with
	// the stream clock carried on (soak tests and kiosk demos).
	Loop bool
	// Snapshots: when set, the deciding frame of each throw is annotated
	// and JPEG-encoded into Event.Snapshot.
	Snapshots bool
	// Clip, when set, gets a reduced copy of every frame for the evidence
	// clips (encoded off the frame loop; dropped, never waited for).
	Clip *ClipTap
	// Backoff bounds the reconnect delay after a camera fault (default 2 s).
	Backoff time.Duration
	// Heartbeat, when set, is called on every pass of the loop (frames and
	// reconnect attempts alike), to feed a watchdog: only a hung call stops it.
	Heartbeat func()
	Log       *slog.Logger
}

// Event is what the pipeline hands to the daemon: an observation per frame,
// or a camera fault change. No gocv.Mat crosses this boundary.
type Event struct {
	// Obs is set for every frame processed.
	Obs *tracker.Observation
	// Frame is the frame's index and size.
	Frame source.Frame
	// Delivered is the wall time at which the source handed the frame
	// over (Read returned): for a camera, or a file paced at its own
	// timestamps, the moment the frame existed for the daemon. Latency
	// is measured from it.
	Delivered time.Time
	// Fault is set when the camera is lost (Err non-nil) or recovered (Err nil).
	Fault *CameraFault
	// Snapshot is the JPEG of the deciding frame (at rest), when enabled.
	// It comes in an event of its own (Obs nil, Frame the deciding
	// frame's) right after the at-rest observation, so encoding it adds
	// nothing to the decision's latency.
	Snapshot []byte
	// Detections are the reader's raw results at rest (pixel boxes).
	Detections []Detection
	// Timing of this frame's stages.
	Timing StageTiming
}

// StageTiming is how long each stage took for one frame.
type StageTiming struct {
	Capture, Motion, Read time.Duration
	// Clip is the previous frame's hand-over to the clip encoder (the
	// resize; 0 without clips).
	Clip time.Duration
}

// ErrCalibrationMismatch: the frames are not the size the calibration was made for.
var ErrCalibrationMismatch = errors.New("frame size does not match the calibration")

// CameraFault reports a camera that was lost or has recovered.
type CameraFault struct {
	Err       error // nil: recovered
	Recovered bool
}

// RunPipeline owns the camera, the motion tracker and the reader until ctx
// ends or (with ExitAtEOF) the source ends. It calls emit from its own
// goroutine for every event; emit must not keep references into slices it
// is given beyond the call unless it copies them (it is given fresh ones).
func RunPipeline(ctx context.Context, cfg PipelineConfig, emit func(Event)) error {
	if cfg.Calibration == nil {
		return errors.New("vision: pipeline needs a calibration")
	}
	if cfg.Backoff == 0 {
		cfg.Backoff = 2 * time.Second
	}
	log := cfg.Log
	if log == nil {
		log = slog.Default()
	}
	cal := cfg.Calibration
	calNow := func() *calibration.Calibration {
		if cfg.Current != nil {
			if c := cfg.Current(); c != nil {
				return c
			}
		}
		return cal
	}
	dieAt := func(x, y float64) float64 {
		if cfg.DiePx > 0 {
			return cfg.DiePx
		}
		return calNow().DiePx(calibration.Point{X: x, Y: y})
	}
	centre := calibration.Point{X: float64(cal.Camera.Width) / 2, Y: float64(cal.Camera.Height) / 2}
	mt := motion.New(motion.Config{
		DiePx:    dieAt(centre.X, centre.Y),
		SettleMS: cfg.SettleMS,
		ZoneOf: func(x, y float64) string {
			c := calNow()
			return string(c.ZoneAt(c.ToTable(calibration.Point{X: x, Y: y})))
		},
	})
	defer mt.Close()
	log.Info("camera view", "view", cal.View().String())
	var acrossAt func(x, y float64) float64 // nil with a fixed die_px: the edge given
	if cfg.DiePx <= 0 {
		acrossAt = func(x, y float64) float64 { return calNow().DieAcrossPx(calibration.Point{X: x, Y: y}) }
	}
	rd := NewReader(calibratedOptions(calNow, dieAt, acrossAt))
	defer rd.Close()
	frame := gocv.NewMat()
	defer frame.Close()
	// bg is the empty table at full resolution, for the at-rest reader:
	// the first frame, then refreshed whenever the tracker sees the table
	// empty and still.
	bg := gocv.NewMat()
	defer bg.Close()
	idleFrames := 0
	// ruler: the pips' spread of the flat dice read at rest, kept across
	// throws for as long as the calibration stands (see pipRuler).
	var ruler pipRuler
	var clipEnc *clipEncoder
	if cfg.Clip != nil {
		clipEnc = startClipEncoder(cfg.Clip)
		defer clipEnc.stop()
	}
	var clipTime time.Duration

	var src source.Source
	defer func() {
		if src != nil {
			src.Close()
		}
	}()
	open := cfg.OpenSource
	if open == nil {
		open = source.Open
	}
	faulted, mismatch, started := false, false, false
	var offsetMS, lastMS int64
	// reopened: the source was opened again after a fault. A live source
	// stamps frames from its own open, so its clock restarts; the stream
	// clock carries on from the last frame by the wall time the outage took.
	reopened := false
	var lastWall, lostAt time.Time
	corrupt := 0
	delay := 100 * time.Millisecond
	beat := cfg.Heartbeat
	if beat == nil {
		beat = func() {}
	}
	for ctx.Err() == nil {
		beat()
		if src == nil {
			s, err := open(cfg.Source, cfg.SourceOptions)
			if err != nil {
				if !faulted {
					faulted, lostAt = true, time.Now()
					emit(Event{Fault: &CameraFault{Err: err}})
				}
				log.Warn("camera open failed", "err", err, "retry_in", delay)
				if !sleepCtx(ctx, delay) {
					break
				}
				delay = min(delay*2, cfg.Backoff)
				continue
			}
			src = s
		}
		t0 := time.Now()
		f, err := src.Read(&frame)
		t1 := time.Now()
		if err != nil {
			if errors.Is(err, source.ErrEndOfStream) && cfg.ExitAtEOF {
				return nil
			}
			if errors.Is(err, source.ErrEndOfStream) && cfg.Loop {
				offsetMS = lastMS + 33
				src.Close()
				src = nil
				continue
			}
			if errors.Is(err, source.ErrCorruptFrame) && corrupt < 10 {
				// A bad frame: note it and go on with the next. Ten in a
				// row is a lost camera.
				corrupt++
				log.Warn("corrupt frame", "err", err)
				continue
			}
			if !faulted {
				faulted, lostAt = true, time.Now()
				emit(Event{Fault: &CameraFault{Err: err}})
			}
			log.Warn("camera lost", "err", err, "retry_in", delay)
			src.Close()
			src = nil
			reopened = true
			if !sleepCtx(ctx, delay) {
				break
			}
			delay = min(delay*2, cfg.Backoff)
			continue
		}
		corrupt = 0
		if f.Width != cal.Camera.Width || f.Height != cal.Camera.Height {
			if !started {
				// The first frame already disagrees: refuse to start rather
				// than decide throws through the wrong map.
				return fmt.Errorf("vision: %w: the camera gives %dx%d, the calibration is for %dx%d",
					ErrCalibrationMismatch, f.Width, f.Height, cal.Camera.Width, cal.Camera.Height)
			}
			if !mismatch {
				mismatch = true
				emit(Event{Fault: &CameraFault{Err: fmt.Errorf("vision: %w: frame %dx%d, calibration %dx%d",
					ErrCalibrationMismatch, f.Width, f.Height, cal.Camera.Width, cal.Camera.Height)}})
			}
			continue
		}
		resumed := reopened && started
		if resumed {
			offsetMS = lastMS + max(1, time.Since(lastWall).Milliseconds()) - f.AtMS
			// What the motion tracker knew before the outage is stale.
			mt.Resume()
		}
		reopened = false
		if faulted || mismatch {
			if faulted {
				log.Info("camera recovered", "outage", time.Since(lostAt).Round(time.Millisecond))
			}
			faulted, mismatch = false, false
			delay = 100 * time.Millisecond
			emit(Event{Fault: &CameraFault{Recovered: true}})
		}
		started = true
		f.AtMS += offsetMS
		lastMS, lastWall = f.AtMS, time.Now()
		r := mt.Update(frame, f.AtMS)
		t2 := time.Now()
		if r.Phase == motion.Idle && !r.Motion && len(r.Dice) == 0 {
			idleFrames++
		} else {
			idleFrames = 0
		}
		if bg.Empty() || r.Clear || idleFrames%30 == 29 {
			frame.CopyTo(&bg)
		}
		obs := observe(r)
		obs.Resumed = resumed
		ev := Event{Obs: &obs, Frame: f, Delivered: t1}
		// An edge is the calibration's: a new one starts a new ruler.
		ruler.forCalibration(calNow())
		if r.AtRest != nil {
			rd.opts.PipSpread = cfg.PipSpread
			if rd.opts.PipSpread == 0 {
				rd.opts.PipSpread = calNow().Die.PipSpread
			}
			dets, err := readAtRestRuled(rd, frame, bg, r.AtRest, dieAt, &ruler)
			if err != nil {
				log.Warn("read failed", "err", err)
			}
			ev.Detections = dets
			obs.Dice = toDice(dets, r.AtRest.Dice, calNow())
		}
		ev.Timing = StageTiming{Capture: t1.Sub(t0), Motion: t2.Sub(t1), Read: time.Since(t2), Clip: clipTime}
		emit(ev)
		if r.AtRest != nil && cfg.Snapshots {
			emit(Event{Frame: f, Delivered: t1, Snapshot: snapshot(frame, ev.Detections)})
		}
		if clipEnc != nil {
			// After the observation is out, so evidence adds nothing to
			// the decision's latency.
			t3 := time.Now()
			clipEnc.offer(frame, f.AtMS)
			clipTime = time.Since(t3)
		}
	}
	return ctx.Err()
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// observe converts a motion result into a tracker observation.
func observe(r motion.Result) tracker.Observation {
	o := tracker.Observation{
		AtMS:    r.AtMS,
		Motion:  r.Motion,
		AtRest:  r.AtRest != nil,
		Clear:   r.Clear,
		Started: r.Started,
	}
	for _, c := range r.Dice {
		if !c.Large {
			o.Present++
		}
	}
	byID := map[int]motion.Candidate{}
	for _, c := range r.Dice {
		byID[c.ID] = c
	}
	for _, id := range r.Appeared {
		if c, ok := byID[id]; ok {
			o.Appeared = append(o.Appeared, c.FirstSeenMS)
		}
	}
	if r.Started && o.Present == 0 && len(o.Appeared) == 0 {
		o.Present = 1 // something entered: let the tracker open the throw
	}
	for _, e := range r.Exits {
		// A die that leaves the picture has left the table: the camera
		// frames the table with its rails, so a die resting in the rail
		// is seen at rest there (zone rail) rather than leaving the view.
		o.Exits = append(o.Exits, rules.Exit{Zone: rules.ZoneOffTable, AtMS: e.AtMS})
	}
	return o
}

// readAtRest reads the dice around each at-rest candidate: against the
// empty-table background when there is one (the at-rest reader), else with
// the still-photo reader.
func readAtRest(rd *Reader, frame, bg gocv.Mat, ar *motion.AtRest, dieAt func(x, y float64) float64) ([]Detection, error) {
	return readAtRestRuled(rd, frame, bg, ar, dieAt, nil)
}

// readAtRestRuled is readAtRest with the pips' ruler learned over earlier
// frames (nil: none), which it also teaches with this frame's flat dice.
func readAtRestRuled(rd *Reader, frame, bg gocv.Mat, ar *motion.AtRest, dieAt func(x, y float64) float64, pr *pipRuler) ([]Detection, error) {
	bounds := image.Rect(0, 0, frame.Cols(), frame.Rows())
	var rois []image.Rectangle
	for _, c := range ar.Dice {
		pad := int(math.Ceil(dieAt(c.CX, c.CY) * 1.5))
		r := c.Box.Inset(-pad).Intersect(bounds)
		merged := false
		for i := range rois {
			if rois[i].Overlaps(r) {
				rois[i] = rois[i].Union(r)
				merged = true
				break
			}
		}
		if !merged && !r.Empty() {
			rois = append(rois, r)
		}
	}
	var out []Detection
	if !bg.Empty() && bg.Cols() == frame.Cols() && bg.Rows() == frame.Rows() {
		for _, r := range rois {
			fp, ok1 := patchOf(frame, r)
			bp, ok2 := patchOf(bg, r)
			if !ok1 || !ok2 {
				continue
			}
			c := r.Min.Add(r.Size().Div(2))
			edge := dieAt(float64(c.X), float64(c.Y))
			for _, d := range readRest(fp, bp, edge) {
				out = append(out, d.toDetection(edge, DefaultMinFlatness))
			}
		}
		pr.size(out)
		return dedupe(out), nil
	}
	for _, r := range rois {
		dets, err := rd.ReadRegion(frame, r)
		if err != nil {
			return out, err
		}
		out = append(out, dets...)
	}
	return dedupe(out), nil
}

// dedupe drops detections whose centres fall inside an earlier one's box
// (regions can overlap after merging).
func dedupe(ds []Detection) []Detection {
	var out []Detection
	for _, d := range ds {
		dup := false
		for _, o := range out {
			if image.Pt(int(d.CX), int(d.CY)).In(o.Box) {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, d)
		}
	}
	return out
}

// toDice maps detections to table positions and zones, and gives each the
// first-appearance time of the nearest tracked candidate.
func toDice(ds []Detection, cands []motion.Candidate, cal *calibration.Calibration) []rules.Die {
	out := make([]rules.Die, 0, len(ds))
	for _, d := range ds {
		p := cal.ToTable(calibration.Point{X: d.CX, Y: d.CY})
		die := rules.Die{
			Value: d.Value, Confidence: d.Confidence,
			XMM: round1(p.X), YMM: round1(p.Y), Zone: cal.ZoneAt(p),
			Flat: d.Flat, Flatness: d.Flatness, SizeRatio: d.SizeRatio,
		}
		best := math.Inf(1)
		for _, c := range cands {
			if dd := math.Hypot(c.CX-d.CX, c.CY-d.CY); dd < best {
				best = dd
				die.FirstSeenMS = c.FirstSeenMS
			}
		}
		out = append(out, die)
	}
	return out
}

var (
	colorOK  = color.RGBA{0, 255, 0, 0}
	colorBad = color.RGBA{255, 0, 0, 0}
)

func round1(v float64) float64 { return math.Round(v*10) / 10 }

// snapshot annotates a copy of the deciding frame with each die's box and
// value (red: unreadable or not flat) and encodes it as JPEG.
func snapshot(frame gocv.Mat, dets []Detection) []byte {
	img := frame.Clone()
	defer img.Close()
	for _, d := range dets {
		c := colorOK
		label := fmt.Sprintf("%d %.2f", d.Value, d.Confidence)
		if d.Value == 0 || !d.Flat {
			c = colorBad
			if d.Value == 0 {
				label = "? " + fmt.Sprintf("%.2f", d.Confidence)
			}
		}
		gocv.Rectangle(&img, d.Box.Inset(-3), c, 2)
		gocv.PutText(&img, label, image.Pt(d.Box.Min.X, d.Box.Min.Y-6), gocv.FontHersheySimplex, 0.6, c, 2)
	}
	buf, err := gocv.IMEncodeWithParams(gocv.JPEGFileExt, img, []int{gocv.IMWriteJpegQuality, 85})
	if err != nil {
		return nil
	}
	defer buf.Close()
	return append([]byte(nil), buf.GetBytes()...)
}

// calibratedOptions are the options of the daemon's still-photo reader:
// the die edge at each place (dieAt) and the camera's view of the table,
// its angle off vertical (ViewTiltDeg) and the picture of a die's
// vertical edge (ViewUp), as the calibration calNow gives now (reloaded
// or not): NaN where it is not known, which the reader takes as no view
// there (see calibration.View; a measured camera.view_tilt_deg gives the
// angle but no vertical). The reader reads at rest only without an
// empty-table background (readAtRestRuled), and bg is the first frame
// before any read: today the at-rest reader, which has no cocked nets to
// cut, reads every throw.
func calibratedOptions(calNow func() *calibration.Calibration, dieAt, acrossAt func(x, y float64) float64) ReaderOptions {
	return ReaderOptions{
		ExpectedEdgePx: dieAt,
		AcrossEdgePx:   acrossAt,
		ViewTiltDeg: func(x, y float64) float64 {
			return calNow().ViewTiltDeg(calibration.Point{X: x, Y: y})
		},
		ViewUp: func(x, y float64) [2]float64 {
			u := calNow().ViewUp(calibration.Point{X: x, Y: y})
			return [2]float64{u.X, u.Y}
		},
	}
}

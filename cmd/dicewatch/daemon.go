package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/dicewatch/dicewatch/calibration"
	"github.com/dicewatch/dicewatch/config"
	"github.com/dicewatch/dicewatch/evidence"
	"github.com/dicewatch/dicewatch/journal"
	"github.com/dicewatch/dicewatch/mqtt"
	"github.com/dicewatch/dicewatch/ops"
	"github.com/dicewatch/dicewatch/ops/sdnotify"
	"github.com/dicewatch/dicewatch/rules"
	"github.com/dicewatch/dicewatch/sensors"
	"github.com/dicewatch/dicewatch/tracker"
	"github.com/dicewatch/dicewatch/vision"
	"github.com/dicewatch/dicewatch/vision/source"
)

func loadCalibration(path string) (*calibration.Calibration, error) {
	return calibration.Load(path)
}

// staffRequest is an operator's no-roll call handed to the table loop.
type staffRequest struct {
	call  rules.StaffCallRecord
	reply chan error
}

// runDaemon wires camera, sensors, calibration, tracker, rules, journal and
// MQTT, each resource owned by one goroutine, and runs until SIGINT/SIGTERM
// (or, with --exit-at-eof, until a file source ends and every decision has
// reached the broker).
// exitJournalDamaged is the daemon's exit status when it stops on a
// journal record it cannot read (EX_DATAERR in sysexits.h). The systemd
// unit lists it in RestartPreventExitStatus.
const exitJournalDamaged = 65

func runDaemon(cfg *config.Config, f runFlags, log *slog.Logger) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := daemon(ctx, cfg, f, log); err != nil && !errors.Is(err, context.Canceled) {
		if errors.Is(err, journal.ErrCorrupt) {
			// Every start would meet the same record: a restart cannot
			// help, so the unit does not restart on this status
			// (RestartPreventExitStatus) and shows failed until a
			// person repairs the journal.
			log.Error("dicewatch stopped: a journal record cannot be read; stop restarting, check and repair the journal: dicewatch journal check, then dicewatch journal repair",
				"err", err, "journal", cfg.Journal.Dir, "exit_status", exitJournalDamaged)
			return exitJournalDamaged
		}
		log.Error("dicewatch stopped", "err", err)
		return 1
	}
	log.Info("dicewatch stopped cleanly")
	return 0
}

// damagedStatusWait bounds how long a start the journal refused spends
// telling the broker so before it exits.
var damagedStatusWait = 5 * time.Second

// publishJournalDamaged sets the retained status offline with reason
// journal_damaged when journal.Open refuses the journal at start (the
// exit status is 65 and systemd does not start the daemon again): until
// ops23 the status said whatever it said last, online if the last run was
// killed before its will went out. Best effort within damagedStatusWait;
// a failure is logged.
func publishJournalDamaged(ctx context.Context, cfg *config.Config, cal *calibration.Calibration, jerr error, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(ctx, damagedStatusWait)
	defer cancel()
	epoch, last := journal.Identify(cfg.Journal.Dir)
	detail := jerr.Error() + "; the daemon does not start until the journal is repaired (dicewatch journal check, then dicewatch journal repair)"
	err := mqtt.PublishOffline(ctx, cfg.MQTT, mqtt.Birth{Version: version, ConfigHash: cfg.Hash(), CalibrationHash: cal.Hash()},
		epoch, last, mqtt.ReasonJournalDamaged, detail)
	if err != nil {
		log.Error("the retained status could not be set offline (journal_damaged): the broker may still show the table online", "err", err)
		return
	}
	log.Info("retained status set offline, reason journal_damaged", "last_seq", last)
}

func daemon(ctx context.Context, cfg *config.Config, f runFlags, log *slog.Logger) error {
	cal, err := loadCalibration(cfg.Calibration)
	if err != nil {
		return err
	}
	// A SIGHUP reloads the calibration; a bad file is refused and the one
	// in force kept. The resolution cannot change without a restart.
	watcher, err := calibration.NewWatcher(cfg.Calibration, func(c *calibration.Calibration) error {
		return c.CheckResolution(cal.Camera.Width, cal.Camera.Height)
	})
	if err != nil {
		return err
	}
	if cfg.Camera.Width > 0 && (cfg.Camera.Width != cal.Camera.Width || cfg.Camera.Height != cal.Camera.Height) {
		return fmt.Errorf("calibration %s is for %dx%d but camera is configured %dx%d",
			cfg.Calibration, cal.Camera.Width, cal.Camera.Height, cfg.Camera.Width, cfg.Camera.Height)
	}
	j, err := journal.Open(cfg.Journal.Dir, journal.Options{
		Logger:   log.With("component", "journal"),
		MaxBytes: int64(cfg.Journal.MaxMB) << 20,
		MaxAge:   time.Duration(cfg.Journal.MaxAgeDays) * 24 * time.Hour,
	})
	if err != nil {
		if errors.Is(err, journal.ErrCorrupt) && !f.noBroker {
			publishJournalDamaged(ctx, cfg, cal, err, log)
		}
		return err
	}
	defer j.Close()
	var pub publisher
	if f.noBroker {
		pub = &journalOnly{j: j}
	} else {
		p, err := mqtt.NewPublisher(cfg.MQTT, j, mqtt.Birth{
			Version: version, ConfigHash: cfg.Hash(), CalibrationHash: cal.Hash(),
		}, log) // the publisher names its component itself
		if err != nil {
			return err
		}
		pub = p
	}

	// Sensors: a recorded trace replayed in step with the video, or live pins.
	var replay *sensors.Replay
	sensorEvents := make(chan sensors.Event, 256)
	var live *sensors.Sensors
	if f.sensorTrace != "" {
		fh, err := os.Open(f.sensorTrace)
		if err != nil {
			return fmt.Errorf("sensor trace: %w", err)
		}
		lines, err := sensors.ReadTrace(fh)
		fh.Close()
		if err != nil {
			return fmt.Errorf("sensor trace %s: %w", f.sensorTrace, err)
		}
		if replay, err = sensors.NewReplay(cfg.Sensors, lines); err != nil {
			return fmt.Errorf("sensor trace %s: %w", f.sensorTrace, err)
		}
	} else if len(cfg.Sensors.Inputs) > 0 {
		if live, err = openSensors(cfg.Sensors); err != nil {
			return err
		}
	}
	var lamps *sensors.Lamps
	if f.sensorTrace == "" && len(cfg.Sensors.Outputs) > 0 {
		if err := initHost(); err != nil {
			return err
		}
		if lamps, err = sensors.OpenLamps(cfg.Sensors, openPin); err != nil {
			return err
		}
		defer lamps.Off()
	}
	var rec *sensors.TraceWriter
	if f.recordTrace != "" {
		fh, err := os.OpenFile(f.recordTrace, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o640)
		if err != nil {
			return fmt.Errorf("record sensors: %w", err)
		}
		defer fh.Close()
		rec = sensors.NewTraceWriter(fh)
	}

	// Operations: metrics, health, the latest annotated frame, systemd.
	m := ops.NewMetrics(version)
	m.SetCalibrationHash(cal.Hash())
	health := ops.NewHealth(time.Now)
	health.Export(m.ComponentHealthy)
	health.OK(ops.ComponentCalibration)
	health.OK(ops.ComponentJournal)
	health.OK(ops.ComponentPublisher)
	health.Fault(ops.ComponentCamera, "no frame yet")
	snap := &ops.Snapshot{}
	notifier, err := sdnotify.FromEnv()
	if err != nil {
		log.Warn("systemd notify socket unusable", "err", err)
	}
	wdPeriod, _, err := sdnotify.WatchdogInterval(os.Getenv, os.Getpid())
	if err != nil {
		log.Warn("systemd watchdog settings unusable", "err", err)
	}
	wd := sdnotify.NewWatchdog(notifier, wdPeriod)

	profile := cfg.Profile.WithDefaults()
	tbl := &table{
		tr: tracker.New(tracker.Config{
			Game: profile.Game, DiceThrown: profile.Dice,
			MaxDurationMS: int64(cfg.Throw.MaxDurationMS), GraceMS: int64(cfg.Throw.StaffCallGraceMS),
			Sensors: cfg.Sensors,
		}),
		profile: profile, j: j, notify: pub.Notify, log: log.With("component", "table"),
		cfgHash: cfg.Hash(), now: func() time.Time { return time.Now().UTC() },
		craps: rules.NewCrapsState(),
		onDecide: func(_ rules.Throw, d rules.Decision) {
			reasons := make([]string, len(d.Reasons))
			for i, r := range d.Reasons {
				reasons[i] = string(r)
			}
			m.ObserveDecision(string(d.Verdict), reasons...)
		},
		metrics: m, health: health, snap: snap, lamps: lamps,
	}
	if f.onDecision != nil {
		inner := tbl.onDecide
		tbl.onDecide = func(th rules.Throw, d rules.Decision) {
			inner(th, d)
			f.onDecision(th, d)
		}
	}
	if p, ok := pub.(*mqtt.Publisher); ok {
		tbl.latency = newLatencyLog(m, f.onLatency)
		p.OnAcked(tbl.latency.acked)
		// Command results go through the table's queue too, so they keep
		// their place behind records held while the disk is full.
		p.JournalResultsWith(func(ts time.Time, body any) error {
			return tbl.journalAt(ts, body, "event command result")
		})
	}
	clips, clipTap, err := openEvidence(cfg, m, health, log, tbl.journalEvent)
	if err != nil {
		return err
	}
	if clips != nil {
		tbl.clips = clips
	}
	tbl.setCalibrationHash(cal.Hash())
	if cfg.Journal.HoldDir == "" {
		log.Warn("journal.hold_dir is not set: records the journal refuses while its disk is full are held in memory only, and a stop or restart before it takes them again loses them (they are then written to this log, never published); set journal.hold_dir to a folder on another disk")
	} else {
		// Records held while the journal's disk is full are kept in a
		// file there too; those a restart left held are held again now,
		// to be journalled first.
		q := tbl.queue()
		q.file = newHoldFile(cfg.Journal.HoldDir, func() (string, uint64) { return j.Epoch(), j.LastSeq() })
		q.fileFailed = holdFileFailed(log, health)
		n, err := q.restore(j)
		if err != nil {
			return fmt.Errorf("journal.hold_dir: %w", err)
		}
		if n > 0 {
			log.Warn("records held before the restart are held again, journalled once the journal takes records", "held", n)
		}
	}
	q := tbl.queue()
	m.Registry.GaugeFunc("dicewatch_journal_held_records",
		"Records held because the journal refuses them (a full disk), to be journalled in order once it takes them.", func() float64 {
			n, _ := q.heldCounts()
			return float64(n)
		})
	m.Registry.GaugeFunc("dicewatch_journal_held_memory_only_records",
		"Held records no hold file keeps (no journal.hold_dir, or its disk full too): a stop or restart loses them.", func() float64 {
			_, n := q.heldCounts()
			return float64(n)
		})
	if err := tbl.restoreState(j); err != nil {
		log.Warn("game state not restored from the journal; starting a new come-out", "err", err)
	}

	visionEvents := make(chan vision.Event, 64)
	staff := make(chan staffRequest)
	pub.OnCommand(func(cctx context.Context, c mqtt.Command) error {
		return handleCommand(cctx, c, staff)
	})

	pubCtx, stopPub := context.WithCancel(context.Background())
	defer stopPub()
	pubDone := make(chan error, 1)  // for the stop
	pubEnded := make(chan error, 1) // for the run: the publisher stopped by itself
	var pubRunning atomic.Bool
	pubRunning.Store(true)
	m.Registry.GaugeFunc("dicewatch_publisher_running",
		"1 while the MQTT publisher runs; 0 once it has stopped on a journal error (the daemon then stops, exit status 1).", func() float64 {
			if pubRunning.Load() {
				return 1
			}
			return 0
		})
	go func() {
		err := pub.Run(pubCtx)
		pubRunning.Store(false)
		pubEnded <- err
		pubDone <- err
	}()

	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		select {
		case <-gctx.Done():
			return nil
		case err := <-pubEnded:
			if pubCtx.Err() != nil {
				return nil
			}
			return publisherStopped(err, tbl, health, log)
		}
	})
	if cfg.HTTP.Listen != "off" {
		srv := ops.NewServer(ops.ServerConfig{Addr: cfg.HTTP.Listen, Registry: m.Registry, Health: health,
			Snapshot: snap, Logger: log}) // the server names its component (ops) itself
		hlog := log.With("component", "http")
		g.Go(func() error {
			// The endpoint is for technicians; the table keeps running
			// without it, the fault journalled and published.
			serveHTTP(gctx, srv, cfg.HTTP.Listen, 30*time.Second, hlog, func(body map[string]any) {
				if err := tbl.journalEvent(body, fmt.Sprintf("event fault http %v", body["state"])); err != nil {
					hlog.Error("journal http fault", "err", err)
				}
			})
			return nil
		})
	}
	if wd.Enabled() {
		wt := time.NewTicker(wd.Period())
		defer wt.Stop()
		g.Go(func() error {
			wd.Run(gctx, wt.C, func(err error) { log.Warn("watchdog ping", "err", err) })
			return nil
		})
	}
	g.Go(func() error {
		return readiness(gctx, cfg.Table, pub, j, m, health, notifier, tbl, log)
	})
	visionDone := make(chan struct{})
	var srcOpts source.Options
	if source.Live(cfg.Camera.Source) {
		// A live camera that gives no frame for stall_ms is lost; a
		// recording is read as fast as it decodes and never stalls.
		srcOpts.StallMS = int64(cfg.Camera.StallMS)
	}
	if err := faceNetError(); err != nil {
		log.Warn("the built-in face net did not load; frames read without an empty-table background are read without it", "err", err)
	}
	if err := cockNetError(); err != nil {
		log.Warn("the built-in cocked net did not load; frames read without an empty-table background take the footprint's flat call", "err", err)
	}
	g.Go(func() error {
		defer close(visionDone)
		return vision.RunPipeline(gctx, vision.PipelineConfig{
			Source: cfg.Camera.Source, SourceOptions: srcOpts, OpenSource: f.openSource,
			Calibration: cal, Current: watcher.Current,
			SettleMS: int64(cfg.Vision.SettleMS), DiePx: cfg.Vision.DiePx, PipSpread: cfg.Vision.PipSpread,
			ExitAtEOF: f.exitAtEOF, Log: log.With("component", "vision"),
			Snapshots: true, Heartbeat: wd.Pet, Loop: f.loop, Clip: clipTap,
		}, func(ev vision.Event) {
			if f.onFrame != nil {
				f.onFrame(ev)
			}
			select {
			case visionEvents <- ev:
			case <-gctx.Done():
			}
		})
	})
	if clips != nil {
		// Stops when the group's context ends: after the table loop at the
		// end of a recording, so the last clips get their frames.
		g.Go(func() error { return clips.Run(gctx) })
	}
	disk := &diskWatch{
		dirs: watchedDirs(cfg, clips != nil, !f.noBroker), minFree: uint64(cfg.Journal.MinFreeMB) << 20,
		space: ops.DiskSpace, fsID: ops.FileSystemID, metrics: m, health: health, log: log.With("component", "disk"),
		emit: func(body map[string]any) {
			// Held with the table's records while the journal refuses them.
			if err := tbl.journalEvent(body, fmt.Sprintf("event fault %v %v", body["what"], body["state"])); err != nil {
				log.Error("journal disk fault", "err", err)
			}
		},
	}
	for _, w := range disk.dirs[1:] {
		// The clip recorder and the hold file create their folders when
		// they first write (the publisher has made the state folder);
		// creating them here lets the first disk check measure them
		// instead of logging "disk space unknown".
		if err := os.MkdirAll(w.path, 0o750); err != nil {
			log.Warn("folder for the disk watch", "dir", w.role, "err", err)
		}
	}
	g.Go(func() error { return disk.run(gctx, 30*time.Second) })
	g.Go(func() error {
		return reloadOnHUP(gctx, watcher, tbl, log)
	})
	if live != nil {
		g.Go(func() error { return live.Run(gctx, sensorEvents, nil) }) // the table loop records
	}
	g.Go(func() error {
		return tableLoop(gctx, tbl, visionEvents, visionDone, sensorEvents, replay, rec, staff)
	})
	return stopRun(ctx, g.Wait(), tbl, pub, j.LastSeq, stopPub, pubDone, notifier, log)
}

// stopRun ends a run whose goroutines have returned err (errEOF: the
// recording ended): it gives the publisher time to deliver at the end of
// a recording, stops it, then settles the records still held, and returns
// the run's error (nil for errEOF), or the publisher's where it stopped on
// a journal error and the run's is nil or a cancel. The held records are settled after
// the publisher has stopped: a command handled as it stops (its nonce
// stored) has its result journalled, or held, by then.
func stopRun(ctx context.Context, err error, tbl *table, pub publisher, lastSeq func() uint64,
	stopPub func(), pubDone <-chan error, notifier *sdnotify.Notifier, log *slog.Logger) error {
	if errors.Is(err, errEOF) {
		err = nil
		// Every decision is journalled (or held: one more try first);
		// give the publisher time to deliver them before stopping it.
		if n, _ := tbl.queue().heldCounts(); n > 0 {
			if rerr := tbl.retryHeld(true); rerr != nil {
				log.Error("journalling the held records at the end of the recording", "err", rerr)
			}
		}
		// A publisher that has stopped (its result waiting in pubDone)
		// will acknowledge nothing more: no use waiting for it.
		waitDelivered(ctx, pub, lastSeq, func() bool { return len(pubDone) > 0 }, 30*time.Second, log)
	}
	if notifier != nil {
		_ = notifier.Stopping()
	}
	stopPub()
	if perr := <-pubDone; perr != nil && !errors.Is(perr, context.Canceled) {
		if err == nil || errors.Is(err, context.Canceled) {
			// The publisher stopped on a journal error as the run ended
			// for another reason (the recording's end, a signal), before
			// the watch on it saw it: not a clean stop either (exit
			// status 1), whatever ended the run.
			err = fmt.Errorf("publisher stopped: %w", perr)
		}
		log.Warn("publisher stopped", "err", perr)
	}
	stopHeld(tbl, log)
	return err
}

var errEOF = errors.New("end of recording")

// serveHTTP runs the operations endpoint until ctx ends. When it cannot
// listen (the port taken) or stops serving, it raises the "http" fault on
// emit and tries again, waiting 1 s, doubling to retryMax; it clears the
// fault once it listens again. Before, a failed endpoint was a line in
// the log: /healthz and /metrics gone, and nothing said so to
// surveillance.
func serveHTTP(ctx context.Context, srv *ops.Server, addr string, retryMax time.Duration, log *slog.Logger, emit func(body map[string]any)) {
	backoff := time.Second
	raised := false
	for {
		var lc net.ListenConfig
		ln, err := lc.Listen(ctx, "tcp", addr)
		if err != nil {
			err = fmt.Errorf("listen %s: %w", addr, err)
		} else {
			if raised {
				raised = false
				log.Info("fault cleared", "what", "http")
				emit(map[string]any{"event": "fault", "what": "http", "state": "cleared"})
			}
			backoff = time.Second
			err = srv.Serve(ctx, ln)
		}
		if ctx.Err() != nil {
			return
		}
		log.Error("http endpoint stopped; trying again", "err", err, "retry_in", backoff)
		if !raised {
			raised = true
			emit(map[string]any{"event": "fault", "what": "http", "state": "raised", "detail": clip400(err.Error())})
		}
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		backoff = min(2*backoff, retryMax)
	}
}

// publisherStopped is what the daemon does when the publisher stops while
// the table runs (a journal error it cannot read past: see
// mqtt.Publisher.Run, which has put the offline status on the broker):
// every throw decided from then on would be journalled and never
// published, so the daemon raises the publisher's fault (on /healthz and
// in the journal, to go out with the rest on the next start) and stops
// with the error it returns: exit status 1, for systemd to start it again
// after a passing read error, or exitJournalDamaged for a record damaged
// on disk (journal.ErrCorrupt), which the unit does not restart: every
// start would stop on it again, until `dicewatch journal repair`. A new
// start reads the journal afresh and publishes from the last acknowledged
// record; nothing decided is lost: the journal keeps it, or the hold
// file, or, at worst, the stop writes it to the log.
func publisherStopped(err error, tbl *table, health *ops.Health, log *slog.Logger) error {
	if err == nil {
		err = errors.New("the publisher stopped by itself")
	}
	detail := clip400(err.Error())
	log.Error("publisher stopped: no decision would reach surveillance; the daemon stops", "err", err)
	health.Fault(ops.ComponentPublisher, detail)
	body := map[string]any{"event": "fault", "what": "publisher", "state": "raised", "detail": detail}
	if jerr := tbl.journalEvent(body, "event fault publisher raised"); jerr != nil {
		log.Error("journal publisher fault", "err", jerr)
	}
	return fmt.Errorf("publisher stopped: %w", err)
}

// watchedDirs lists the folders the daemon writes, the journal first: the
// clips (with clips on), the hold file's folder (with journal.hold_dir)
// and the MQTT state (with a broker).
func watchedDirs(cfg *config.Config, clips, broker bool) []watchedDir {
	dirs := []watchedDir{{"journal", cfg.Journal.Dir}}
	if clips {
		dirs = append(dirs, watchedDir{"clips", cfg.Evidence.Dir})
	}
	if cfg.Journal.HoldDir != "" {
		dirs = append(dirs, watchedDir{"hold", cfg.Journal.HoldDir})
	}
	if broker {
		dirs = append(dirs, watchedDir{"state", cfg.MQTT.StateDir})
	}
	return dirs
}

// holdFileFailed is what the daemon does when the hold file cannot keep a
// held record: it logs the error and puts the journal's fault on /healthz
// as records in memory only.
func holdFileFailed(log *slog.Logger, health *ops.Health) func(error) {
	return func(err error) {
		log.Error("held records not kept in the hold file: a restart before the journal takes them loses them", "err", err)
		health.Fault(ops.ComponentJournal, clip400("records held in memory only (the hold file failed: "+err.Error()+"): a restart loses them"))
	}
}

// stopHeld, once the table loop has stopped, tries the journal once more
// for the records still held, and says what becomes of those it does not
// take: kept in the hold file for the next start, or lost. A lost record
// is written whole to the log (a snapshot without its JPEG), the only
// place left for it: it is never published.
func stopHeld(tbl *table, log *slog.Logger) {
	q := tbl.queue()
	if n, _ := q.heldCounts(); n == 0 {
		return
	}
	if err := tbl.retryHeld(true); err != nil {
		log.Error("journalling the held records at the stop", "err", err)
	}
	n, memOnly := q.heldCounts()
	switch {
	case n == 0:
		log.Info("the journal took the held records at the stop")
	case memOnly == 0:
		log.Warn("stopping with records held that the journal never took: kept in the hold file, journalled on the next start", "held", n)
	default:
		log.Error("stopping with records held that the journal never took and no hold file keeps: lost, never published; each follows in this log", "held", n, "memory_only", memOnly)
		for _, h := range q.memoryOnly() {
			log.Error("lost held record", "kind", h.Kind, "what", h.What, "ts", h.TS.UTC().Format(time.RFC3339Nano), "body", h.Body)
		}
	}
}

// faultRecorder is the fault (and /healthz component) of a clip recorder
// that has stopped taking frames.
const faultRecorder = "evidence:recorder"

// openEvidence sets up the clip ring (nil, nil with clips off): the
// recorder, and the tap that feeds it reduced, JPEG-encoded frames. Write
// failures become fault events; they never stop the table.
func openEvidence(cfg *config.Config, m *ops.Metrics, health *ops.Health,
	log *slog.Logger, journalEvent func(body map[string]any, what string) error) (*evidence.Recorder, *vision.ClipTap, error) {
	if !cfg.Evidence.On() {
		return nil, nil, nil
	}
	e := cfg.Evidence
	clog := log.With("component", "evidence")
	rec, err := evidence.New(evidence.Config{
		Dir: e.Dir, Table: cfg.Table,
		PreMS: int64(e.PreSeconds * 1000), PostMS: int64(e.PostSeconds * 1000),
		// A throw is decided at most max_duration + grace after it opens.
		MaxClipMS: int64(e.PreSeconds*1000+e.PostSeconds*1000) + int64(cfg.Throw.MaxDurationMS+cfg.Throw.StaffCallGraceMS) + 5000,
		MaxBytes:  int64(e.MaxMB) << 20, MaxClips: e.MaxClips, FPS: float64(cfg.Camera.FPS),
		Log:    clog,
		OnClip: func(evidence.Written) { m.ClipsWritten.Inc() },
		// A recorder that takes nothing for 10 s (a write that does not
		// return) is a fault of its own: the write faults above come
		// from its goroutine, which is then stuck.
		OnStall: func(serr error) {
			body := map[string]any{"event": "fault", "what": faultRecorder}
			if serr != nil {
				detail := clip400(serr.Error())
				body["state"], body["detail"] = "raised", detail
				health.Fault(faultRecorder, detail)
			} else {
				body["state"] = "cleared"
				health.OK(faultRecorder)
			}
			if err := journalEvent(body, fmt.Sprintf("event fault %s %v", faultRecorder, body["state"])); err != nil {
				clog.Error("journal evidence recorder fault", "err", err)
			}
		},
		OnFault: func(ferr error) {
			body := map[string]any{"event": "fault", "what": "evidence"}
			if ferr != nil {
				m.ClipFailures.Inc()
				detail := clip400(ferr.Error())
				body["state"], body["detail"] = "raised", detail
				health.Fault(ops.ComponentEvidence, detail)
			} else {
				body["state"] = "cleared"
				health.OK(ops.ComponentEvidence)
			}
			if err := journalEvent(body, fmt.Sprintf("event fault evidence %v", body["state"])); err != nil {
				clog.Error("journal evidence fault", "err", err)
			}
		},
	})
	if err != nil {
		return nil, nil, err
	}
	tap := &vision.ClipTap{
		Scale: e.Scale, Quality: e.Quality,
		Sink: func(jpeg []byte, w, h int, atMS int64) {
			if !rec.Frame(evidence.Frame{JPEG: jpeg, Width: w, Height: h, AtMS: atMS}) {
				m.ClipFramesDropped.With("record").Inc()
			}
		},
		OnDrop: func() { m.ClipFramesDropped.With("encode").Inc() },
	}
	return rec, tap, nil
}

// reloadOnHUP reloads the calibration on every SIGHUP, journalling the
// outcome either way so surveillance sees which calibration decides.
func reloadOnHUP(ctx context.Context, w *calibration.Watcher, tbl *table, log *slog.Logger) error {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-hup:
		}
		c, changed, err := w.Reload()
		body := map[string]any{"event": "calibration", "hash": c.Hash()}
		if err != nil {
			log.Error("calibration reload refused", "err", err, "kept", c.Hash())
			body["state"], body["detail"] = "refused", err.Error()
		} else {
			log.Info("calibration reloaded", "hash", c.Hash(), "changed", changed, "view", c.View().String())
			body["state"], body["changed"] = "reloaded", changed
			tbl.setCalibrationHash(c.Hash())
		}
		// A full disk: the reload stands, its record is held.
		if err := tbl.journalEvent(body, fmt.Sprintf("event calibration %v", body["state"])); err != nil {
			return fmt.Errorf("journal calibration event: %w", err)
		}
	}
}

// publisher is the MQTT publisher as the daemon uses it.
type publisher interface {
	Run(ctx context.Context) error
	Notify()
	OnCommand(mqtt.CommandHandler)
	Connected() bool
	Acked() uint64
}

var _ publisher = (*mqtt.Publisher)(nil)

// journalOnly stands in for the publisher in replays: decisions go to the
// journal and nowhere else.
type journalOnly struct{ j *journal.Journal }

func (p *journalOnly) Run(ctx context.Context) error { <-ctx.Done(); return nil }
func (p *journalOnly) Notify()                       {}
func (p *journalOnly) OnCommand(mqtt.CommandHandler) {}
func (p *journalOnly) Connected() bool               { return false }
func (p *journalOnly) Acked() uint64                 { return p.j.LastSeq() }

// readiness tells systemd the daemon is ready once the camera has given a
// frame and the broker is connected, and keeps the broker and backlog
// metrics current.
func readiness(ctx context.Context, tableID string, pub publisher, j *journal.Journal, m *ops.Metrics,
	health *ops.Health, n *sdnotify.Notifier, tbl *table, log *slog.Logger) error {
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	ready := false
	lastPrune := time.Now()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		connected := pub.Connected()
		if connected {
			m.BrokerConnected.Set(1)
			health.OK(ops.ComponentBroker)
		} else {
			m.BrokerConnected.Set(0)
			health.Fault(ops.ComponentBroker, "not connected")
		}
		if backlog := j.LastSeq() - pub.Acked(); pub.Acked() <= j.LastSeq() {
			m.JournalBacklog.Set(float64(backlog))
		}
		if time.Since(lastPrune) > time.Hour {
			lastPrune = time.Now()
			if err := j.Prune(); err != nil {
				log.Warn("journal retention", "err", err)
			}
		}
		if !ready && connected && tbl.cameraUp.Load() {
			ready = true
			log.Info("ready: camera, calibration and broker are up")
			if n != nil {
				if err := n.ReadyStatus("reading table " + tableID); err != nil {
					log.Warn("systemd ready", "err", err)
				}
			}
		}
	}
}

// waitDelivered waits, up to limit, until the publisher has had every
// journalled record acknowledged; it gives up at once when ctx ends or
// ended reports the publisher stopped.
func waitDelivered(ctx context.Context, pub publisher, lastSeq func() uint64, ended func() bool, limit time.Duration, log *slog.Logger) {
	deadline := time.Now().Add(limit)
	for pub.Acked() < lastSeq() && time.Now().Before(deadline) && ctx.Err() == nil && !ended() {
		time.Sleep(20 * time.Millisecond)
	}
	if pub.Acked() < lastSeq() {
		log.Warn("stopping with records not yet delivered; they stay in the journal and go out on the next start",
			"acked", pub.Acked(), "last", lastSeq())
	}
}

// tableLoop is the one goroutine that owns the tracker and game state.
func tableLoop(ctx context.Context, t *table, frames <-chan vision.Event, visionDone <-chan struct{},
	live <-chan sensors.Event, replay *sensors.Replay, rec *sensors.TraceWriter, staff <-chan staffRequest) error {
	var lastMS int64
	var lastWall time.Time
	streamNow := func() int64 {
		if lastWall.IsZero() {
			return lastMS
		}
		return lastMS + time.Since(lastWall).Milliseconds()
	}
	sensorEvent := func(e sensors.Event) error {
		if rec != nil {
			if err := rec.Write(e); err != nil {
				t.log.Warn("record sensors", "err", err)
			}
		}
		return t.sensor(e)
	}
	ticker := time.NewTicker(50 * time.Millisecond)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case ev := <-frames:
			if err := t.vision(ev, replay, sensorEvent); err != nil {
				return err
			}
			if ev.Obs != nil {
				lastMS, lastWall = ev.Obs.AtMS, time.Now()
			}
		case e := <-live:
			if err := sensorEvent(e); err != nil {
				return err
			}
		case r := <-staff:
			r.call.AtMS = streamNow()
			if t.tr.StaffCall(r.call) {
				r.reply <- nil
			} else {
				r.reply <- errors.New("no throw in progress or within the staff-call grace period")
			}
		case <-ticker.C:
			if err := t.tick(streamNow()); err != nil {
				return err
			}
		case <-visionDone:
			// The recording ended: drain what vision emitted, then let
			// time run past any open throw's grace period so it is decided.
			for {
				select {
				case ev := <-frames:
					if err := t.vision(ev, replay, sensorEvent); err != nil {
						return err
					}
					if ev.Obs != nil {
						lastMS = ev.Obs.AtMS
					}
					continue
				default:
				}
				break
			}
			if replay != nil {
				for _, e := range replay.Until(1 << 62) {
					if err := sensorEvent(e); err != nil {
						return err
					}
				}
			}
			if t.tr.Busy() {
				// A throw still open at the end of the recording never came to rest.
				if err := t.tick(lastMS + 1<<40); err != nil {
					return err
				}
			}
			if err := t.retryHeld(true); err != nil {
				return err
			}
			return errEOF
		}
	}
}

// handleCommand turns a verified operator command into work for the table
// loop and waits for its answer.
func handleCommand(ctx context.Context, c mqtt.Command, staff chan<- staffRequest) error {
	switch c.Name {
	case "noroll":
		var args struct {
			Cause string `json:"cause"`
		}
		if len(c.Args) > 0 {
			if err := json.Unmarshal(c.Args, &args); err != nil {
				return fmt.Errorf("noroll args: %w", err)
			}
		}
		req := staffRequest{
			call:  rules.StaffCallRecord{Operator: c.Operator, Role: c.Role, Cause: args.Cause, Source: "command"},
			reply: make(chan error, 1),
		}
		select {
		case staff <- req:
		case <-ctx.Done():
			return ctx.Err()
		}
		select {
		case err := <-req.reply:
			return err
		case <-ctx.Done():
			// The table loop answers before it returns, and the context
			// is cancelled only after: an answer there is the call's.
			select {
			case err := <-req.reply:
				return err
			default:
				return ctx.Err()
			}
		}
	default:
		return fmt.Errorf("command %q is not supported by this daemon yet", c.Name)
	}
}

// streamOrigin is time zero of the live stream clock shared by sensor
// events and staff calls.
var streamOrigin = time.Now()

// openSensors opens the configured GPIO inputs on this board.
func openSensors(c sensors.Config) (*sensors.Sensors, error) {
	if err := initHost(); err != nil {
		return nil, err
	}
	return sensors.Open(c, openPin, sensors.MonotonicClock{Origin: streamOrigin})
}

package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"

	"github.com/dicewatch/dicewatch/config"
	"github.com/dicewatch/dicewatch/rules"
	"github.com/dicewatch/dicewatch/vision"
	"github.com/dicewatch/dicewatch/vision/source"
)

// runFlags are the flags of `dicewatch run`. The path and source flags
// override the config so the whole binary runs against fixtures.
type runFlags struct {
	config      string
	check       bool
	camera      string
	calibration string
	broker      string
	sensorTrace string
	recordTrace string
	exitAtEOF   bool
	loop        bool
	// set by replay, not flags
	noBroker   bool
	onDecision func(rules.Throw, rules.Decision)
	onFrame    func(vision.Event)
	// openSource (tests) stands in for the camera: see
	// vision.PipelineConfig.OpenSource.
	openSource func(string, source.Options) (source.Source, error)
	// onLatency (benchmarks) gets each decision's timing once the broker
	// has acknowledged it.
	onLatency func(throwLatency)
}

func parseRunFlags(args []string, stderr io.Writer) (runFlags, error) {
	var f runFlags
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.config, "config", "/etc/dicewatch/dicewatch.yaml", "config file")
	fs.BoolVar(&f.check, "config.check", false, "check the config file, print every problem, and exit")
	fs.StringVar(&f.camera, "camera", "", "frame source URL, overriding camera.source")
	fs.StringVar(&f.calibration, "calibration", "", "calibration file, overriding calibration")
	fs.StringVar(&f.broker, "broker", "", "MQTT broker URL, overriding mqtt.broker")
	fs.StringVar(&f.sensorTrace, "sensor-trace", "", "replay this sensor trace (JSON lines) in step with the video instead of live pins")
	fs.StringVar(&f.recordTrace, "record-sensors", "", "write every sensor event to this JSON-lines file")
	fs.BoolVar(&f.exitAtEOF, "exit-at-eof", false, "exit cleanly when a file source ends (replays and the demo)")
	fs.BoolVar(&f.loop, "loop", false, "play a file source again and again, the stream clock carrying on (soak tests, showroom demos)")
	err := fs.Parse(args)
	if err == nil && fs.NArg() > 0 {
		err = fmt.Errorf("unexpected arguments: %v", fs.Args())
		fmt.Fprintln(stderr, "run:", err)
	}
	return f, err
}

func cmdRun(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	f, err := parseRunFlags(args, stderr)
	if err != nil {
		return 2
	}
	cfg, err := config.Load(f.config)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	if f.camera != "" {
		cfg.Camera.Source = f.camera
	}
	if f.calibration != "" {
		cfg.Calibration = f.calibration
	}
	if f.broker != "" {
		cfg.MQTT.Broker = f.broker
	}
	if f.check {
		if err := checkDeep(cfg); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		fmt.Fprintln(stdout, "config OK")
		if cfg.Journal.HoldDir == "" {
			// Not an error (tables run without it), but the technician
			// checking the file should know what it means.
			fmt.Fprintln(stderr, "note: journal.hold_dir is not set: records the journal refuses while its disk is full are held in memory only, and a restart before it takes them again loses them")
		}
		return 0
	}
	logger, err := newLogger(cfg.Log, stderr)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return runDaemon(cfg, f, logger)
}

// checkDeep checks what the config points at, beyond the file itself.
func checkDeep(cfg *config.Config) error {
	var errs []error
	if _, err := loadCalibration(cfg.Calibration); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func newLogger(c config.Log, w io.Writer) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(c.Level)); err != nil {
		return nil, fmt.Errorf("log.level: %w", err)
	}
	o := &slog.HandlerOptions{Level: level}
	if c.Format == "json" {
		return slog.New(slog.NewJSONHandler(w, o)), nil
	}
	return slog.New(slog.NewTextHandler(w, o)), nil
}

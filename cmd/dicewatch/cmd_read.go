package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/dicewatch/dicewatch/calibration"
	"github.com/dicewatch/dicewatch/vision"
)

// readDie is one die in `dicewatch read --json` output.
type readDie struct {
	Value      *int    `json:"value"`
	Box        [4]int  `json:"box"`
	Confidence float64 `json:"confidence"`
	Flat       bool    `json:"flat"`
	// Flatness is the footprint's flatness score (vision.Detection's
	// Flatness) and SizeRatio the measured top face over the expected
	// die (vision.Detection's SizeRatio; rules' stacked cut is 1.12):
	// the evidence behind the flat call and the stacked reason, rounded
	// to 3 places as the confidence is.
	Flatness  float64 `json:"flatness"`
	SizeRatio float64 `json:"size_ratio"`
}

// round3 rounds a non-negative score to 3 decimal places for the JSON
// output.
func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

// readLine is one image in `dicewatch read --json` output.
type readLine struct {
	Image string    `json:"image"`
	Dice  []readDie `json:"dice"`
	MS    float64   `json:"ms"`
}

// readError is the line for an image that could not be read.
type readError struct {
	Image string `json:"image"`
	Error string `json:"error"`
}

// faceNetError is vision.FaceNetError, a variable so tests can stand in
// a failed load.
var faceNetError = vision.FaceNetError

// cockNetError is vision.CockNetError, likewise.
var cockNetError = vision.CockNetError

// cmdRead prints the dice found in still photos:
// dicewatch read [--json] [--die-px N [--pip-spread F]] [--view-tilt DEG] IMAGE...
func cmdRead(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("read", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print one JSON line per image")
	diePx := fs.Float64("die-px", 0, "expected die edge in pixels (0: estimate from each image)")
	pipSpread := fs.Float64("pip-spread", 0, fmt.Sprintf("the dice's pip offset from a face's centre over the edge, %g..%g (0: not given; needs --die-px)", vision.MinPipSpread, vision.MaxPipSpread))
	var viewTilt *float64
	fs.Func("view-tilt", fmt.Sprintf("the camera's line of sight off vertical, in degrees, 0..%d, for every position (not given: not known)", calibration.MaxViewTiltDeg), func(v string) error {
		t, err := strconv.ParseFloat(v, 64)
		if err != nil || !(t >= 0 && t <= calibration.MaxViewTiltDeg) {
			return fmt.Errorf("%q is not a view off vertical of 0..%d degrees", v, calibration.MaxViewTiltDeg)
		}
		viewTilt = &t
		return nil
	})
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: dicewatch read [--json] [--die-px N [--pip-spread F]] [--view-tilt DEG] IMAGE...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 || !(*diePx >= 0) {
		fs.Usage()
		return 2
	}
	if err := vision.CheckPipSpread(*pipSpread); err != nil {
		fmt.Fprintf(stderr, "dicewatch read: --pip-spread: %v\n", err)
		return 2
	}
	if *pipSpread > 0 && *diePx == 0 {
		// The pips measure a face against the expected edge: without one
		// the spread changes nothing, and silently ignoring it would
		// mislead.
		fmt.Fprintln(stderr, "dicewatch read: --pip-spread needs --die-px (the pips measure a face against the expected edge)")
		return 2
	}
	oneShotMalloc()
	if err := faceNetError(); err != nil {
		// The reader still reads, with its pip cues alone; say so, as its
		// figures are not the README's without the net.
		fmt.Fprintf(stderr, "dicewatch read: warning: the built-in face net did not load, reading without it: %v\n", err)
	}
	if err := cockNetError(); err != nil {
		fmt.Fprintf(stderr, "dicewatch read: warning: the built-in cocked net did not load, flat is the footprint's call: %v\n", err)
	}
	opts := vision.ReaderOptions{DiePx: *diePx, PipSpread: *pipSpread}
	if viewTilt != nil {
		t := *viewTilt
		opts.ViewTiltDeg = func(x, y float64) float64 { return t }
	}
	rd := vision.NewReader(opts)
	defer rd.Close()
	enc := json.NewEncoder(stdout)
	code := 0
	for _, path := range fs.Args() {
		start := time.Now()
		dets, err := rd.ReadFile(path)
		ms := float64(time.Since(start).Microseconds()) / 1000
		if err != nil {
			code = 1
			if *asJSON {
				_ = enc.Encode(readError{Image: path, Error: err.Error()})
			} else {
				fmt.Fprintf(stdout, "%s: error: %v\n", path, err)
			}
			continue
		}
		if *asJSON {
			line := readLine{Image: path, Dice: make([]readDie, 0, len(dets)), MS: ms}
			for _, d := range dets {
				rdie := readDie{
					Box:        [4]int{d.Box.Min.X, d.Box.Min.Y, d.Box.Max.X, d.Box.Max.Y},
					Confidence: float64(int(d.Confidence*1000+0.5)) / 1000,
					Flat:       d.Flat,
					Flatness:   round3(d.Flatness),
					SizeRatio:  round3(d.SizeRatio),
				}
				if d.Value > 0 {
					v := d.Value
					rdie.Value = &v
				}
				line.Dice = append(line.Dice, rdie)
			}
			if err := enc.Encode(line); err != nil {
				fmt.Fprintf(stderr, "dicewatch: read: %v\n", err)
				return 1
			}
			continue
		}
		fmt.Fprintf(stdout, "%s: %d dice (%.1f ms)\n", path, len(dets), ms)
		for _, d := range dets {
			v := "unreadable"
			if d.Value > 0 {
				v = fmt.Sprint(d.Value)
			}
			flat := "flat"
			if !d.Flat {
				flat = "not flat"
			}
			fmt.Fprintf(stdout, "  %-10s box %v conf %.2f %s (flatness %.2f, size ratio %.2f)\n",
				v, d.Box, d.Confidence, flat, d.Flatness, d.SizeRatio)
		}
	}
	return code
}

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/dicewatch/dicewatch/config"
	"github.com/dicewatch/dicewatch/rules"
	"github.com/dicewatch/dicewatch/vision"
)

// cmdReplay runs a recording (video plus sensor trace) through exactly the
// live code path, or a file of throw records through the rules, and prints
// each decision and a summary. It is the technicians' tuning tool.
func cmdReplay(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfgPath := fs.String("config", "", "daemon config (camera source, journal and broker are replaced)")
	video := fs.String("video", "", "recorded video to replay (MJPG .avi or any file OpenCV reads)")
	trace := fs.String("sensors", "", "sensor trace recorded with the video (JSON lines)")
	calib := fs.String("calibration", "", "calibration file, overriding the config's")
	throws := fs.String("throws", "", "a file of throw records (JSON lines) to decide instead of a video")
	game := fs.String("game", "craps", "game profile for --throws without --config")
	truth := fs.String("truth", "", "generator ground truth to score the decisions against")
	jdir := fs.String("journal", "", "journal directory to write (default: a temporary one, removed after)")
	progress := fs.Bool("progress", true, "show a progress line on stderr")
	level := fs.String("log-level", "warn", "daemon log level on stderr (debug shows every tracked event)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *throws != "" {
		return replayThrows(*throws, *cfgPath, rules.Game(*game), stdout, stderr)
	}
	if *cfgPath == "" || *video == "" {
		fmt.Fprintln(stderr, "replay: --config and --video are required (or --throws FILE)")
		return 2
	}
	cfg, err := config.Load(*cfgPath)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	if _, err := os.Stat(*video); err != nil {
		fmt.Fprintln(stderr, "replay:", err)
		return 1
	}
	cfg.Camera.Source = "file:" + *video + "?pace=fast"
	if *calib != "" {
		cfg.Calibration = *calib
	}
	cfg.HTTP.Listen = "off"
	if *jdir == "" {
		tmp, err := os.MkdirTemp("", "dicewatch-replay-")
		if err != nil {
			fmt.Fprintln(stderr, "replay:", err)
			return 1
		}
		defer os.RemoveAll(tmp)
		*jdir = tmp
	}
	cfg.Journal.Dir = *jdir
	// A replay must never write into (or prune) the table's evidence ring.
	noClips := false
	cfg.Evidence.Enabled = &noClips
	logger, err := newLogger(config.Log{Level: *level, Format: "text"}, stderr)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}

	var mu sync.Mutex
	frames, n := 0, 0
	summary := map[string]int{}
	start := time.Now()
	lastDraw := time.Time{}
	f := runFlags{
		sensorTrace: *trace, exitAtEOF: true, noBroker: true,
		onDecision: func(th rules.Throw, d rules.Decision) {
			mu.Lock()
			defer mu.Unlock()
			n++
			if *progress {
				fmt.Fprint(stderr, "\r\033[K")
			}
			fmt.Fprintf(stdout, "throw %-4d rest %8.2fs  %s\n", n, float64(th.AtRestMS)/1000, describeDecision(d))
			summary[string(d.Verdict)]++
			for _, r := range d.Reasons {
				summary["  "+string(r)]++
			}
		},
		onFrame: func(ev vision.Event) {
			if !*progress || ev.Obs == nil {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			frames++
			if time.Since(lastDraw) > 200*time.Millisecond {
				lastDraw = time.Now()
				fps := float64(frames) / time.Since(start).Seconds()
				fmt.Fprintf(stderr, "\r\033[K  %6d frames  %6.1f s of video  %5.0f fps  %d throws", frames,
					float64(ev.Obs.AtMS)/1000, fps, n)
			}
		},
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err = daemon(ctx, cfg, f, logger)
	if *progress {
		fmt.Fprint(stderr, "\r\033[K")
	}
	if err != nil {
		fmt.Fprintln(stderr, "replay:", err)
		return 1
	}
	fmt.Fprintf(stdout, "\n%d throws decided from %d frames in %.1f s\n", n, frames, time.Since(start).Seconds())
	printSummary(stdout, summary)
	if *truth != "" {
		return cmdScore([]string{"--truth", *truth, "--journal", *jdir}, stdin, stdout, stderr)
	}
	return 0
}

func printSummary(w io.Writer, summary map[string]int) {
	var verdicts, reasons []string
	for k := range summary {
		if r, ok := strings.CutPrefix(k, "  "); ok {
			reasons = append(reasons, r)
		} else {
			verdicts = append(verdicts, k)
		}
	}
	sort.Strings(verdicts)
	sort.Strings(reasons)
	fmt.Fprintln(w, "verdict              count")
	for _, k := range verdicts {
		fmt.Fprintf(w, "  %-18s %5d\n", k, summary[k])
	}
	if len(reasons) > 0 {
		fmt.Fprintln(w, "no-roll reason       count")
		for _, r := range reasons {
			fmt.Fprintf(w, "  %-18s %5d\n", r, summary["  "+r])
		}
	}
}

// replayThrows decides each throw record in a JSON-lines file: a bare
// rules.Throw, a generator truth line (its "record"), or a journalled
// decision body (its "evidence").
func replayThrows(path, cfgPath string, game rules.Game, stdout, stderr io.Writer) int {
	profile := rules.DefaultProfile(game)
	if cfgPath != "" {
		cfg, err := config.Load(cfgPath)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		profile = cfg.Profile.WithDefaults()
	}
	fh, err := os.Open(path)
	if err != nil {
		fmt.Fprintln(stderr, "replay:", err)
		return 1
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	summary := map[string]int{}
	n := 0
	for line := 1; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var wrap struct {
			Record   *rules.Throw `json:"record"`
			Evidence *rules.Throw `json:"evidence"`
		}
		if err := json.Unmarshal(sc.Bytes(), &wrap); err != nil {
			fmt.Fprintf(stderr, "replay: %s line %d: %v\n", path, line, err)
			return 1
		}
		th := wrap.Record
		if th == nil {
			th = wrap.Evidence
		}
		if th == nil {
			var bare rules.Throw
			if err := json.Unmarshal(sc.Bytes(), &bare); err != nil {
				fmt.Fprintf(stderr, "replay: %s line %d: %v\n", path, line, err)
				return 1
			}
			th = &bare
		}
		d := rules.Decide(*th, profile)
		n++
		fmt.Fprintf(stdout, "throw %-4d %s\n", n, describeDecision(d))
		summary[string(d.Verdict)]++
		for _, r := range d.Reasons {
			summary["  "+string(r)]++
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(stderr, "replay:", err)
		return 1
	}
	fmt.Fprintf(stdout, "\n%d throws decided\n", n)
	printSummary(stdout, summary)
	return 0
}

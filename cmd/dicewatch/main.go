// Command dicewatch is the table-side dice reader daemon and its tools.
//
// It is the only place that wires concrete hardware (camera, GPIO pins) and
// brokers together; everything it wires lives in the packages beside it.
package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// command is one subcommand: it takes its arguments (without its own name)
// and returns the process exit code.
type command struct {
	run  func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
	help string
}

var commands = map[string]command{
	"run":       {cmdRun, "run the daemon: dicewatch run --config FILE [--config.check]"},
	"version":   {cmdVersion, "print the version"},
	"watch":     {cmdWatch, "subscribe to a table's MQTT topics and print decoded events as they arrive"},
	"calibrate": {cmdCalibrate, "compute a calibration from a still of the empty table and write an overlay to check"},
	"read":      {cmdRead, "read the dice in still photos: dicewatch read [--json] [--die-px N [--pip-spread F]] [--view-tilt DEG] IMAGE..."},
	"history":   {cmdHistory, "recall the last N games from the journal: dicewatch history --journal DIR --last N"},
	"journal":   {cmdJournal, "check a journal for damaged records, or repair it (the daemon stopped): dicewatch journal check|repair --journal DIR"},
	"cmd":       {cmdCmd, "sign and send an operator command"},
	"keygen":    {cmdKeygen, "make an Ed25519 operator key pair"},
	"replay":    {cmdReplay, "run a recording (video + sensor trace) or throw records through the live code path"},
	"score":     {cmdScore, "compare journalled decisions with a generated recording's ground truth"},
	"generate":  {cmdGenerate, "render a table session (video, ground truth, sensor trace, calibration)"},
	"rules":     {cmdRules, "apply craps game rules to decided throws (JSON lines on stdin)"},
	"paigow":    {cmdPaigow, "pai gow deal order and settlement"},
}

func main() { os.Exit(dispatch(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }

func dispatch(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	name := args[0]
	if name == "--version" {
		name = "version"
	}
	// `dicewatch --config FILE --config.check` is the same as `dicewatch run ...`.
	if strings.HasPrefix(name, "-") {
		return cmdRun(args, stdin, stdout, stderr)
	}
	c, ok := commands[name]
	if !ok {
		fmt.Fprintf(stderr, "dicewatch: unknown command %q\n\n", name)
		usage(stderr)
		return 2
	}
	return c.run(args[1:], stdin, stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: dicewatch COMMAND [flags]")
	fmt.Fprintln(w, "\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].help)
	}
	fmt.Fprintln(w, "\nRun 'dicewatch COMMAND -h' for a command's flags.")
}

func cmdVersion(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintf(stdout, "dicewatch %s\n", version)
	return 0
}

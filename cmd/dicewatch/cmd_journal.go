package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os/signal"
	"syscall"
	"time"

	"github.com/dicewatch/dicewatch/config"
	"github.com/dicewatch/dicewatch/journal"
)

const journalUsage = `usage: dicewatch journal check  (--journal DIR | --config FILE) [--json]
       dicewatch journal repair (--journal DIR | --config FILE) [--json]

check   reads every record of the journal and reports each run of damaged
        bytes and the records lost in it, a segment that ends short of the
        next one's first seq, and a damaged journal.id, or one missing
        while the journal holds records; it changes nothing and may run
        while the daemon runs. Exit status 0: no damage a reader would meet
        (a torn tail of the newest segment, which the daemon cuts itself,
        is reported but is not damage); 1: damage; 2: usage; 74: the
        report could not be written (a closed pipe, a full disk).
repair  (the daemon stopped) moves each damaged segment whole into
        DIR/damaged/<UTC time>/ and writes it again with every record that
        reads back whole and, for each record lost, an event
        journal_damaged with the lost record's seq and id (a damaged
        journal.id is kept there too and written again from the records'
        ids; a missing one is written again from them). Run again after
        a crash, it finishes what the first run began. The daemon then
        starts and publishes on from where the broker last acknowledged.
        Exit status 0: repaired, or nothing to repair; 1: an error; 74:
        the report could not be written (run check to see the journal).`

// cmdJournal is `dicewatch journal check|repair`: what a technician runs
// when the daemon stops on a damaged journal record (the publisher's
// fault, status offline with reason journal_damaged).
func cmdJournal(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || (args[0] != "check" && args[0] != "repair") {
		fmt.Fprintln(stderr, journalUsage)
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
			return 0
		}
		return 2
	}
	// A closed pipe on stdout (`| head` done, a pager quit) must fail the
	// write, which out below turns into status 74 and a line on stderr:
	// by default Go's runtime ends the process by SIGPIPE at that write,
	// and neither came (review23o). The commands are short and write
	// nowhere else that a closed pipe should end.
	signal.Ignore(syscall.SIGPIPE)
	op := args[0]
	fs := flag.NewFlagSet("journal "+op, flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("journal", "", "journal directory (journal.dir in the config)")
	cfgPath := fs.String("config", "", "take the journal directory from this daemon config")
	asJSON := fs.Bool("json", false, "print the report as one JSON object")
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	if fs.NArg() > 0 || (*dir == "") == (*cfgPath == "") {
		fmt.Fprintln(stderr, journalUsage)
		return 2
	}
	if *cfgPath != "" {
		cfg, err := config.Load(*cfgPath)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		*dir = cfg.Journal.Dir
	}
	// Every write to stdout goes through out, which keeps the first
	// error (a closed pipe, a full disk): a report cut short must not
	// pass for one printed whole (until ops23 the errors were dropped
	// and the status was the report's).
	out := &errWriter{w: stdout}
	if op == "check" {
		rep, err := journal.Check(*dir)
		if err != nil {
			fmt.Fprintf(stderr, "dicewatch journal check: %v\n", err)
			return 1
		}
		if *asJSON {
			writeJSON(out, rep)
		} else {
			writeCheck(out, rep)
		}
		if out.err != nil {
			fmt.Fprintf(stderr, "dicewatch journal check: the report could not be written: %v\n", out.err)
			return exitOutput
		}
		if rep.Damaged() {
			return 1
		}
		return 0
	}
	rep, err := journal.Repair(*dir, time.Now())
	if *asJSON {
		writeJSON(out, rep)
	} else {
		writeCheck(out, rep.CheckReport)
		if rep.Aside != "" {
			fmt.Fprintf(out, "repaired: %d lost record(s) written again as %s events; the damaged segment(s) kept whole in %s\n",
				rep.Replaced, journal.DamagedEvent, rep.Aside)
		}
		switch {
		case rep.IDWritten && rep.BadID != "":
			fmt.Fprintf(out, "journal.id written again from the records' ids; the damaged one kept in %s\n", rep.Aside)
		case rep.IDWritten:
			fmt.Fprintln(out, "journal.id written again from the records' ids")
		case rep.Aside == "" && err == nil:
			fmt.Fprintln(out, "nothing to repair")
		}
	}
	if out.err != nil {
		// The repair's own result still decides what is said first.
		if err != nil {
			fmt.Fprintf(stderr, "dicewatch journal repair: %v\n", err)
		}
		fmt.Fprintf(stderr, "dicewatch journal repair: the report could not be written: %v; run dicewatch journal check to see the journal as the repair left it\n", out.err)
		return exitOutput
	}
	if err != nil {
		fmt.Fprintf(stderr, "dicewatch journal repair: %v\n", err)
		if errors.Is(err, journal.ErrLocked) {
			fmt.Fprintln(stderr, "the daemon holds the journal: sudo systemctl stop dicewatch, then repair")
		}
		return 1
	}
	return 0
}

// exitOutput is the status of a journal command whose report could not
// be written to stdout (EX_IOERR in sysexits.h): a closed pipe, a full
// disk. What the command did is not known from its status then.
const exitOutput = 74

// errWriter passes writes to w until one fails, then keeps that error and
// writes nothing more.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	if err != nil {
		e.err = err
	}
	return n, err
}

// writeJSON writes v as one indented JSON object; a failed write is in
// w's error.
func writeJSON(w *errWriter, v any) {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil && w.err == nil {
		w.err = err
	}
}

// writeCheck prints a check's findings for a person.
func writeCheck(w io.Writer, rep journal.CheckReport) {
	fmt.Fprintf(w, "journal %s: %d segment(s), %d record(s) read back whole", rep.Dir, rep.Segments, rep.Readable)
	if rep.Readable > 0 {
		fmt.Fprintf(w, " (seq %d..%d)", rep.FirstSeq, rep.LastSeq)
	}
	fmt.Fprintln(w)
	if rep.BadID != "" {
		fmt.Fprintf(w, "  journal.id damaged (repair writes it again from the records' ids): %s\n", rep.BadID)
	}
	if rep.MissingID != "" {
		fmt.Fprintf(w, "  %s (the daemon does not start without it; repair writes it again from the records' ids)\n", rep.MissingID)
	}
	for _, d := range rep.Damage {
		switch {
		case d.Tail:
			fmt.Fprintf(w, "  %s at offset %d: %d byte(s) torn off the end from seq %d (a write cut by a crash; the daemon cuts it at start)\n",
				d.Segment, d.Offset, d.Bytes, d.FirstSeq)
		case d.Bytes == 0:
			fmt.Fprintf(w, "  %s ends at offset %d before seq %d..%d, which are missing (%d record(s))\n",
				d.Segment, d.Offset, d.FirstSeq, d.LastSeq, d.Records())
		case d.Records() == 0:
			fmt.Fprintf(w, "  %s at offset %d: %d damaged byte(s) between records, no record lost\n", d.Segment, d.Offset, d.Bytes)
		default:
			fmt.Fprintf(w, "  %s at offset %d: %d damaged byte(s), seq %d..%d lost (%d record(s))\n",
				d.Segment, d.Offset, d.Bytes, d.FirstSeq, d.LastSeq, d.Records())
		}
	}
	if rep.Damaged() {
		fmt.Fprintln(w, "DAMAGED: the publisher stops at the first lost record; stop the daemon and run dicewatch journal repair")
	} else {
		fmt.Fprintln(w, "OK")
	}
}

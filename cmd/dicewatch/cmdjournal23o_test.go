package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestJournalReportToClosedPipeProcess: `dicewatch journal check` as a
// process whose stdout is a pipe nobody reads any more (`| head` that
// has ended, a pager quit early). Go's runtime ends a process that
// writes to a closed pipe on its stdout by SIGPIPE, before the report's
// writer sees the error, so the documented status 74 and the stderr line
// never came (ops23's test wrote to a pipe that was not the process's
// stdout); the status was a kill by SIGPIPE (review23o).
func TestJournalReportToClosedPipeProcess(t *testing.T) {
	dir := t.TempDir()
	smallSegmentsJournal(t, dir)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	defer w.Close()
	for _, args := range [][]string{{"journal", "check", "--journal", dir}, {"journal", "repair", "--journal", dir}} {
		cmd := dicewatchProcess(t, args...)
		var errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = w, &errb
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != exitOutput || !strings.Contains(errb.String(), "could not be written") {
			t.Errorf("%v to a closed pipe: %v, stderr %q; want exit status %d and the write's error", args, err, errb.String(), exitOutput)
		}
	}
}

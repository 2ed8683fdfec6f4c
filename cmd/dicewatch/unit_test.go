package main

import (
	"os"
	"regexp"
	"strconv"
	"testing"
)

// TestUnitStopsRestartingOnDamagedJournal: the shipped unit does not
// restart the daemon on the status it exits with for a journal record it
// cannot read (every start would meet it again), and has a start limit
// that Restart=on-failure with RestartSec=2s can reach, so a fault that
// comes back at every start leaves the unit failed for a person to see
// rather than restarting for ever. Before, the unit had neither.
func TestUnitStopsRestartingOnDamagedJournal(t *testing.T) {
	b, err := os.ReadFile("../../systemd/dicewatch.service")
	if err != nil {
		t.Fatal(err)
	}
	unit := string(b)
	m := regexp.MustCompile(`(?m)^RestartPreventExitStatus=(.*)$`).FindStringSubmatch(unit)
	if m == nil || !regexp.MustCompile(`(^|\s)`+strconv.Itoa(exitJournalDamaged)+`(\s|$)`).MatchString(m[1]) {
		t.Errorf("the unit's RestartPreventExitStatus (%v) does not list %d, the damaged journal's exit status", m, exitJournalDamaged)
	}
	interval := regexp.MustCompile(`(?m)^StartLimitIntervalSec=(\d+)min$`).FindStringSubmatch(unit)
	burst := regexp.MustCompile(`(?m)^StartLimitBurst=(\d+)$`).FindStringSubmatch(unit)
	restart := regexp.MustCompile(`(?m)^RestartSec=(\d+)s$`).FindStringSubmatch(unit)
	if interval == nil || burst == nil || restart == nil {
		t.Fatalf("the unit lacks StartLimitIntervalSec=Nmin, StartLimitBurst=N or RestartSec=Ns")
	}
	min, _ := strconv.Atoi(interval[1])
	n, _ := strconv.Atoi(burst[1])
	sec, _ := strconv.Atoi(restart[1])
	// A start that fails at once comes back every RestartSec: the burst
	// must be reached within the interval.
	if n*sec >= min*60 {
		t.Errorf("StartLimitBurst=%d starts %ds apart take longer than StartLimitIntervalSec=%dmin: the limit is never reached", n, sec, min)
	}
}

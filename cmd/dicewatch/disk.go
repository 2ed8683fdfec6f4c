package main

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dicewatch/dicewatch/ops"
)

// watchedDir is a folder the daemon writes, named by what it keeps:
// "journal", "clips", "hold" (journal.hold_dir) or "state" (mqtt.state_dir).
type watchedDir struct{ role, path string }

// diskFault is the fault, the /healthz component and the event's "what"
// of the file system that holds the dir of this role: "disk" for the
// journal's, "disk:clips", "disk:hold", "disk:state" for the others.
func diskFault(role string) string {
	if role == "journal" {
		return ops.ComponentDisk
	}
	return ops.ComponentDisk + ":" + role
}

// diskWatch is the "disk nearly full" fault: it checks the free space of
// every file system the daemon writes to (the journal's, the clips',
// the hold file's and the MQTT state's), exports it per folder as
// dicewatch_disk_free_bytes, and raises a fault of each file system's own
// when it has less than its limit, clearing it only once it has a tenth
// more than that again (so a disk hovering at the limit does not flap).
// Folders on one file system share one fault, named for the first of them
// in dirs (list the journal first). The limit is minFree, or a quarter of
// the file system where that is less (a small tmpfs for the hold file
// would otherwise be "nearly full" for ever).
type diskWatch struct {
	dirs    []watchedDir
	minFree uint64
	space   func(path string) (free, total uint64, err error)
	fsID    func(path string) (uint64, error)
	metrics *ops.Metrics
	health  *ops.Health
	emit    func(body map[string]any) // journals and publishes an event
	log     *slog.Logger

	lastFS map[string]uint64 // the file system last seen under each path
	raised map[string]bool   // faults raised, by name
}

// diskGroup is one file system and the watched folders on it.
type diskGroup struct {
	fault string
	paths []string
}

// groups puts the watched folders together by file system, in the order
// of dirs. A folder whose file system cannot be told now keeps the one
// last seen; one never seen is left out and its error returned.
func (d *diskWatch) groups() ([]diskGroup, []string) {
	if d.lastFS == nil {
		d.lastFS = map[string]uint64{}
	}
	var out []diskGroup
	var failed []string
	at := map[uint64]int{}
	for _, w := range d.dirs {
		id, err := d.fsID(w.path)
		if err != nil {
			last, seen := d.lastFS[w.path]
			if !seen {
				failed = append(failed, err.Error())
				continue
			}
			id = last
		}
		d.lastFS[w.path] = id
		if i, ok := at[id]; ok {
			if !slices.Contains(out[i].paths, w.path) {
				out[i].paths = append(out[i].paths, w.path)
			}
			continue
		}
		at[id] = len(out)
		out = append(out, diskGroup{fault: diskFault(w.role), paths: []string{w.path}})
	}
	return out, failed
}

// check looks once and reports each change of a fault on emit.
func (d *diskWatch) check() {
	if d.raised == nil {
		d.raised = map[string]bool{}
	}
	groups, failed := d.groups()
	named := map[string]bool{}
	for _, g := range groups {
		named[g.fault] = true
		free, total, err := d.space(g.paths[0])
		if err != nil {
			// Not knowing is not "full": say so in the log and keep the last state.
			failed = append(failed, err.Error())
			continue
		}
		for _, p := range g.paths {
			d.metrics.DiskFreeBytes.With(p).Set(float64(free))
		}
		limit := min(d.minFree, total/4)
		low := free < limit
		if d.raised[g.fault] {
			low = free < limit+limit/10
		}
		d.set(g.fault, low, fmt.Sprintf("%s: %s free, under %s", strings.Join(g.paths, ", "), sizeText(free), sizeText(limit)))
	}
	if len(failed) > 0 {
		d.log.Warn("disk space unknown", "err", strings.Join(failed, "; "))
	}
	// A fault whose file system no longer stands apart (a mount changed
	// under the daemon): its folders are watched with another now.
	for _, name := range slices.Sorted(maps.Keys(d.raised)) {
		if d.raised[name] && !named[name] {
			d.set(name, false, "")
		}
	}
}

// set reports one fault's state, emitting an event when it changes.
func (d *diskWatch) set(fault string, low bool, detail string) {
	switch {
	case low && !d.raised[fault]:
		d.raised[fault] = true
		detail = clip400(detail)
		d.health.Fault(fault, detail)
		d.log.Error("fault", "what", fault, "detail", detail)
		d.emit(map[string]any{"event": "fault", "what": fault, "state": "raised", "detail": detail})
	case !low && d.raised[fault]:
		d.raised[fault] = false
		d.health.OK(fault)
		d.log.Info("fault cleared", "what", fault)
		d.emit(map[string]any{"event": "fault", "what": fault, "state": "cleared"})
	case !low:
		d.health.OK(fault)
	}
}

// sizeText writes a free space for a fault's detail: whole MB, or kB
// under one (a small tmpfs).
func sizeText(b uint64) string {
	if b < 1<<20 {
		return fmt.Sprintf("%d kB", b>>10)
	}
	return fmt.Sprintf("%d MB", b>>20)
}

// run checks now and then every period until ctx ends.
func (d *diskWatch) run(ctx context.Context, period time.Duration) error {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		d.check()
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// clip400 shortens an event's detail to the 400 bytes event.v1.json
// allows, on a UTF-8 boundary.
func clip400(s string) string {
	if len(s) <= 400 {
		return s
	}
	s = s[:400]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

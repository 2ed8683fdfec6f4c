package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dicewatch/dicewatch/ops"
)

// diskWatch is the "disk nearly full" fault: it checks the free space of
// the file systems that hold the journal and the clips, exports it as
// dicewatch_disk_free_bytes, and raises the fault when any has less than
// minFree, clearing it only once all have a tenth more than that again
// (so a disk hovering at the limit does not flap).
type diskWatch struct {
	paths   []string
	minFree uint64
	space   func(path string) (free, total uint64, err error)
	metrics *ops.Metrics
	health  *ops.Health
	emit    func(body map[string]any) // journals and publishes an event
	log     *slog.Logger

	raised bool
}

// check looks once and reports a change of the fault on emit.
func (d *diskWatch) check() {
	var low []string
	var failed []string
	for _, p := range d.paths {
		free, _, err := d.space(p)
		if err != nil {
			failed = append(failed, err.Error())
			continue
		}
		d.metrics.DiskFreeBytes.With(p).Set(float64(free))
		limit := d.minFree
		if d.raised {
			limit += d.minFree / 10
		}
		if free < limit {
			low = append(low, fmt.Sprintf("%s: %d MB free, under %d MB", p, free>>20, d.minFree>>20))
		}
	}
	if len(failed) > 0 {
		// Not knowing is not "full": say so in the log and keep the last state.
		d.log.Warn("disk space unknown", "err", strings.Join(failed, "; "))
	}
	switch {
	case len(low) > 0 && !d.raised:
		d.raised = true
		detail := clip400(strings.Join(low, "; "))
		d.health.Fault(ops.ComponentDisk, detail)
		d.log.Error("fault", "what", "disk", "detail", detail)
		d.emit(map[string]any{"event": "fault", "what": "disk", "state": "raised", "detail": detail})
	case len(low) == 0 && len(failed) == 0 && d.raised:
		d.raised = false
		d.health.OK(ops.ComponentDisk)
		d.log.Info("fault cleared", "what", "disk")
		d.emit(map[string]any{"event": "fault", "what": "disk", "state": "cleared"})
	case len(low) == 0 && len(failed) == 0:
		d.health.OK(ops.ComponentDisk)
	}
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

package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/dicewatch/dicewatch/rules"
	"github.com/dicewatch/dicewatch/vision/scene"
	"github.com/dicewatch/dicewatch/vision/source"
	"github.com/dicewatch/dicewatch/vision/source/sourcetest"
)

// TestDaemonThrowRightAfterRecovery runs the daemon (journal only) on a
// scripted camera that drops out after the first throw of a generated
// session, or in the middle of it, and comes back on the empty table a
// moment before the second throw enters. The second throw must be decided:
// valid with its true values, or no_roll (with camera_fault when the table
// was not seen empty since the recovery). It used to get no decision at
// all when it entered within about 150 ms of the recovery.
func TestDaemonThrowRightAfterRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("renders a session and runs the daemon three times: skipped with -short")
	}
	sess, dir := validSession(t, 3, 2)
	tr := sess.Truth()
	first, second := tr[0], tr[1]
	if second.StartFrame-first.EndFrame < 8 {
		t.Fatalf("the table is empty for only %d frames between the throws", second.StartFrame-first.EndFrame)
	}
	cases := []struct {
		name       string
		last, lead int // last frame before the outage; frames back before the second throw enters
		firstFault bool
		realGap    bool // the reconnect waits out the skipped frames' time
	}{
		{"lost_rested/back_66ms_before", first.AtRestFrame + 20, 2, false, false},
		{"lost_rested/back_0ms_before", first.AtRestFrame + 20, 0, false, false},
		{"lost_mid-throw/back_100ms_before", first.StartFrame + 6, 3, true, false},
		// The outage lasts as long as the frames it skips (the daemon's
		// stream clock runs on by the wall time): the second throw is
		// entering, or in the air, when the camera comes back, and the
		// first was cut in the air. It used to be taken into the first
		// throw's no_roll and get no decision of its own.
		{"lost_mid-throw/back_0ms_before/real_outage", first.StartFrame + 6, 0, true, true},
		{"lost_mid-throw/back_100ms_after/real_outage", first.StartFrame + 6, -3, true, true},
		{"lost_in_the_air/back_200ms_after/real_outage", first.StartFrame + 2, -6, true, true},
		// Back while the first throw's dice lie still, before they are
		// collected: they are its dice, and the collection opens no throw.
		{"lost_mid-throw/back_on_its_dice/real_outage", first.StartFrame + 6, second.StartFrame - (first.AtRestFrame + 5), true, true},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := daemonConfig{Table: "rc", Source: scriptedCamera, Calibration: filepath.Join(dir, scene.FileCalibration),
				Journal: filepath.Join(dir, fmt.Sprintf("journal%d", i)), Broker: "tcp://127.0.0.1:9", Extra: noClips,
			}.Parse(t, "recovery.yaml")
			cam := sessionCamera(sess, [][]int{
				sourcetest.FrameRange(0, c.last),
				sourcetest.FrameRange(second.StartFrame-c.lead, second.AtRestFrame+30),
			}, nil)
			var mu sync.Mutex
			var ds []rules.Decision
			open := cam.Open
			if c.realGap {
				opened := 0
				open = func(url string, o source.Options) (source.Source, error) {
					if opened++; opened == 2 {
						gap := sess.Camera().FrameMS(second.StartFrame-c.lead) - sess.Camera().FrameMS(c.last)
						time.Sleep(time.Duration(gap) * time.Millisecond)
					}
					return cam.Open(url, o)
				}
			}
			f := runFlags{exitAtEOF: true, noBroker: true, openSource: open,
				onDecision: func(_ rules.Throw, d rules.Decision) {
					mu.Lock()
					defer mu.Unlock()
					ds = append(ds, d)
				}}
			logs, err := runLogged(cfg, f)
			if err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			for _, d := range ds {
				t.Logf("decision: %s", describeDecision(d))
			}
			if len(ds) != 2 {
				t.Fatalf("%d decisions, want 2 (one per throw)\n%s", len(ds), logs)
			}
			if hasReason(ds[0], rules.CameraFault) != c.firstFault {
				t.Errorf("first throw: %s; camera_fault %v expected", describeDecision(ds[0]), c.firstFault)
			}
			d := ds[1]
			switch {
			case d.Verdict == rules.Valid && !slices.Equal(sortedInts(d.Values), sortedInts(second.Expected.Values)):
				t.Errorf("second throw valid %v, it rolled %v", d.Values, second.Expected.Values)
			case d.Verdict == rules.Valid:
			case d.Verdict == rules.NoRoll:
			default:
				t.Errorf("second throw: %s", describeDecision(d))
			}
		})
	}
}

func hasReason(d rules.Decision, r rules.Reason) bool {
	return slices.Contains(d.Reasons, r)
}

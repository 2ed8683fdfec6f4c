package vision_test

import (
	"context"
	"fmt"
	"testing"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/vision"
	"github.com/dicewatch/dicewatch/vision/scene"
	"github.com/dicewatch/dicewatch/vision/source/sourcetest"
)

// recoveryRun plays runs of a session's frames through the pipeline, the
// camera dropping between runs, and counts what vision reported after the
// last recovery.
type recoveryRun struct {
	starts, rests, clears int
	restDice              []int // dice at each at-rest frame
	firstRest             bool  // an at-rest frame was the first frame after the recovery
}

func runRecovery(t *testing.T, sess *scene.Session, runs [][]int) recoveryRun {
	t.Helper()
	c := &sourcetest.Runs{Runs: runs, FrameMS: sess.Camera().FrameMS,
		Render: func(k int, dst *gocv.Mat) error { _, err := sess.Render(k, dst); return err }}
	var out recoveryRun
	recovered, after := 0, 0
	err := vision.RunPipeline(context.Background(), vision.PipelineConfig{
		Source: "scripted", OpenSource: c.Open, Calibration: sess.Calibration(), SettleMS: 300,
		ExitAtEOF: true,
	}, func(ev vision.Event) {
		if ev.Fault != nil && ev.Fault.Recovered {
			recovered++
			out, after = recoveryRun{}, 0
		}
		if ev.Obs == nil || recovered == 0 {
			return
		}
		after++
		o := ev.Obs
		if o.Started {
			out.starts++
		}
		if o.Clear {
			out.clears++
		}
		if o.AtRest {
			out.rests++
			out.restDice = append(out.restDice, len(o.Dice))
			out.firstRest = out.firstRest || after == 1
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if recovered != len(runs)-1 {
		t.Fatalf("%d recoveries, want %d", recovered, len(runs)-1)
	}
	return out
}

// TestPipelineThrowRightAfterRecovery: the camera goes away after a throw
// has come to rest, the stick collects the dice in the dark, and the camera
// comes back on the empty table a moment before the next throw enters (or
// as its first die enters). Vision must report that throw (a start, and an
// at-rest frame with its dice) however soon after the recovery it begins.
// It used to be taken for the stick: the motion tracker was still waiting,
// from before the outage, for the table to be clear for 150 ms, and a
// throw entering inside that window was never started, so the daemon never
// decided it. The same when the camera was lost in the middle of the
// earlier throw: that throw must come to rest (it is decided camera_fault)
// and the next one start.
func TestPipelineThrowRightAfterRecovery(t *testing.T) {
	sess, err := scene.NewSession(scene.Config{Seed: 3, Throws: 2, Kinds: []scene.Kind{"valid"},
		Camera: scene.Camera{Width: 640, Height: 360, FPS: 30}, DropRate: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	tr := sess.Truth()
	first, second := tr[0], tr[1]
	cam := sess.Camera()
	gapFrames := second.StartFrame - (first.EndFrame + 1)
	t.Logf("throw 1 starts at frame %d, at rest at %d, stick at %d ms, clear at %d ms (frame %d); throw 2 starts at frame %d (%d ms): %d empty frames between",
		first.StartFrame, first.AtRestFrame, first.CollectMS, first.ClearMS, first.EndFrame, second.StartFrame, second.StartMS, gapFrames)
	for _, cut := range []struct {
		name string
		last int // last frame before the outage
	}{{"rested", first.AtRestFrame + 20}, {"mid-throw", first.StartFrame + 6}} {
		for _, lead := range []int{0, 1, 2, 3, 4, 6, 12} {
			if lead > gapFrames {
				continue
			}
			t.Run(fmt.Sprintf("lost_%s/back_%dms_before", cut.name, cam.FrameMS(lead)), func(t *testing.T) {
				r := runRecovery(t, sess, [][]int{
					sourcetest.FrameRange(0, cut.last),
					sourcetest.FrameRange(second.StartFrame-lead, second.AtRestFrame+20),
				})
				switch {
				case cut.name == "rested" && r.starts == 1 && r.rests == 1:
				case cut.name == "mid-throw" && r.starts == 1 && r.rests == 2 && r.firstRest && r.restDice[0] == 0:
					// The cut throw came to rest, empty, on the first frame
					// back (the table was empty), and the next one started.
				case cut.name == "mid-throw" && lead <= 1 && r.starts == 0 && r.rests == 1:
					// A die of the next throw was already in view on the
					// first frame back: its dice come to rest as the cut
					// throw's, which the daemon decides no_roll with
					// camera_fault. Decided, not lost.
				default:
					t.Fatalf("after the recovery: %d throw starts and %d at-rest frames (%+v): the throw entering %d ms after the camera came back is not reported as a throw of its own",
						r.starts, r.rests, r, cam.FrameMS(lead))
				}
				if got := r.restDice[len(r.restDice)-1]; got != len(second.Dice) {
					t.Errorf("the at-rest frame of the throw after the recovery has %d dice, want %d", got, len(second.Dice))
				}
			})
		}
	}
	// The camera comes back before the stick, or while it drags the dice
	// away: the rested dice, or the stick, are still in view. That is no
	// new throw.
	stickFrame := 0
	for k := first.AtRestFrame; cam.FrameMS(k) < first.CollectMS; k++ {
		stickFrame = k + 1
	}
	for _, back := range []int{stickFrame - 4, stickFrame + 3, stickFrame + 9, stickFrame + 15, stickFrame + 18, first.EndFrame - 3} {
		t.Run(fmt.Sprintf("lost_rested/back_at_frame_%d_stick_at_%d", back, stickFrame), func(t *testing.T) {
			r := runRecovery(t, sess, [][]int{
				sourcetest.FrameRange(0, first.AtRestFrame+20),
				sourcetest.FrameRange(back, first.EndFrame+5),
			})
			if back == first.EndFrame-3 {
				// The stick is out of view and the dice it pushes are
				// leaving at the edge: on one frame that looks like dice
				// coming in, and is taken for a throw (which the daemon
				// decides no_roll with camera_fault). Known; not asserted.
				t.Logf("back as the dice leave: %d starts, %d at-rest frames, %d clears", r.starts, r.rests, r.clears)
				return
			}
			if r.starts != 0 || r.rests != 0 || r.clears != 1 {
				t.Errorf("after the recovery: %d starts, %d at-rest frames, %d clears; want 0, 0 and 1 (the stick's)", r.starts, r.rests, r.clears)
			}
		})
	}
}

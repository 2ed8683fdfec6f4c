package motion

import (
	"fmt"
	"image"
	"math"
	"math/rand"
	"testing"

	"gocv.io/x/gocv"
)

// outcome is what the tracker reported over one throw.
type outcome struct {
	rests     []AtRest
	exits     []Exit
	started   int
	cleared   bool
	firsts    map[int]int // candidate id -> first-seen frame
	restFrame int
}

func runSynth(t testing.TB, s synthThrow, cfg Config) outcome {
	t.Helper()
	r := newRenderer(s)
	defer r.Close()
	tr := New(cfg)
	defer tr.Close()
	frame := gocv.NewMat()
	defer frame.Close()
	out := outcome{firsts: map[int]int{}}
	for k := 0; k < s.frames(); k++ {
		r.render(k, &frame)
		res := tr.Update(frame, s.frameMS(k))
		if res.AtRest != nil {
			out.rests = append(out.rests, *res.AtRest)
		}
		out.exits = append(out.exits, res.Exits...)
		if res.Started {
			out.started++
		}
		if res.Clear {
			out.cleared = true
		}
		for _, c := range res.Dice {
			out.firsts[c.ID] = c.FirstSeenFrame // the latest word on each candidate
		}
	}
	if tr.Phase() != Idle {
		t.Errorf("ended in phase %s, want idle", tr.Phase())
	}
	return out
}

// firstVisible is the first frame in which any of the die is in the picture.
func (s synthThrow) firstVisible(d synthDie) int {
	for k := 0; k < s.frames(); k++ {
		tm := s.frameMS(k)
		x, _, _ := d.pos(tm)
		if tm >= d.enterMS && x+s.die/2 >= 0.5 {
			return k
		}
	}
	return -1
}

// truthRest is when the last die stopped or left the picture.
func (s synthThrow) truthRest() int64 {
	var last int64
	for _, d := range s.dice {
		r := d.restMS()
		if r < 0 {
			_, r = s.exitEdge(d)
		}
		last = max(last, r)
	}
	return last
}

// TestGlintOpensNoThrow: a still speck far smaller than a die that lights
// up on the empty table (a glint under flickering light) must not open a
// throw; if it did, the tracker would go to rest on nothing and take the
// real throw after it for the stickperson, and that throw would get no
// at-rest event. (A generated session lost its first throw this way.)
func TestGlintOpensNoThrow(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	s := randomThrow(rng, 640, 360, 12, false, 11)
	for i := range s.dice {
		s.dice[i].enterMS += 500 // in while the glint fades
	}
	s.stickAt += 500
	s.endMS += 500
	s.glintAt, s.glintFrom = image.Pt(600, 20), 200
	const settle = 300
	out := runSynth(t, s, Config{DiePx: s.die, SettleMS: settle})
	if out.started != 1 {
		t.Errorf("started %d throws, want 1", out.started)
	}
	if len(out.rests) != 1 {
		t.Fatalf("%d at-rest events, want 1: %+v", len(out.rests), out.rests)
	}
	truth := s.truthRest()
	if got := out.rests[0].AtMS; got < truth || got-truth > settle+34 {
		t.Errorf("at rest at %d ms, truth %d ms", got, truth)
	}
	if n := len(out.rests[0].Dice); n != 2 {
		t.Errorf("%d dice at rest, want 2", n)
	}
}

func TestSyntheticThrows(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	n := 8
	if testing.Short() {
		n = 4
	}
	for i := 0; i < n; i++ {
		exit := i%3 == 1
		s := randomThrow(rng, 640, 360, 12, exit, int64(i))
		t.Run(fmt.Sprintf("throw%02d_exit=%v", i, exit), func(t *testing.T) {
			const settle = 300
			out := runSynth(t, s, Config{DiePx: s.die, SettleMS: settle})
			if out.started != 1 {
				t.Errorf("started %d throws, want 1 (the stick must not start one)", out.started)
			}
			if len(out.rests) != 1 {
				t.Fatalf("%d at-rest events, want 1: %+v", len(out.rests), out.rests)
			}
			truth := s.truthRest()
			frame := int64(math.Ceil(1000 / s.fps))
			got := out.rests[0].AtMS
			if got < truth {
				t.Errorf("at rest at %d ms while a die still moved (truth %d ms)", got, truth)
			}
			if got-truth > settle+frame {
				t.Errorf("at rest at %d ms, truth %d ms: late by %d ms (> settle %d + one frame %d)",
					got, truth, got-truth, settle, frame)
			}
			// Exits: exactly the dice that leave, through the right edge.
			var want []Edge
			for _, d := range s.dice {
				if e, _ := s.exitEdge(d); e != "" {
					want = append(want, e)
				}
			}
			if len(out.exits) != len(want) {
				t.Fatalf("exits %+v, want edges %v", out.exits, want)
			}
			for j := range want {
				if out.exits[j].Edge != want[j] {
					t.Errorf("exit %d through %s, want %s", j, out.exits[j].Edge, want[j])
				}
			}
			// First appearance within one frame of the first visible frame.
			firstTruth := map[int]bool{}
			for _, d := range s.dice {
				firstTruth[s.firstVisible(d)] = true
			}
			for id, f := range out.firsts {
				ok := false
				for tf := range firstTruth {
					if f >= tf && f-tf <= 1 {
						ok = true
					}
				}
				if !ok {
					t.Errorf("candidate %d first seen at frame %d; dice became visible at frames %v", id, f, firstTruth)
				}
			}
			if !out.cleared {
				t.Errorf("the table never cleared after the stick took the dice")
			}
		})
	}
}

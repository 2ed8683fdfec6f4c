package motion

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/calibration"
	"github.com/dicewatch/dicewatch/vision/scene"
)

// sceneReport is the bar measured over a generated session.
type sceneReport struct {
	throws, frames         int
	restOK, restMissing    int
	restExtra, restMoving  int
	restLate, restEarly    int
	exits, exitsOK         int
	exitsEdgeOK            int
	exitsSpurious          int
	dice, firstOK          int
	spuriousFirst, started int
	worstLateMS            int64
	failures               []string
}

func (r sceneReport) String() string {
	pct := func(a, b int) float64 {
		if b == 0 {
			return 100
		}
		return 100 * float64(a) / float64(b)
	}
	return fmt.Sprintf("throws %d, frames %d\n"+
		"at rest within settle+1 frame: %d/%d (%.2f%%); missing %d, extra %d, late %d (worst %d ms past truth), early %d\n"+
		"at-rest events while a die moved: %d\n"+
		"exits with the right zone: %d/%d (%.2f%%); right edge %d/%d; spurious exits %d\n"+
		"first appearance within one frame: %d/%d (%.2f%%); candidates first seen away from any die's entry: %d\n"+
		"throws started: %d",
		r.throws, r.frames, r.restOK, r.throws, pct(r.restOK, r.throws), r.restMissing, r.restExtra, r.restLate,
		r.worstLateMS, r.restEarly, r.restMoving, r.exitsOK, r.exits, pct(r.exitsOK, r.exits), r.exitsEdgeOK, r.exits,
		r.exitsSpurious, r.firstOK, r.dice, pct(r.firstOK, r.dice), r.spuriousFirst, r.started)
}

// measureScene plays a generated session through a tracker and scores it
// against the generator's truth.
//
// With jpegQuality > 0 each rendered frame goes through a JPEG encode and
// decode at that quality first, as the frames of the generator's MJPG
// recordings (and of an MJPG camera) do.
func measureScene(t testing.TB, seed int64, throws, from int, w, h int, settle int64, jpegQuality int) sceneReport {
	t.Helper()
	s, err := scene.NewSession(scene.Config{Seed: seed, Throws: throws, Camera: scene.Camera{Width: w, Height: h, FPS: 30}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cal := s.Calibration()
	cam := s.Camera()
	diePx := cal.DiePx(calibration.Point{X: float64(w) / 2, Y: float64(h) / 2})
	tr := New(Config{DiePx: diePx, SettleMS: settle, ZoneOf: ExitZoneOf(cal)})
	defer tr.Close()
	frame := gocv.NewMat()
	defer frame.Close()
	// The empty table, as a daemon would load it from calibration.
	if err := s.Background(&frame); err != nil {
		t.Fatal(err)
	}
	if jpegQuality > 0 {
		jpegRoundTrip(t, &frame, jpegQuality)
	}
	tr.SetBackground(frame)

	truth := s.Truth()
	throwOf := func(ms int64) int { // the throw a time belongs to
		i := -1
		for j, tt := range truth {
			if ms >= tt.StartMS-cam.FrameMS(2) {
				i = j
			}
		}
		return i
	}
	rep := sceneReport{throws: len(truth), frames: s.Frames()}
	rests := make([][]AtRest, len(truth))
	exits := make([][]Exit, len(truth))
	firsts := make([]map[int]int, len(truth))
	for i := range firsts {
		firsts[i] = map[int]int{}
	}
	frameMS := int64(1000/cam.FPS + 0.999)
	var ft scene.FrameTruth
	first := 0
	if from > 0 && from < len(truth) {
		// Start on the empty table just before throw from.
		first = truth[from].StartFrame - 1
		for first > 0 && cam.FrameMS(first-1) > truth[from-1].ClearMS+100 {
			first--
		}
	}
	for k := first; k < s.Frames(); k++ {
		if !s.Dropped(k) || k == first {
			if ft, err = s.Render(k, &frame); err != nil {
				t.Fatal(err)
			}
			if jpegQuality > 0 {
				jpegRoundTrip(t, &frame, jpegQuality)
			}
		}
		at := cam.FrameMS(k)
		res := tr.Update(frame, at)
		ti := throwOf(at)
		if res.Started {
			rep.started++
		}
		if res.AtRest != nil {
			for _, d := range ft.Dice {
				if d.Moving {
					rep.restMoving++
					rep.failures = append(rep.failures, fmt.Sprintf("frame %d: at rest while die %d moves", k, d.Die))
					break
				}
			}
			if ti >= 0 {
				ar := *res.AtRest
				ar.Frame += first // the tracker counts from the frame it started on
				rests[ti] = append(rests[ti], ar)
			}
		}
		if ti >= 0 {
			exits[ti] = append(exits[ti], res.Exits...)
			for _, c := range res.Dice {
				if c.FirstSeenMS >= truth[ti].StartMS-frameMS*2 { // the latest word on each candidate
					firsts[ti][c.ID] = c.FirstSeenFrame + first
				}
			}
		}
	}
	rep.throws = len(truth) - from
	for i, tt := range truth {
		if i < from {
			continue
		}
		switch n := len(rests[i]); {
		case n == 0:
			rep.restMissing++
			rep.failures = append(rep.failures, fmt.Sprintf("throw %d (%s): no at-rest event", i, tt.Kind))
		default:
			if n > 1 {
				rep.restExtra += n - 1
			}
			d := rests[i][0].AtMS - tt.AtRestMS
			rep.worstLateMS = max(rep.worstLateMS, d)
			switch {
			case d < 0:
				rep.restEarly++
				rep.failures = append(rep.failures, fmt.Sprintf("throw %d (%s): at rest %d ms before truth", i, tt.Kind, -d))
			case d > settle+frameMS:
				rep.restLate++
				rep.failures = append(rep.failures, fmt.Sprintf("throw %d (%s): at rest %d ms after truth (frame %d, truth frame %d)", i, tt.Kind, d, rests[i][0].Frame, tt.AtRestFrame))
			case n == 1:
				rep.restOK++
			}
		}
		used := map[int]bool{}
		for _, ex := range tt.Exits {
			rep.exits++
			if len(used) == len(exits[i]) {
				rep.failures = append(rep.failures, fmt.Sprintf("throw %d (%s): exit %+v not reported", i, tt.Kind, ex))
			}
			for j, got := range exits[i] {
				if used[j] {
					continue
				}
				used[j] = true
				if string(got.Edge) == ex.Edge {
					rep.exitsEdgeOK++
				}
				if got.Zone == string(ex.Zone) {
					rep.exitsOK++
				} else {
					rep.failures = append(rep.failures, fmt.Sprintf("throw %d: exit %s zone %q, want %s %s", i, got.Edge, got.Zone, ex.Edge, ex.Zone))
				}
				break
			}
		}
		if n := len(exits[i]) - len(tt.Exits); n > 0 {
			rep.exitsSpurious += n
			rep.failures = append(rep.failures, fmt.Sprintf("throw %d (%s): exits %+v, truth %+v", i, tt.Kind, exits[i], tt.Exits))
		}
		// Each die's first appearance: some candidate first seen within a
		// frame of it; each candidate's first sighting near some die's.
		for _, d := range tt.Dice {
			rep.dice++
			ok := false
			for _, f := range firsts[i] {
				if f-d.FirstSeenFrame >= -1 && f-d.FirstSeenFrame <= 1 {
					ok = true
				}
			}
			if ok {
				rep.firstOK++
			} else {
				rep.failures = append(rep.failures, fmt.Sprintf("throw %d: die %d first seen frame %d, candidates %v", i, d.Die, d.FirstSeenFrame, firsts[i]))
			}
		}
		for _, f := range firsts[i] {
			near := false
			for _, d := range tt.Dice {
				if f-d.FirstSeenFrame >= -1 && f-d.FirstSeenFrame <= 1 {
					near = true
				}
			}
			if !near {
				rep.spuriousFirst++
				rep.failures = append(rep.failures, fmt.Sprintf("throw %d (%s): a candidate first seen at frame %d, dice at %v", i, tt.Kind, f, tt.Dice))
			}
		}
	}
	return rep
}

// TestSceneThrows scores the tracker on generated throws. By default it
// runs a few; the full measurement is
//
//	DICEWATCH_SCENE_THROWS=500 go test -run TestSceneThrows -v -timeout 2h ./vision/motion
//
// (DICEWATCH_SCENE_RES=1280x720 by default; DICEWATCH_SCENE_SEED=1).
func TestSceneThrows(t *testing.T) {
	throws := 4
	if testing.Short() {
		throws = 2
	}
	if v := os.Getenv("DICEWATCH_SCENE_THROWS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatal(err)
		}
		throws = n
	}
	w, h := 1280, 720
	if v := os.Getenv("DICEWATCH_SCENE_RES"); v != "" {
		if _, err := fmt.Sscanf(strings.ToLower(v), "%dx%d", &w, &h); err != nil {
			t.Fatal(err)
		}
	}
	seed := int64(1)
	if v := os.Getenv("DICEWATCH_SCENE_SEED"); v != "" {
		seed, _ = strconv.ParseInt(v, 10, 64)
	}
	const settle = 300
	from := 0 // DICEWATCH_SCENE_FROM: score from this throw on (to look at one)
	if v := os.Getenv("DICEWATCH_SCENE_FROM"); v != "" {
		from, _ = strconv.Atoi(v)
	}
	quality := 80 // the generator's MJPG quality; DICEWATCH_SCENE_MJPG=0 scores raw renders
	if v := os.Getenv("DICEWATCH_SCENE_MJPG"); v != "" {
		q, err := strconv.Atoi(v)
		if err != nil || q < 0 || q > 100 {
			t.Fatalf("DICEWATCH_SCENE_MJPG=%q: want a JPEG quality 0..100", v)
		}
		quality = q
	}
	rep := measureScene(t, seed, throws, from, w, h, settle, quality)
	t.Logf("seed %d, %dx%d, settle %d ms:\n%s", seed, w, h, settle, rep)
	for i, f := range rep.failures {
		if i == 80 {
			t.Logf("... %d more", len(rep.failures)-80)
			break
		}
		t.Log(f)
	}
	// The bar.
	if rep.restMoving > 0 {
		t.Errorf("%d at-rest events while a die moved", rep.restMoving)
	}
	if 1000*rep.restOK < 995*rep.throws {
		t.Errorf("at rest on time for %d/%d throws, want >= 99.5%%", rep.restOK, rep.throws)
	}
	if 100*rep.exitsOK < 99*rep.exits {
		t.Errorf("exits with the right zone %d/%d, want >= 99%%", rep.exitsOK, rep.exits)
	}
	if rep.started != rep.throws {
		t.Errorf("%d throws started for %d thrown (a stick or hand must not start one)", rep.started, rep.throws)
	}
	if rep.firstOK != rep.dice {
		t.Errorf("first appearance within one frame for %d/%d dice", rep.firstOK, rep.dice)
	}
}

// jpegRoundTrip replaces frame with its JPEG-decoded self at quality q.
func jpegRoundTrip(t testing.TB, frame *gocv.Mat, q int) {
	t.Helper()
	buf, err := gocv.IMEncodeWithParams(gocv.JPEGFileExt, *frame, []int{gocv.IMWriteJpegQuality, q})
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Close()
	dec, err := gocv.IMDecode(buf.GetBytes(), gocv.IMReadColor)
	if err != nil || dec.Empty() {
		t.Fatalf("JPEG round trip: %v", err)
	}
	defer dec.Close()
	dec.CopyTo(frame)
}

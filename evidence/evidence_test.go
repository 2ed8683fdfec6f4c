package evidence

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/jpeg"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// frameAt is the stream time of frame k at 30 fps, as a camera stamps it.
func frameAt(k int) int64 { return int64(k) * 1000 / 30 }

// picture is a small JPEG whose grey level names frame k (k*3 mod 240), so
// a frame read back from a clip says which frame it was.
func picture(t testing.TB, k int) []byte {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, 64, 48))
	g := uint8(8 + (k*3)%240)
	for i := range img.Pix {
		img.Pix[i] = g
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 95}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func frame(t testing.TB, k int) Frame {
	return Frame{JPEG: picture(t, k), Width: 64, Height: 48, AtMS: frameAt(k)}
}

// clock gives the same wall time to every call (names then collide).
func clock() time.Time { return time.Date(2026, 3, 1, 21, 4, 5, 123e6, time.UTC) }

func newTestRecorder(t *testing.T, cfg Config) (*Recorder, *[]Written, *[]error) {
	t.Helper()
	var written []Written
	var faults []error
	if cfg.Dir == "" {
		cfg.Dir = filepath.Join(t.TempDir(), "clips")
	}
	cfg.Table = "t1"
	cfg.FPS = 30
	cfg.Queue = 10000
	cfg.Now = clock
	cfg.OnClip = func(w Written) { written = append(written, w) }
	cfg.OnFault = func(err error) { faults = append(faults, err) }
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r, &written, &faults
}

func clipFiles(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

// TestClipWindowAndAtomicName drives the recorder's steps directly: the
// clip holds exactly the pre-roll before the throw opened and the
// post-roll after the decision, lives under a hidden temporary name until
// it is complete, and is then renamed to the name reserved at open.
func TestClipWindowAndAtomicName(t *testing.T) {
	r, written, faults := newTestRecorder(t, Config{PreMS: 1000, PostMS: 500})
	r.prepare()
	clips := map[string]*clip{}
	var pre []Frame
	for k := 0; k <= 60; k++ { // 0..2 s
		pre = r.frame(frame(t, k), clips, pre)
	}
	c := r.Open(frameAt(60)) // the throw opened at 2 s
	r.command(<-r.cmds, clips, pre)
	if c.File != "t1-20260301T210405.123Z.avi" || c.FromMS != frameAt(60)-1000 {
		t.Fatalf("reserved %+v", c)
	}
	for k := 61; k <= 90; k++ {
		pre = r.frame(frame(t, k), clips, pre)
	}
	if got := clipFiles(t, r.cfg.Dir); len(got) != 1 || got[0] != "."+c.File+".tmp" {
		t.Fatalf("while writing, the folder holds %v; want only the hidden temporary file", got)
	}
	c = r.Close(c, frameAt(90)) // decided at 3 s: the clip ends at 3.5 s
	r.command(<-r.cmds, clips, pre)
	for k := 91; k <= 120; k++ {
		pre = r.frame(frame(t, k), clips, pre)
	}
	if got := clipFiles(t, r.cfg.Dir); len(got) != 1 || got[0] != c.File {
		t.Fatalf("after the post-roll the folder holds %v; want %s", got, c.File)
	}
	if len(*written) != 1 || len(*faults) != 0 {
		t.Fatalf("written %+v, faults %v", *written, *faults)
	}
	w := (*written)[0]
	// From 1 s to 3.5 s at 30 fps: slots 0..75.
	if w.Frames != 76 || w.FPS != 30 || w.FromMS != c.FromMS || w.Truncated {
		t.Errorf("clip %+v: want 76 frames at 30 fps from %d ms", w, c.FromMS)
	}
	if len(pre) > 30*(1+1)+2 {
		t.Errorf("pre-roll holds %d frames; want at most pre_seconds+1 s of them", len(pre))
	}
}

// TestRunRepeatsOverGapsAndPrunes runs the recorder's goroutine: five
// throws, frames missing inside one of them, a ring bounded to three clips.
// Every reserved name is unique although the wall clock stands still, the
// gap keeps the clip's length, and only the three newest clips remain.
func TestRunRepeatsOverGapsAndPrunes(t *testing.T) {
	r, written, faults := newTestRecorder(t, Config{PreMS: 500, PostMS: 500, MaxClips: 3})
	// A clip a crash left half-written is removed at start.
	if err := os.MkdirAll(r.cfg.Dir, 0o750); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(r.cfg.Dir, ".t1-old.avi.tmp")
	if err := os.WriteFile(stale, []byte("x"), 0o640); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	var names []string
	k := 0
	for throw := 0; throw < 5; throw++ {
		for end := k + 30; k < end; k++ { // 1 s idle
			r.Frame(frame(t, k))
		}
		c := r.Open(frameAt(k))
		names = append(names, c.File)
		for end := k + 45; k < end; k++ { // 1.5 s throw
			if throw == 2 && k%45 >= 10 && k%45 < 16 {
				continue // the camera dropped six frames
			}
			r.Frame(frame(t, k))
		}
		r.Close(c, frameAt(k-1))
	}
	for end := k + 30; k < end; k++ {
		r.Frame(frame(t, k))
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if len(*faults) != 0 {
		t.Fatalf("faults: %v", *faults)
	}
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			t.Fatalf("name %s reserved twice: %v", n, names)
		}
		seen[n] = true
	}
	if len(*written) != 5 {
		t.Fatalf("%d clips written, want 5", len(*written))
	}
	for i, w := range *written {
		// 0.5 s, the throw's 45 frames (decided at its last), 0.5 s: 15 +
		// 44 + 15 intervals.
		if w.Frames != 75 || w.Truncated {
			t.Errorf("clip %d: %d frames (truncated %v), want 75", i, w.Frames, w.Truncated)
		}
	}
	got := clipFiles(t, r.cfg.Dir)
	if want := names[2:]; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("ring holds %v; want the three newest %v", got, want)
	}
}

// TestByteBoundKeepsNewest bounds the ring by size below one clip: each new
// clip replaces the previous one, and the newest is never removed.
func TestByteBoundKeepsNewest(t *testing.T) {
	r, written, _ := newTestRecorder(t, Config{PreMS: 500, PostMS: 500, MaxBytes: 1})
	r.prepare()
	clips := map[string]*clip{}
	var pre []Frame
	var last string
	for throw, k := 0, 0; throw < 3; throw++ {
		c := r.Open(frameAt(k))
		r.command(<-r.cmds, clips, pre)
		last = c.File
		c = r.Close(c, frameAt(k+10))
		r.command(<-r.cmds, clips, pre)
		for end := k + 60; k < end; k++ {
			pre = r.frame(frame(t, k), clips, pre)
		}
	}
	if got := clipFiles(t, r.cfg.Dir); len(got) != 1 || got[0] != last {
		t.Fatalf("ring holds %v; want only the newest %s", got, last)
	}
	if len(*written) != 3 || (*written)[2].Pruned != 1 {
		t.Errorf("written %+v", *written)
	}
}

// TestUnwritableFolderIsAFault: a folder that cannot be made (here a file
// stands in its place; root ignores permission bits) is reported once as
// a fault, and neither Open, Close nor Frame blocks.
func TestUnwritableFolderIsAFault(t *testing.T) {
	base := t.TempDir()
	blocker := filepath.Join(base, "clips")
	if err := os.WriteFile(blocker, nil, 0o640); err != nil {
		t.Fatal(err)
	}
	r, written, faults := newTestRecorder(t, Config{Dir: filepath.Join(blocker, "ring"), PreMS: 500, PostMS: 500})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	for throw, k := 0, 0; throw < 3; throw++ {
		c := r.Open(frameAt(k))
		for end := k + 40; k < end; k++ {
			r.Frame(frame(t, k))
		}
		r.Close(c, frameAt(k-20))
	}
	cancel()
	<-done
	if len(*written) != 0 || len(*faults) != 1 || !errors.Is((*faults)[0], os.ErrNotExist) && !strings.Contains((*faults)[0].Error(), "not a directory") {
		t.Fatalf("written %d, faults %v; want one fault naming the folder", len(*written), *faults)
	}
	if r.Failed() == 0 {
		t.Error("no clip counted as failed")
	}
}

// TestFrameNeverBlocks: with nobody reading, frames beyond the queue are
// dropped and counted.
func TestFrameNeverBlocks(t *testing.T) {
	r, err := New(Config{Dir: t.TempDir(), Queue: 4})
	if err != nil {
		t.Fatal(err)
	}
	f := Frame{JPEG: []byte{1}, Width: 2, Height: 2}
	for i := 0; i < 10; i++ {
		f.AtMS = int64(i)
		r.Frame(f)
	}
	if r.Dropped() != 6 {
		t.Errorf("dropped %d, want 6", r.Dropped())
	}
}

// TestDroppedOpenNamesNoClip: when the recorder is too far behind to take
// an open command, Open returns a Clip without a File (the decision must
// not name a clip that will never be written), counts the drop, and Close
// of that Clip sends nothing.
func TestDroppedOpenNamesNoClip(t *testing.T) {
	r, _, _ := newTestRecorder(t, Config{PreMS: 1000, PostMS: 500})
	// Nobody drains the commands: fill the queue.
	for i := 0; i < cap(r.cmds); i++ {
		if c := r.Open(frameAt(i)); c.File == "" {
			t.Fatalf("open %d dropped with room in the queue", i)
		}
	}
	c := r.Open(frameAt(100))
	if c.File != "" {
		t.Fatalf("open past a full queue returned %+v; want no file", c)
	}
	if c.FromMS != frameAt(100)-1000 {
		t.Errorf("FromMS %d; want %d", c.FromMS, frameAt(100)-1000)
	}
	if n := r.DroppedCommands(); n != 1 {
		t.Errorf("DroppedCommands %d; want 1", n)
	}
	if c := r.Close(c, frameAt(110)); c.File != "" {
		t.Errorf("Close returned %+v", c)
	}
	if n := r.DroppedCommands(); n != 1 {
		t.Errorf("Close of a clip without a file sent a command: DroppedCommands %d; want 1", n)
	}
}

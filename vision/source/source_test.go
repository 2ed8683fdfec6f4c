package source

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"testing"
	"time"

	"gocv.io/x/gocv"
)

// writeAVI renders n frames of a moving square into an MJPG AVI at fps.
func writeAVI(t *testing.T, path string, n int, fps float64) {
	t.Helper()
	vw, err := gocv.VideoWriterFile(path, "MJPG", fps, 160, 120, true)
	if err != nil {
		t.Fatalf("video writer: %v", err)
	}
	defer vw.Close()
	img := gocv.NewMatWithSize(120, 160, gocv.MatTypeCV8UC3)
	defer img.Close()
	for i := 0; i < n; i++ {
		img.SetTo(gocv.NewScalar(40, 120, 40, 0))
		gocv.Rectangle(&img, image.Rect(5+i%100, 40, 25+i%100, 60), color.RGBA{250, 250, 250, 0}, -1)
		if err := vw.Write(img); err != nil {
			t.Fatalf("write frame %d: %v", i, err)
		}
	}
}

// readAll reads until an error and returns the frames and that error.
func readAll(t *testing.T, src Source, max int) ([]Frame, error) {
	t.Helper()
	m := gocv.NewMat()
	defer m.Close()
	var out []Frame
	for i := 0; i < max; i++ {
		f, err := src.Read(&m)
		if err != nil {
			return out, err
		}
		out = append(out, f)
	}
	return out, nil
}

func TestFileSourceReadsEveryFrameWithTimestamps(t *testing.T) {
	path := filepath.Join(t.TempDir(), "clip.avi")
	writeAVI(t, path, 30, 60)
	src, err := Open("file:"+path+"?pace=fast", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	frames, err := readAll(t, src, 100)
	if !errors.Is(err, ErrEndOfStream) {
		t.Fatalf("after last frame: got %v, want ErrEndOfStream", err)
	}
	if len(frames) != 30 {
		t.Fatalf("read %d frames, want 30", len(frames))
	}
	for i, f := range frames {
		want := int64(float64(i)*1000/60 + 1e-6)
		if f.Index != i || f.Width != 160 || f.Height != 120 {
			t.Errorf("frame %d: %+v", i, f)
		}
		if f.AtMS != want {
			t.Errorf("frame %d at %d ms, want %d", i, f.AtMS, want)
		}
	}
	// Reading past the end stays at end of stream.
	if _, err := readAll(t, src, 1); !errors.Is(err, ErrEndOfStream) {
		t.Errorf("second read past end: %v", err)
	}
}

// fakeClock advances only when the source sleeps.
type fakeClock struct {
	now   time.Time
	slept []time.Duration
}

func (c *fakeClock) Now() time.Time { return c.now }
func (c *fakeClock) Sleep(d time.Duration) {
	c.slept = append(c.slept, d)
	c.now = c.now.Add(d)
}

func TestFileSourcePacesAtItsOwnTimestamps(t *testing.T) {
	path := filepath.Join(t.TempDir(), "clip.avi")
	writeAVI(t, path, 11, 50) // 20 ms apart
	clk := &fakeClock{now: time.Unix(1000, 0)}
	src, err := Open("file:"+path, Options{Now: clk.Now, Sleep: clk.Sleep})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	frames, err := readAll(t, src, 11)
	if err != nil || len(frames) != 11 {
		t.Fatalf("read %d frames: %v", len(frames), err)
	}
	if got := clk.now.Sub(time.Unix(1000, 0)); got != 200*time.Millisecond {
		t.Errorf("playing 11 frames at 50 fps took %v of clock, want 200ms", got)
	}
	if len(clk.slept) != 10 {
		t.Errorf("slept %d times, want 10", len(clk.slept))
	}
}

func TestDamagedFilesGiveTypedErrors(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.avi")
	writeAVI(t, good, 60, 30)
	whole, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(1))
	garbage := make([]byte, 64<<10)
	rng.Read(garbage)
	// Garbage after a valid RIFF/AVI header: the container opens, frames do not.
	badBody := append(append([]byte{}, whole[:len(whole)/4]...), garbage...)
	// Flip bytes inside the frame data, keeping the container intact.
	flipped := append([]byte{}, whole...)
	for i := len(flipped) / 3; i < 2*len(flipped)/3; i += 7 {
		flipped[i] ^= 0x5a
	}

	tests := []struct {
		name     string
		data     []byte
		openErr  error   // expected from Open, or nil
		readErrs []error // any of these from the first failing Read
	}{
		{"truncated at 40%", whole[:len(whole)*4/10], nil, []error{ErrCorruptFrame}},
		{"truncated at 90%", whole[:len(whole)*9/10], nil, []error{ErrCorruptFrame}},
		{"header only", whole[:300], ErrCorruptFrame, []error{ErrCorruptFrame}},
		{"random bytes", garbage, ErrCorruptFrame, nil},
		{"empty file", nil, ErrCorruptFrame, nil},
		{"garbage body", badBody, nil, []error{ErrCorruptFrame}},
		{"flipped bytes", flipped, nil, []error{ErrCorruptFrame, ErrEndOfStream}},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, fmt.Sprintf("bad%d.avi", i))
			if err := os.WriteFile(path, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			src, err := Open("file:"+path+"?pace=fast", Options{})
			if err != nil {
				if tc.openErr == nil || !errors.Is(err, tc.openErr) {
					t.Fatalf("open: %v, want %v", err, tc.openErr)
				}
				return
			}
			defer src.Close()
			frames, err := readAll(t, src, 200)
			if err == nil {
				t.Fatalf("read 200 frames from a damaged 60-frame file")
			}
			ok := false
			for _, want := range tc.readErrs {
				ok = ok || errors.Is(err, want)
			}
			if !ok {
				t.Fatalf("after %d frames: %v, want one of %v", len(frames), err, tc.readErrs)
			}
			if errors.Is(err, ErrEndOfStream) && len(frames) >= 60 {
				t.Logf("damage did not stop the decoder (%d frames)", len(frames))
			}
			if _, err := readAll(t, src, 1); !errors.Is(err, ErrEndOfStream) {
				t.Errorf("read after failure: %v, want ErrEndOfStream", err)
			}
		})
	}
}

func TestOpenErrors(t *testing.T) {
	tests := []struct {
		url  string
		want error
	}{
		{"ftp://x/y", ErrBadURL},
		{"nonsense", ErrBadURL},
		{"file:/does/not/exist.avi", fs.ErrNotExist},
		{"file:" + os.TempDir() + "?pace=fast", ErrBadURL},
		{"file:x.avi?pace=slow", ErrBadURL},
		{"v4l2:///dev/video-dicewatch-none?width=1280", ErrUnplugged},
		{"v4l2:///dev/video0?width=abc", ErrBadURL},
		{"v4l2:///dev/video0?format=H264", ErrBadURL},
		{"v4l2://", ErrBadURL},
		{"dir:/does/not/exist", fs.ErrNotExist},
		{"dir:" + os.TempDir() + "?fps=0", ErrBadURL},
		{"gst:", ErrBadURL},
		{"gst:no-such-element-dicewatch ! appsink", ErrUnplugged},
	}
	for _, tc := range tests {
		t.Run(tc.url, func(t *testing.T) {
			src, err := Open(tc.url, Options{})
			if err == nil {
				src.Close()
				t.Fatalf("opened")
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}

func TestDirSource(t *testing.T) {
	dir := t.TempDir()
	img := gocv.NewMatWithSize(48, 64, gocv.MatTypeCV8UC3)
	defer img.Close()
	for _, name := range []string{"b.png", "a.png", "d.jpg"} {
		if !gocv.IMWrite(filepath.Join(dir, name), img) {
			t.Fatal("imwrite")
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "c.png"), []byte("not a png"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("skip me"), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := Open("dir:"+dir+"?fps=10", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	m := gocv.NewMat()
	defer m.Close()
	want := []struct {
		idx int
		at  int64
		err error
	}{{0, 0, nil}, {1, 100, nil}, {2, 0, ErrCorruptFrame}, {3, 300, nil}, {0, 0, ErrEndOfStream}}
	for i, w := range want {
		f, err := src.Read(&m)
		if w.err != nil {
			if !errors.Is(err, w.err) {
				t.Fatalf("read %d: %v, want %v", i, err, w.err)
			}
			continue
		}
		if err != nil || f.Index != w.idx || f.AtMS != w.at || f.Width != 64 || f.Height != 48 {
			t.Fatalf("read %d: %+v %v, want index %d at %d", i, f, err, w.idx, w.at)
		}
	}
}

// blockingSource delivers a frame only when told to.
type blockingSource struct {
	release chan struct{}
	closed  chan struct{}
	n       int
}

func (b *blockingSource) Read(dst *gocv.Mat) (Frame, error) {
	<-b.release
	m := gocv.NewMatWithSize(2, 2, gocv.MatTypeCV8UC3)
	defer m.Close()
	m.CopyTo(dst)
	b.n++
	return Frame{Index: b.n - 1, AtMS: int64(b.n), Width: 2, Height: 2}, nil
}

func (b *blockingSource) Close() error { close(b.closed); return nil }

func TestStallSource(t *testing.T) {
	inner := &blockingSource{release: make(chan struct{}), closed: make(chan struct{})}
	timer := make(chan time.Time)
	fired := make(chan time.Time, 1)
	s := WithStall(inner, 250*time.Millisecond, func(d time.Duration) <-chan time.Time {
		if d != 250*time.Millisecond {
			t.Errorf("timer for %v", d)
		}
		return fired
	})
	_ = timer
	m := gocv.NewMat()
	defer m.Close()

	// The timer fires before the frame: stalled.
	fired <- time.Time{}
	if _, err := s.Read(&m); !errors.Is(err, ErrStalled) {
		t.Fatalf("got %v, want ErrStalled", err)
	}
	// The late frame is delivered by the next Read.
	inner.release <- struct{}{}
	f, err := s.Read(&m)
	if err != nil || f.Index != 0 || m.Cols() != 2 {
		t.Fatalf("after stall: %+v %v", f, err)
	}
	// Close with a read in flight does not block; the inner source closes
	// once the read returns.
	fired <- time.Time{}
	if _, err := s.Read(&m); !errors.Is(err, ErrStalled) {
		t.Fatalf("got %v, want ErrStalled", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-inner.closed:
		t.Fatal("inner closed while its read was in flight")
	default:
	}
	inner.release <- struct{}{}
	<-inner.closed
	if _, err := s.Read(&m); !errors.Is(err, ErrEndOfStream) {
		t.Fatalf("read after close: %v", err)
	}
}

func TestGstreamerPipeline(t *testing.T) {
	src, err := Open("gst:videotestsrc num-buffers=5 ! video/x-raw,width=64,height=48,framerate=25/1 ! videoconvert ! appsink", Options{})
	if err != nil {
		t.Skipf("gstreamer backend not usable here: %v", err)
	}
	defer src.Close()
	frames, err := readAll(t, src, 20)
	if !errors.Is(err, ErrEndOfStream) || len(frames) != 5 {
		t.Fatalf("read %d frames, end %v", len(frames), err)
	}
	for i := 1; i < len(frames); i++ {
		if frames[i].AtMS <= frames[i-1].AtMS {
			t.Errorf("timestamps not increasing: %+v", frames)
		}
	}
}

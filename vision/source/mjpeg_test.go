package source_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/color"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/vision/source"
	"github.com/dicewatch/dicewatch/vision/source/sourcetest"
)

// jpegFrames renders n 160x120 frames of a moving square as JPEGs.
func jpegFrames(t *testing.T, n int) [][]byte {
	t.Helper()
	img := gocv.NewMatWithSize(120, 160, gocv.MatTypeCV8UC3)
	defer img.Close()
	var out [][]byte
	for i := 0; i < n; i++ {
		img.SetTo(gocv.NewScalar(40, 120, 40, 0))
		gocv.Rectangle(&img, image.Rect(5+i, 40, 25+i, 60), color.RGBA{250, 250, 250, 0}, -1)
		buf, err := gocv.IMEncode(gocv.JPEGFileExt, img)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, append([]byte(nil), buf.GetBytes()...))
		buf.Close()
	}
	return out
}

func readN(t *testing.T, src source.Source, n int) []source.Frame {
	t.Helper()
	m := gocv.NewMat()
	defer m.Close()
	var fs []source.Frame
	for len(fs) < n {
		f, err := src.Read(&m)
		if err != nil {
			t.Fatalf("read %d: %v", len(fs), err)
		}
		if m.Cols() != 160 || m.Rows() != 120 || f.Width != 160 {
			t.Fatalf("frame %d is %dx%d", len(fs), m.Cols(), m.Rows())
		}
		fs = append(fs, f)
	}
	return fs
}

// TestMJPEGKillRestartFreeze plays a live MJPEG stream, kills it, restarts
// it and freezes it, and checks each failure is typed and seen in time.
func TestMJPEGKillRestartFreeze(t *testing.T) {
	st, err := sourcetest.NewStream(jpegFrames(t, 60), 30)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	opts := source.Options{StallMS: 300}
	src, err := source.Open(st.URL(), opts)
	if err != nil {
		t.Fatal(err)
	}
	fs := readN(t, src, 15)
	for i := 1; i < len(fs); i++ {
		if fs[i].AtMS <= fs[i-1].AtMS || fs[i].Index != i {
			t.Fatalf("frame %d: index %d at %d ms after %d ms", i, fs[i].Index, fs[i].AtMS, fs[i-1].AtMS)
		}
	}
	// Real time: 15 frames at 30 fps span about 470 ms.
	if span := fs[14].AtMS - fs[0].AtMS; span < 350 || span > 1500 {
		t.Errorf("15 frames spanned %d ms; want about 470 at 30 fps", span)
	}

	m := gocv.NewMat()
	defer m.Close()
	killed := time.Now()
	st.Kill()
	var lost error
	for i := 0; i < 5 && lost == nil; i++ { // frames already in flight may still arrive
		_, lost = src.Read(&m)
	}
	seen := time.Since(killed)
	t.Logf("kill seen after %v: %v", seen, lost)
	if !errors.Is(lost, source.ErrUnplugged) {
		t.Fatalf("read after kill: %v, want ErrUnplugged", lost)
	}
	if seen > 300*time.Millisecond {
		t.Errorf("kill seen after %v; a dropped connection must be seen before the stall limit", seen)
	}
	src.Close()
	if _, err := source.Open(st.URL(), opts); !errors.Is(err, source.ErrUnplugged) {
		t.Fatalf("open while killed: %v, want ErrUnplugged", err)
	}
	if err := st.Restart(); err != nil {
		t.Fatal(err)
	}
	src, err = source.Open(st.URL(), opts)
	if err != nil {
		t.Fatalf("open after restart: %v", err)
	}
	readN(t, src, 5)

	frozen := time.Now()
	st.Freeze()
	var stalled error
	for i := 0; i < 5 && stalled == nil; i++ {
		_, stalled = src.Read(&m)
	}
	waited := time.Since(frozen)
	t.Logf("freeze seen after %v: %v", waited, stalled)
	if !errors.Is(stalled, source.ErrStalled) || waited > time.Second {
		t.Fatalf("read while frozen: %v after %v, want ErrStalled after about 300 ms", stalled, waited)
	}
	c0 := time.Now()
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(c0); d > 100*time.Millisecond {
		t.Errorf("close of a frozen stream took %v", d)
	}
	st.Thaw()
	src, err = source.Open(st.URL(), opts)
	if err != nil {
		t.Fatalf("open after thaw: %v", err)
	}
	readN(t, src, 3)
	src.Close()
}

// TestMJPEGSlowReaderSeesTheNewestFrame reads slower than the camera
// sends: the frames it gets are current (stamped on arrival, the older
// ones dropped), not a backlog from the socket buffers.
func TestMJPEGSlowReaderSeesTheNewestFrame(t *testing.T) {
	st, err := sourcetest.NewStream(jpegFrames(t, 60), 30)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	src, err := source.Open(st.URL(), source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	m := gocv.NewMat()
	defer m.Close()
	first := readN(t, src, 1)[0]
	time.Sleep(500 * time.Millisecond) // about 15 frames arrive meanwhile
	f, err := src.Read(&m)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("after a 500 ms pause: frame %d at %d ms (first at %d ms), %d skipped",
		f.Index, f.AtMS, first.AtMS, src.(*source.MJPEGSource).Skipped())
	if f.Index != 1 || f.AtMS-first.AtMS < 400 {
		t.Errorf("after a 500 ms pause got frame %d at %d ms (first at %d ms): want the newest, about 500 ms later",
			f.Index, f.AtMS, first.AtMS)
	}
	if n := src.(*source.MJPEGSource).Skipped(); n < 5 {
		t.Errorf("%d frames skipped during a 500 ms pause at 30 fps; want about 14", n)
	}
}

func TestMJPEGRefusesWhatIsNotAStream(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/html":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<html></html>")
		case "/garbage":
			w.Header().Set("Content-Type", "multipart/x-mixed-replace; boundary=b")
			fmt.Fprint(w, "--b\r\nContent-Type: image/jpeg\r\n\r\nnot a jpeg\r\n--b--\r\n")
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	if _, err := source.Open(srv.URL+"/nothing", source.Options{}); !errors.Is(err, source.ErrUnplugged) {
		t.Errorf("404: %v, want ErrUnplugged", err)
	}
	if _, err := source.Open(srv.URL+"/html", source.Options{}); !errors.Is(err, source.ErrCorruptFrame) {
		t.Errorf("html page: %v, want ErrCorruptFrame", err)
	}
	src, err := source.Open(srv.URL+"/garbage", source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	m := gocv.NewMat()
	defer m.Close()
	if _, err := src.Read(&m); !errors.Is(err, source.ErrCorruptFrame) {
		t.Errorf("garbage part: %v, want ErrCorruptFrame", err)
	}
	if _, err := src.Read(&m); !errors.Is(err, source.ErrUnplugged) {
		t.Errorf("after the closing boundary: %v, want ErrUnplugged", err)
	}
}

// TestMJPEGBoundaryWithItsDashes: a camera that declares
// "boundary=--frame" and separates parts with "--frame" (the dashes given
// once, not twice as RFC 2046 has it) is read, as is one that follows the
// RFC with the same declared boundary.
func TestMJPEGBoundaryWithItsDashes(t *testing.T) {
	frames := jpegFrames(t, 3)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "multipart/x-mixed-replace; boundary=--frame")
		sep := "--frame" // as such cameras send it
		if r.URL.Path == "/rfc" {
			sep = "----frame"
		}
		for _, f := range frames {
			fmt.Fprintf(w, "%s\r\nContent-Type: image/jpeg\r\nContent-Length: %d\r\n\r\n", sep, len(f))
			w.Write(f)
			fmt.Fprint(w, "\r\n")
		}
		fmt.Fprintf(w, "%s--\r\n", sep)
	}))
	defer srv.Close()
	for _, path := range []string{"/cam", "/rfc"} {
		src, err := source.Open(srv.URL+path, source.Options{})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		m := gocv.NewMat()
		got := 0
		for {
			if _, err := src.Read(&m); err != nil {
				if !errors.Is(err, source.ErrUnplugged) {
					t.Errorf("%s: after %d frames: %v, want the stream's end (ErrUnplugged)", path, got, err)
				}
				break
			}
			got++
			if m.Cols() != 160 {
				t.Errorf("%s: frame %d is %dx%d", path, got, m.Cols(), m.Rows())
			}
		}
		m.Close()
		src.Close()
		if got == 0 {
			t.Errorf("%s: no frame read", path)
		}
	}
}

// TestMJPEGHugeFrameHeader: a part whose JPEG header claims 65500x65500
// pixels, past OpenCV's limit, makes OpenCV throw; the source reports a
// corrupt frame instead of letting the exception abort the process.
func TestMJPEGHugeFrameHeader(t *testing.T) {
	f := jpegFrames(t, 1)[0]
	i := bytes.Index(f, []byte{0xff, 0xc0}) // baseline frame header
	if i < 0 || i+9 > len(f) {
		t.Fatal("no SOF0 marker in the encoded frame")
	}
	binary.BigEndian.PutUint16(f[i+5:], 65500)
	binary.BigEndian.PutUint16(f[i+7:], 65500)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "multipart/x-mixed-replace; boundary=b")
		fmt.Fprintf(w, "--b\r\nContent-Type: image/jpeg\r\nContent-Length: %d\r\n\r\n", len(f))
		w.Write(f)
		fmt.Fprint(w, "\r\n--b--\r\n")
	}))
	defer srv.Close()
	src, err := source.Open(srv.URL, source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	m := gocv.NewMat()
	defer m.Close()
	if _, err := src.Read(&m); !errors.Is(err, source.ErrCorruptFrame) {
		t.Errorf("huge header: %v, want ErrCorruptFrame", err)
	}
}

package avi

import (
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"math"
	"os"
	"path/filepath"
	"testing"

	"gocv.io/x/gocv"
)

// Test frames are bands of gray that spell the frame's number in base 16,
// one digit a band, so a frame read back says which frame it is.
const (
	testW     = 128
	testH     = 128
	testBands = 4 // 65536 distinct frames
)

func bandLevel(k, b int) float64 { return float64(8 + 16*(k>>(4*b)&15)) }

// testFrame is frame k as a JPEG, with pad bytes more in COM segments
// (which decoders skip) to make it as large as a test needs. The padding
// holds no 0xFF byte, so no parser can mistake it for a marker.
func testFrame(t testing.TB, k, pad int) []byte {
	t.Helper()
	img := gocv.NewMatWithSize(testH, testW, gocv.MatTypeCV8UC3)
	defer img.Close()
	bh := testH / testBands
	for b := 0; b < testBands; b++ {
		band := img.Region(image.Rect(0, b*bh, testW, (b+1)*bh))
		v := bandLevel(k, b)
		band.SetTo(gocv.NewScalar(v, v, v, 0))
		band.Close()
	}
	buf, err := gocv.IMEncodeWithParams(gocv.JPEGFileExt, img, []int{gocv.IMWriteJpegQuality, 90})
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Close()
	jpeg := buf.GetBytes()
	out := append([]byte(nil), jpeg[:2]...) // SOI
	for pad > 0 {
		n := min(max(pad, 4), 65537) // marker, length, at most 65533 bytes
		seg := make([]byte, n)
		seg[0], seg[1] = 0xFF, 0xFE
		binary.BigEndian.PutUint16(seg[2:], uint16(n-2))
		for i := 4; i < n; i++ {
			seg[i] = byte('a' + (k+i)%26)
		}
		out = append(out, seg...)
		pad -= n
	}
	return append(out, jpeg[2:]...)
}

// checkFrame fails unless img is frame k.
func checkFrame(t testing.TB, img gocv.Mat, k int, what string) {
	t.Helper()
	if img.Cols() != testW || img.Rows() != testH {
		t.Fatalf("%s: frame %d is %dx%d, want %dx%d", what, k, img.Cols(), img.Rows(), testW, testH)
	}
	bh := testH / testBands
	for b := 0; b < testBands; b++ {
		band := img.Region(image.Rect(0, b*bh, testW, (b+1)*bh))
		m := band.Mean()
		band.Close()
		got := (m.Val1 + m.Val2 + m.Val3) / 3
		if math.Abs(got-bandLevel(k, b)) > 4 {
			t.Fatalf("%s: frame %d band %d has level %.1f, want %.0f (wrong frame or damaged)", what, k, b, got, bandLevel(k, b))
		}
	}
}

// readBack opens path as the daemon does (gocv.VideoCaptureFile), checks
// the frame count it reports, then reads every frame in order and checks
// each against testFrame.
func readBack(t *testing.T, path string, frames int) {
	t.Helper()
	vc, err := gocv.VideoCaptureFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer vc.Close()
	t.Logf("read with backend %d (FFmpeg is %d)", int(vc.Get(gocv.VideoCaptureBackend)), int(gocv.VideoCaptureFFmpeg))
	if n := vc.Get(gocv.VideoCaptureFrameCount); n != float64(frames) {
		t.Errorf("CAP_PROP_FRAME_COUNT %v, want %d", n, frames)
	}
	img := gocv.NewMat()
	defer img.Close()
	k := 0
	for vc.Read(&img) && !img.Empty() {
		if k >= frames {
			t.Fatalf("more than the %d frames written", frames)
		}
		checkFrame(t, img, k, "in order")
		k++
	}
	if k != frames {
		t.Fatalf("read %d frames, wrote %d", k, frames)
	}
}

// seekTo checks that after seeking to frame k (CAP_PROP_POS_FRAMES) the
// next frame read is frame k.
func seekTo(t *testing.T, vc *gocv.VideoCapture, img *gocv.Mat, k int) {
	t.Helper()
	vc.Set(gocv.VideoCapturePosFrames, float64(k))
	if !vc.Read(img) || img.Empty() {
		t.Fatalf("no frame after seeking to frame %d", k)
	}
	checkFrame(t, *img, k, fmt.Sprintf("after seeking to %d", k))
}

// write writes frames 0..n-1, frame k padded by pad(k) bytes.
func write(t *testing.T, path string, n int, pad func(k int) int) *Writer {
	t.Helper()
	w, err := Create(path, testW, testH, 30)
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k < n; k++ {
		if err := w.WriteFrame(testFrame(t, k, pad(k))); err != nil {
			t.Fatalf("frame %d: %v", k, err)
		}
	}
	return w
}

// layout is what walk finds in a file.
type layout struct {
	riffs      []string // form types, in order
	riffSizes  []int64  // bytes, headers included
	ixFrames   []int    // frames in each RIFF's ix00, from the super index
	avihFrames uint32
	strhLength uint32
	dmlhFrames uint32
	idx1       int // entries
	rate       uint32
	scale      uint32
}

// walk parses the file written by Writer on its own terms: the RIFFs
// tile the file, the super index points at an ix00 in each RIFF, every
// ix00 entry at a '00dc' chunk of its size, in order, and the idx1 at
// the first RIFF's frames. It returns what a test checks further.
func walk(t *testing.T, path string) layout {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	at := func(off int64, n int) []byte {
		t.Helper()
		b := make([]byte, n)
		if _, err := f.ReadAt(b, off); err != nil {
			t.Fatalf("read %d bytes at %d: %v", n, off, err)
		}
		return b
	}
	u32 := func(off int64) uint32 { return binary.LittleEndian.Uint32(at(off, 4)) }
	fourcc := func(off int64) string { return string(at(off, 4)) }

	var l layout
	var riffAt []int64
	for off := int64(0); off < st.Size(); {
		if fourcc(off) != "RIFF" {
			t.Fatalf("no RIFF at %d", off)
		}
		size := int64(u32(off + 4))
		l.riffs = append(l.riffs, fourcc(off+8))
		l.riffSizes = append(l.riffSizes, size+8)
		riffAt = append(riffAt, off)
		off += 8 + size
		if off > st.Size() {
			t.Fatalf("RIFF %d ends at %d, past the file's %d bytes", len(l.riffs)-1, off, st.Size())
		}
	}
	if len(l.riffs) == 0 || l.riffs[0] != "AVI " {
		t.Fatalf("RIFFs %q: want 'AVI ' first", l.riffs)
	}
	for i, r := range l.riffs[1:] {
		if r != "AVIX" {
			t.Fatalf("RIFF %d is %q, want AVIX", i+1, r)
		}
	}
	// the header, at the offsets the writer patches
	if fourcc(12) != "LIST" || fourcc(20) != "hdrl" || fourcc(24) != "avih" || fourcc(100) != "strh" || fourcc(212) != "indx" {
		t.Fatal("header is not LIST hdrl, avih, strh ... indx where expected")
	}
	l.avihFrames, l.scale, l.rate, l.strhLength = u32(aviTotalFrame), u32(aviStrhScale), u32(aviStrhRate), u32(aviStrhLength)
	room := (int64(u32(216)) - 24) / 16
	if fourcc(aviIndxEntry+16*room+8) != "odml" || fourcc(aviIndxEntry+16*room+12) != "dmlh" {
		t.Fatal("no LIST odml dmlh after the super index")
	}
	l.dmlhFrames = u32(dmlhFramesAt(int(room)))
	inUse := int64(u32(aviIndxInUse))
	if inUse != int64(len(l.riffs)) {
		t.Fatalf("super index has %d entries in use, the file %d RIFFs", inUse, len(l.riffs))
	}
	var chunks []int64 // every frame chunk, as the ix00s list them
	for i := int64(0); i < inUse; i++ {
		e := at(aviIndxEntry+16*i, 16)
		ix := int64(binary.LittleEndian.Uint64(e))
		size, dur := binary.LittleEndian.Uint32(e[8:]), binary.LittleEndian.Uint32(e[12:])
		if ix < riffAt[i] || ix+int64(size) > riffAt[i]+l.riffSizes[i] {
			t.Fatalf("super index entry %d points at %d, outside RIFF %d", i, ix, i)
		}
		h := at(ix, 32)
		if string(h[:4]) != "ix00" || binary.LittleEndian.Uint32(h[4:])+8 != size {
			t.Fatalf("super index entry %d: no ix00 of %d bytes at %d", i, size, ix)
		}
		if h[8] != 2 || h[10] != 0 || h[11] != 1 || string(h[16:20]) != "00dc" {
			t.Fatalf("ix00 %d: not an index of chunks of 00dc: % x", i, h[8:20])
		}
		n := binary.LittleEndian.Uint32(h[12:])
		base := int64(binary.LittleEndian.Uint64(h[20:]))
		if n != dur || 32+8*int64(n) != int64(size) {
			t.Fatalf("ix00 %d lists %d frames in %d bytes; the super index says %d", i, n, size, dur)
		}
		l.ixFrames = append(l.ixFrames, int(n))
		ents := at(ix+32, 8*int(n))
		for j := 0; j < int(n); j++ {
			pos := base + int64(binary.LittleEndian.Uint32(ents[8*j:])) - 8
			fsize := binary.LittleEndian.Uint32(ents[8*j+4:])
			if fsize&(1<<31) != 0 {
				t.Fatalf("ix00 %d entry %d is not a key frame", i, j)
			}
			if pos < riffAt[i] || pos > ix {
				t.Fatalf("ix00 %d entry %d at %d is outside its RIFF's frames", i, j, pos)
			}
			if c := at(pos, 8); string(c[:4]) != "00dc" || binary.LittleEndian.Uint32(c[4:]) != fsize {
				t.Fatalf("ix00 %d entry %d: no 00dc chunk of %d bytes at %d", i, j, fsize, pos)
			}
			if pos%2 != 0 {
				t.Fatalf("ix00 %d entry %d: chunk at odd offset %d (RIFF chunks are word-aligned)", i, j, pos)
			}
			if len(chunks) > 0 && pos <= chunks[len(chunks)-1] {
				t.Fatalf("ix00 %d entry %d at %d is not after the frame before", i, j, pos)
			}
			chunks = append(chunks, pos)
		}
	}
	// the idx1 right after the first RIFF's movi list
	moviAt := moviListAt(int(room)) + 8
	idx1At := moviAt + int64(u32(moviAt-4))
	if fourcc(idx1At) != "idx1" {
		t.Fatalf("no idx1 at %d", idx1At)
	}
	l.idx1 = int(u32(idx1At+4) / 16)
	if l.idx1 != l.ixFrames[0] {
		t.Fatalf("idx1 has %d entries, the first RIFF %d frames", l.idx1, l.ixFrames[0])
	}
	idx1 := at(idx1At+8, 16*l.idx1)
	for j := 0; j < l.idx1; j++ {
		e := idx1[16*j:]
		if string(e[:4]) != "00dc" || binary.LittleEndian.Uint32(e[4:]) != 0x10 ||
			moviAt+int64(binary.LittleEndian.Uint32(e[8:])) != chunks[j] {
			t.Fatalf("idx1 entry %d does not point at frame %d's chunk", j, j)
		}
	}
	return l
}

func TestSmallFileReadsBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "small.avi")
	const n = 40
	w := write(t, path, n, func(k int) int { return k % 3 }) // odd and even sizes
	if err := w.SetFPS(25); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if w.Size() != st.Size() || w.Frames() != n {
		t.Errorf("after Close: Size %d, Frames %d; the file has %d bytes, %d frames written", w.Size(), w.Frames(), st.Size(), n)
	}
	l := walk(t, path)
	if len(l.riffs) != 1 || l.avihFrames != n || l.strhLength != n || l.dmlhFrames != n {
		t.Errorf("RIFFs %q, avih %d, strh %d, dmlh %d frames; want one RIFF and %d frames everywhere",
			l.riffs, l.avihFrames, l.strhLength, l.dmlhFrames, n)
	}
	if l.rate != 25000 || l.scale != 1000 {
		t.Errorf("rate %d/%d, want 25000/1000 (SetFPS)", l.rate, l.scale)
	}
	readBack(t, path, n)
	vc, err := gocv.VideoCaptureFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer vc.Close()
	if fps := vc.Get(gocv.VideoCaptureFPS); fps != 25 {
		t.Errorf("CAP_PROP_FPS %v, want 25", fps)
	}
}

// setKnobs sets the RIFF size limit and the super index's room for the
// test and puts them back after it.
func setKnobs(t *testing.T, limit int64, room int) {
	oldLimit, oldRoom := riffLimit, superIndexEntries
	riffLimit, superIndexEntries = limit, room
	t.Cleanup(func() { riffLimit, superIndexEntries = oldLimit, oldRoom })
}

func TestRIFFRollover(t *testing.T) {
	const limit = 200 << 10
	setKnobs(t, limit, 256)
	path := filepath.Join(t.TempDir(), "rollover.avi")
	const n = 150
	w := write(t, path, n, func(k int) int { return 6000 + k*1237%8000 })
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	l := walk(t, path)
	t.Logf("%d RIFFs of %v bytes, %v frames", len(l.riffs), l.riffSizes, l.ixFrames)
	if len(l.riffs) < 5 {
		t.Fatalf("%d RIFFs; the test wants several AVIX", len(l.riffs))
	}
	for i, s := range l.riffSizes {
		if s > limit {
			t.Errorf("RIFF %d is %d bytes, past the %d limit", i, s, limit)
		}
	}
	if l.avihFrames != uint32(l.ixFrames[0]) || l.strhLength != n || l.dmlhFrames != n {
		t.Errorf("avih %d, strh %d, dmlh %d frames; want %d (the first RIFF's), %d, %d",
			l.avihFrames, l.strhLength, l.dmlhFrames, l.ixFrames[0], n, n)
	}
	readBack(t, path, n)

	// seeking goes through the OpenDML index into later RIFFs and back
	vc, err := gocv.VideoCaptureFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer vc.Close()
	img := gocv.NewMat()
	defer img.Close()
	lastStart := n - l.ixFrames[len(l.ixFrames)-1]
	for _, k := range []int{lastStart + 1, l.ixFrames[0] + 2, lastStart, 3, n - 1, l.ixFrames[0]} {
		seekTo(t, vc, &img, k)
	}
}

func TestErrFullKeepsAReadableFile(t *testing.T) {
	setKnobs(t, 64<<10, 3)
	path := filepath.Join(t.TempDir(), "full.avi")
	w, err := Create(path, testW, testH, 30)
	if err != nil {
		t.Fatal(err)
	}
	k := 0
	for ; k < 1000; k++ {
		err = w.WriteFrame(testFrame(t, k, 5000))
		if err != nil {
			break
		}
	}
	if !errors.Is(err, ErrFull) {
		t.Fatalf("after %d frames: %v, want ErrFull", k, err)
	}
	if err := w.WriteFrame(testFrame(t, k, 0)); !errors.Is(err, ErrFull) {
		t.Fatalf("a smaller frame after ErrFull: %v, want ErrFull again", err)
	}
	if w.Frames() != k {
		t.Fatalf("Frames %d after %d written", w.Frames(), k)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	l := walk(t, path)
	if len(l.riffs) != 3 {
		t.Errorf("%d RIFFs, want the 3 the super index has room for", len(l.riffs))
	}
	readBack(t, path, k)
}

func TestCloseTwice(t *testing.T) {
	w := write(t, filepath.Join(t.TempDir(), "twice.avi"), 2, func(int) int { return 0 })
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); !errors.Is(err, os.ErrClosed) {
		t.Fatalf("second Close: %v, want os.ErrClosed", err)
	}
	if err := w.WriteFrame([]byte{0xFF, 0xD8}); !errors.Is(err, os.ErrClosed) {
		t.Fatalf("WriteFrame after Close: %v, want os.ErrClosed", err)
	}
}

// TestBigFile writes a real OpenDML file past 4 GiB and reads it back at
// a few points. It takes disk space and a while, so it runs only with
// DICEWATCH_AVI_BIG=1.
func TestBigFile(t *testing.T) {
	if os.Getenv("DICEWATCH_AVI_BIG") != "1" {
		t.Skip("set DICEWATCH_AVI_BIG=1 to write and read a 4.6 GB file")
	}
	const want = 4400 << 20 // bytes: 4.3 GiB
	path := filepath.Join(t.TempDir(), "big.avi")
	w, err := Create(path, testW, testH, 30)
	if err != nil {
		t.Fatal(err)
	}
	past4G := -1 // the first frame that starts past 4 GiB
	k := 0
	for ; w.Size() < want; k++ {
		if past4G < 0 && w.Size() >= 1<<32 {
			past4G = k
		}
		if err := w.WriteFrame(testFrame(t, k, 240<<10+k%1000)); err != nil {
			t.Fatalf("frame %d: %v", k, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	l := walk(t, path)
	t.Logf("%d frames, %d bytes, %d RIFFs of %v frames; frame %d is the first past 4 GiB",
		k, st.Size(), len(l.riffs), l.ixFrames, past4G)
	if st.Size() <= 1<<32 || l.strhLength != uint32(k) || l.dmlhFrames != uint32(k) {
		t.Fatalf("%d bytes, strh %d and dmlh %d frames; want past 4 GiB and %d frames", st.Size(), l.strhLength, l.dmlhFrames, k)
	}
	vc, err := gocv.VideoCaptureFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer vc.Close()
	if n := vc.Get(gocv.VideoCaptureFrameCount); n != float64(k) {
		t.Errorf("CAP_PROP_FRAME_COUNT %v, want %d", n, k)
	}
	img := gocv.NewMat()
	defer img.Close()
	for _, f := range []int{0, 1, past4G - 1, past4G, past4G + 1, k - 1, k / 2} {
		seekTo(t, vc, &img, f)
	}
}

// Package avi writes Motion-JPEG frames into an AVI 1.0 (RIFF) file, the
// container OpenCV's MJPG VideoWriter produces, with an idx1 index, so
// gocv.VideoCaptureFile and ffmpeg read it. It is plain Go (no OpenCV): the
// caller brings JPEG-encoded frames. The scene generator writes its
// recordings with it and the evidence recorder its clips.
package avi

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// Writer writes one AVI file. It exists because encoding with libjpeg
// through gocv.IMEncode, on several goroutines, is several times faster
// than VideoWriter.Write on one, and because it needs no OpenCV at all.
// Frames are shown at a constant rate (SetFPS may change it until Close).
type Writer struct {
	f      *os.File
	w      *bufio.Writer
	width  int
	height int
	fps    float64
	frames int
	off    int64 // bytes written so far
	moviAt int64 // file offset of the 'movi' fourcc
	index  []indexEntry
	maxLen int
}

type indexEntry struct{ off, size uint32 }

// aviMaxBytes keeps the file inside the 32-bit RIFF sizes of AVI 1.0.
const aviMaxBytes = 1<<32 - 1<<24

// ErrFull: one more frame would take the file past the 4 GiB limit of AVI 1.0.
var ErrFull = errors.New("avi: file would exceed the 4 GiB AVI 1.0 limit")

// Create creates (or truncates) path and writes the AVI header for frames
// of width x height shown at fps frames per second.
func Create(path string, width, height int, fps float64) (*Writer, error) {
	if width <= 0 || height <= 0 || width > 65535 || height > 65535 || !(fps > 0 && fps <= 1000) {
		return nil, fmt.Errorf("avi: %dx%d at %g fps is not a valid stream", width, height, fps)
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("avi: %w", err)
	}
	a := &Writer{f: f, w: bufio.NewWriterSize(f, 256<<10), width: width, height: height, fps: fps}
	if err := a.header(); err != nil {
		f.Close()
		return nil, err
	}
	return a, nil
}

func (a *Writer) put(v ...any) error {
	for _, x := range v {
		switch x := x.(type) {
		case string:
			if _, err := a.w.WriteString(x); err != nil {
				return err
			}
			a.off += int64(len(x))
		case []byte:
			if _, err := a.w.Write(x); err != nil {
				return err
			}
			a.off += int64(len(x))
		default:
			if err := binary.Write(a.w, binary.LittleEndian, x); err != nil {
				return err
			}
			a.off += int64(binary.Size(x))
		}
	}
	return nil
}

// Offsets of the fields patched on Close.
const (
	aviRIFFSize   = 4
	aviUSPerFrame = 32
	aviTotalFrame = 48
	aviStrhScale  = 128
	aviStrhRate   = 132
	aviStrhLength = 140
	aviMoviSize   = 216
)

// rateFields are the header's frame period (microseconds) and the stream's
// rate/scale pair (frames per scale seconds) for fps.
func rateFields(fps float64) (usPerFrame, rate, scale uint32) {
	return uint32(1e6/fps + 0.5), uint32(fps*1000 + 0.5), 1000
}

// SetFPS changes the rate the frames are shown at; it takes effect on Close
// (the header is patched then). A recorder that learns the camera's true
// rate only while writing sets it here.
func (a *Writer) SetFPS(fps float64) error {
	if !(fps > 0 && fps <= 1000) {
		return fmt.Errorf("avi: %g fps is out of range", fps)
	}
	a.fps = fps
	return nil
}

// Frames is the number of frames written so far.
func (a *Writer) Frames() int { return a.frames }

// Size is the number of bytes written so far (the index adds 16 a frame on Close).
func (a *Writer) Size() int64 { return a.off }

func (a *Writer) header() error {
	usPerFrame, rate, scale := rateFields(a.fps)
	w, h := uint32(a.width), uint32(a.height)
	err := a.put("RIFF", uint32(0), "AVI ",
		"LIST", uint32(192), "hdrl",
		"avih", uint32(56), usPerFrame, uint32(0), uint32(0), uint32(0x10), uint32(0), uint32(0), uint32(1), uint32(0), w, h,
		[4]uint32{},
		"LIST", uint32(116), "strl",
		"strh", uint32(56), "vids", "MJPG", uint32(0), uint16(0), uint16(0), uint32(0), scale, rate, uint32(0), uint32(0),
		uint32(0), uint32(0xffffffff), uint32(0), [4]uint16{0, 0, uint16(w), uint16(h)},
		"strf", uint32(40), uint32(40), int32(w), int32(h), uint16(1), uint16(24), "MJPG", w*h*3, int32(0), int32(0), uint32(0), uint32(0),
		"LIST", uint32(0), "movi")
	if err != nil {
		return fmt.Errorf("avi: %w", err)
	}
	if a.off != aviMoviSize+8 {
		return fmt.Errorf("avi: header is %d bytes, want %d", a.off, aviMoviSize+8)
	}
	a.moviAt = a.off - 4
	return nil
}

// WriteFrame appends one JPEG image as the next frame.
func (a *Writer) WriteFrame(jpeg []byte) error {
	n := len(jpeg)
	if a.off+int64(n)+16+int64(len(a.index)+1)*16+8 > aviMaxBytes {
		return ErrFull
	}
	a.index = append(a.index, indexEntry{off: uint32(a.off - a.moviAt), size: uint32(n)})
	if err := a.put("00dc", uint32(n), jpeg); err != nil {
		return fmt.Errorf("avi: %w", err)
	}
	if n%2 == 1 {
		if err := a.put([]byte{0}); err != nil {
			return fmt.Errorf("avi: %w", err)
		}
	}
	if n > a.maxLen {
		a.maxLen = n
	}
	a.frames++
	return nil
}

// Close writes the index, patches the sizes and the rate, and closes the
// file (without fsync; see CloseSync).
func (a *Writer) Close() error { return a.finish(false) }

// CloseSync is Close with the file's data synced to disk before it is
// closed, for a caller that renames it into place afterwards.
func (a *Writer) CloseSync() error { return a.finish(true) }

func (a *Writer) finish(sync bool) error {
	moviEnd := a.off
	err := a.put("idx1", uint32(16*len(a.index)))
	for _, e := range a.index {
		if err == nil {
			err = a.put("00dc", uint32(0x10), e.off, e.size)
		}
	}
	if err == nil {
		err = a.w.Flush()
	}
	patch := func(at int64, v uint32) {
		if err != nil {
			return
		}
		var b [4]byte
		binary.LittleEndian.PutUint32(b[:], v)
		_, err = a.f.WriteAt(b[:], at)
	}
	us, rate, scale := rateFields(a.fps)
	patch(aviRIFFSize, uint32(a.off-8))
	patch(aviUSPerFrame, us)
	patch(aviStrhScale, scale)
	patch(aviStrhRate, rate)
	patch(aviTotalFrame, uint32(a.frames))
	patch(aviTotalFrame+12, uint32(a.maxLen+8)) // suggested buffer size
	patch(aviStrhLength, uint32(a.frames))
	patch(aviStrhLength+4, uint32(a.maxLen+8))
	patch(aviMoviSize, uint32(moviEnd-aviMoviSize-4))
	if sync && err == nil {
		err = a.f.Sync()
	}
	if cerr := a.f.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("avi: %w", err)
	}
	return nil
}

var _ io.Closer = (*Writer)(nil)

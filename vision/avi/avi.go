// Package avi writes Motion-JPEG frames into an AVI file, the container
// OpenCV's MJPG VideoWriter produces, so gocv.VideoCaptureFile and ffmpeg
// read it. It is plain Go (no OpenCV): the caller brings JPEG-encoded
// frames. The scene generator writes its recordings with it and the
// evidence recorder its clips.
//
// The file is OpenDML AVI (AVI 2.0), so a recording may pass the 4 GiB of
// AVI 1.0's 32-bit sizes:
//
//	RIFF 'AVI '                 the first RIFF, kept under riffLimit
//	  LIST 'hdrl'
//	    avih                    total frames: the first RIFF's, as is usual
//	    LIST 'strl'
//	      strh                  length: all frames
//	      strf
//	      indx                  super index: one entry per RIFF's ix00
//	    LIST 'odml'
//	      dmlh                  total frames: all frames
//	  LIST 'movi'
//	    00dc ...                the frames
//	    ix00                    standard index of this RIFF's frames
//	  idx1                      AVI 1.0 index of the first RIFF's frames
//	RIFF 'AVIX'                 as many as needed, each under riffLimit
//	  LIST 'movi'
//	    00dc ...
//	    ix00
//
// A short clip is a single 'AVI ' RIFF, which AVI 1.0 readers read through
// its idx1 and OpenDML readers through its indx.
package avi

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// riffLimit is the size the writer keeps each RIFF under (with its
// indexes), the 1 GiB OpenDML asks of the first RIFF so that AVI 1.0
// readers can read it, and which ffmpeg keeps every RIFF under. Tests
// lower it to get several RIFFs out of a few hundred KB.
var riffLimit int64 = 1 << 30

// superIndexEntries is the room in the super index, which is written with
// the header and so cannot grow: one entry per RIFF, 256 GiB of frames at
// riffLimit. It costs 16 bytes an entry in every file, a clip's too.
// Tests lower it to fill the index.
var superIndexEntries = 256

// maxRIFF is the most a RIFF can hold: its size is a 32-bit field.
const maxRIFF = 1<<32 - 1

// ErrFull: one more frame would need a RIFF more than the super index has
// room for (see superIndexEntries). The frames written so far are kept:
// Close still makes a complete file of them.
var ErrFull = errors.New("avi: file is full: the OpenDML super index has no room for another RIFF")

// Writer writes one AVI file. It exists because encoding with libjpeg
// through gocv.IMEncode, on several goroutines, is several times faster
// than VideoWriter.Write on one, and because it needs no OpenCV at all.
// Frames are shown at a constant rate (SetFPS may change it until Close).
type Writer struct {
	f      *os.File
	w      *bufio.Writer
	err    error // the first write error; the writer is of no use after it
	width  int
	height int
	fps    float64
	frames int
	off    int64 // bytes written so far
	maxLen int

	limit  int64     // riffLimit when the file was created
	room   int       // superIndexEntries when the file was created
	riffAt int64     // file offset of the current RIFF
	moviAt int64     // file offset of the current RIFF's 'movi' fourcc
	chunks []chunk   // the current RIFF's frames
	riffs  []ixChunk // the ix00 chunks of the RIFFs finished so far
	first  int       // frames in the first RIFF, once it is finished
}

// chunk is one frame: the file offset of its '00dc' header and its size.
type chunk struct {
	at   int64
	size uint32
}

// ixChunk is one RIFF's standard index, as the super index lists it.
type ixChunk struct {
	at     int64  // file offset of the 'ix00' fourcc
	size   uint32 // bytes, its header included
	frames uint32
}

// Offsets in the first RIFF's header of the fields patched later. Those
// past the super index depend on its room, n entries.
const (
	aviUSPerFrame = 32
	aviTotalFrame = 48
	aviBufferSize = 60
	aviStrhScale  = 128
	aviStrhRate   = 132
	aviStrhLength = 140 // and the suggested buffer size after it
	aviIndxInUse  = 224
	aviIndxEntry  = 244 // the first of the super index's 16-byte entries
)

// dmlhFramesAt is the offset of dmlh's total frames, moviListAt that of
// the first RIFF's 'LIST movi', with room for n super index entries.
func dmlhFramesAt(n int) int64 { return aviIndxEntry + 16*int64(n) + 20 }
func moviListAt(n int) int64   { return aviIndxEntry + 16*int64(n) + 268 }

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
	a := &Writer{f: f, w: bufio.NewWriterSize(f, 256<<10), width: width, height: height, fps: fps,
		limit: riffLimit, room: superIndexEntries}
	if err := a.header(); err != nil {
		f.Close()
		return nil, err
	}
	return a, nil
}

// put appends v to the file: strings and byte slices as they are, other
// values little-endian. After a write error it does nothing and returns it.
func (a *Writer) put(v ...any) error {
	for _, x := range v {
		if a.err != nil {
			return a.err
		}
		switch x := x.(type) {
		case string:
			_, a.err = a.w.WriteString(x)
			a.off += int64(len(x))
		case []byte:
			_, a.err = a.w.Write(x)
			a.off += int64(len(x))
		default:
			a.err = binary.Write(a.w, binary.LittleEndian, x)
			a.off += int64(binary.Size(x))
		}
	}
	return a.err
}

// patch overwrites bytes already written at offset at with the numbers v,
// little-endian; the buffer must have been flushed past them.
func (a *Writer) patch(at int64, v ...any) {
	if a.err != nil {
		return
	}
	var b bytes.Buffer
	for _, x := range v {
		if err := binary.Write(&b, binary.LittleEndian, x); err != nil {
			a.err = err
			return
		}
	}
	_, a.err = a.f.WriteAt(b.Bytes(), at)
}

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

// Size is the number of bytes written so far. Close adds the indexes
// still to write (24 bytes a frame in the first RIFF, 8 in the others), so
// after Close it is the size of the file.
func (a *Writer) Size() int64 { return a.off }

func (a *Writer) header() error {
	usPerFrame, rate, scale := rateFields(a.fps)
	w, h := uint32(a.width), uint32(a.height)
	n := uint32(a.room)
	err := a.put("RIFF", uint32(0), "AVI ",
		"LIST", 492+16*n, "hdrl",
		"avih", uint32(56), usPerFrame, uint32(0), uint32(0), uint32(0x10), uint32(0), uint32(0), uint32(1), uint32(0), w, h,
		[4]uint32{},
		"LIST", 148+16*n, "strl",
		"strh", uint32(56), "vids", "MJPG", uint32(0), uint16(0), uint16(0), uint32(0), scale, rate, uint32(0), uint32(0),
		uint32(0), uint32(0xffffffff), uint32(0), [4]uint16{0, 0, uint16(w), uint16(h)},
		"strf", uint32(40), uint32(40), int32(w), int32(h), uint16(1), uint16(24), "MJPG", w*h*3, int32(0), int32(0), uint32(0), uint32(0),
		// super index: 4 longs an entry, AVI_INDEX_OF_INDEXES, none in use yet
		"indx", 24+16*n, uint16(4), uint8(0), uint8(0), uint32(0), "00dc", [3]uint32{},
		make([]byte, 16*n),
		"LIST", uint32(260), "odml",
		"dmlh", uint32(248), uint32(0), [61]uint32{},
		"LIST", uint32(0), "movi")
	if err != nil {
		return fmt.Errorf("avi: %w", err)
	}
	if want := moviListAt(a.room) + 12; a.off != want {
		return fmt.Errorf("avi: header is %d bytes, want %d", a.off, want)
	}
	a.moviAt = a.off - 4
	return nil
}

// riffSize is what the current RIFF would come to with one more frame
// chunk of n bytes (padding included) and its indexes.
func (a *Writer) riffSize(n int64) int64 {
	k := int64(len(a.chunks)) + 1
	size := a.off - a.riffAt + n + 32 + 8*k // frames, ix00
	if len(a.riffs) == 0 {
		size += 8 + 16*k // idx1
	}
	return size
}

// WriteFrame appends one JPEG image as the next frame.
func (a *Writer) WriteFrame(jpeg []byte) error {
	if a.err != nil {
		return fmt.Errorf("avi: %w", a.err)
	}
	n := int64(len(jpeg))
	chunkLen := 8 + n + n&1
	if len(a.chunks) > 0 && a.riffSize(chunkLen) > a.limit {
		if len(a.riffs)+2 > a.room { // this RIFF's entry and the next one's
			return ErrFull
		}
		if err := a.endRIFF(); err != nil {
			return err
		}
		if err := a.put("RIFF", uint32(0), "AVIX", "LIST", uint32(0), "movi"); err != nil {
			return fmt.Errorf("avi: %w", err)
		}
		a.riffAt, a.moviAt = a.off-24, a.off-4
	}
	if a.riffSize(chunkLen) > maxRIFF {
		return fmt.Errorf("avi: a frame of %d bytes does not fit in a RIFF", n)
	}
	a.chunks = append(a.chunks, chunk{at: a.off, size: uint32(n)})
	if err := a.put("00dc", uint32(n), jpeg); err != nil {
		return fmt.Errorf("avi: %w", err)
	}
	if n%2 == 1 {
		if err := a.put([]byte{0}); err != nil {
			return fmt.Errorf("avi: %w", err)
		}
	}
	if int(n) > a.maxLen {
		a.maxLen = int(n)
	}
	a.frames++
	return nil
}

// endRIFF finishes the current RIFF: its ix00 at the end of its movi list,
// for the first RIFF the idx1 after that, then its sizes and its entry in
// the super index, which are patched now rather than on Close because the
// RIFF is done with.
func (a *Writer) endRIFF() error {
	ixAt := a.off
	k := uint32(len(a.chunks))
	// standard index: 2 longs an entry, AVI_INDEX_OF_CHUNKS, offsets of the
	// frames' data from the base, the 'movi' fourcc
	a.put("ix00", 24+8*k, uint16(2), uint8(0), uint8(1), k, "00dc", uint64(a.moviAt), uint32(0))
	for _, c := range a.chunks {
		a.put(uint32(c.at+8-a.moviAt), c.size)
	}
	moviEnd := a.off
	if len(a.riffs) == 0 {
		// idx1: offsets of the frames' chunks from the 'movi' fourcc
		a.put("idx1", 16*k)
		for _, c := range a.chunks {
			a.put("00dc", uint32(0x10), uint32(c.at-a.moviAt), c.size)
		}
		a.first = int(k)
	}
	if a.err == nil {
		a.err = a.w.Flush()
	}
	i := int64(len(a.riffs))
	a.riffs = append(a.riffs, ixChunk{at: ixAt, size: uint32(moviEnd - ixAt), frames: k})
	a.patch(a.moviAt-4, uint32(moviEnd-a.moviAt))
	a.patch(a.riffAt+4, uint32(a.off-a.riffAt-8))
	a.patch(aviIndxEntry+16*i, uint64(ixAt), uint32(moviEnd-ixAt), k)
	a.patch(aviIndxInUse, uint32(len(a.riffs)))
	a.chunks = a.chunks[:0]
	if a.err != nil {
		return fmt.Errorf("avi: %w", a.err)
	}
	return nil
}

// Close writes the last indexes, patches the sizes, frame counts and the
// rate, and closes the file (without fsync; see CloseSync).
func (a *Writer) Close() error { return a.finish(false) }

// CloseSync is Close with the file's data synced to disk before it is
// closed, for a caller that renames it into place afterwards.
func (a *Writer) CloseSync() error { return a.finish(true) }

func (a *Writer) finish(sync bool) error {
	if a.err == nil {
		_ = a.endRIFF() // its error stays in a.err
	}
	us, rate, scale := rateFields(a.fps)
	a.patch(aviUSPerFrame, us)
	a.patch(aviTotalFrame, uint32(a.first))
	a.patch(aviBufferSize, uint32(a.maxLen+8))
	a.patch(aviStrhScale, scale, rate)
	a.patch(aviStrhLength, uint32(a.frames), uint32(a.maxLen+8))
	a.patch(dmlhFramesAt(a.room), uint32(a.frames))
	err := a.err
	if sync && err == nil {
		err = a.f.Sync()
	}
	if cerr := a.f.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if a.err == nil {
		a.err = os.ErrClosed
	}
	if err != nil {
		return fmt.Errorf("avi: %w", err)
	}
	return nil
}

var _ io.Closer = (*Writer)(nil)

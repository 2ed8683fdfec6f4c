// Package jpegbgr decodes a baseline colour JPEG straight to BGR with
// libjpeg-turbo, as OpenCV 4.6's cv::imdecode(IMREAD_COLOR) decodes it
// but without its decode to RGB and scalar byte swap to BGR (a few tenths
// of a millisecond on a 640x640 photo). libjpeg-turbo's BGR output is its
// RGB output's bytes reordered. It takes only the images OpenCV decodes
// that way and leaves upright: three YCbCr components, Huffman tables of
// their own (not MJPEG frames, which OpenCV gives default tables), and an
// Exif orientation of 1 or none; for any other, Open returns false and
// the caller decodes with OpenCV. A file libjpeg decodes only with a
// warning (cut short, or corrupt data) makes Read fail, for the same
// reason: OpenCV decodes it differently. cgo apart from vision, which has Go
// assembly.
package jpegbgr

/*
#cgo LDFLAGS: -ljpeg
#include <stdlib.h>
#include "jpegbgr.h"
*/
import "C"

import (
	"errors"
	"unsafe"
)

// Decoder is an open JPEG. Its buffer must not change until Close.
type Decoder struct {
	j    *C.dw_jpeg
	buf  unsafe.Pointer
	W, H int
}

// Open reads the header of the JPEG in buf. ok is false for an image
// this package does not decode (or not a JPEG).
func Open(buf []byte) (d *Decoder, ok bool) {
	if len(buf) < 4 || buf[0] != 0xff || buf[1] != 0xd8 {
		return nil, false
	}
	// libjpeg keeps a pointer to the data between calls: a C copy.
	p := C.CBytes(buf)
	var w, h C.int
	j := C.dw_jpeg_open((*C.uchar)(p), C.size_t(len(buf)), &w, &h)
	if j == nil {
		C.free(p)
		return nil, false
	}
	d = &Decoder{j: j, buf: p, W: int(w), H: int(h)}
	if d.W <= 0 || d.H <= 0 || d.W > maxSide || d.H > maxSide || d.W*d.H > maxPixels {
		// Left to OpenCV, which refuses it with an error rather than
		// trying to allocate the frame.
		d.Close()
		return nil, false
	}
	return d, true
}

// maxSide and maxPixels are OpenCV 4.6's default limits on a decoded
// image (CV_IO_MAX_IMAGE_WIDTH and _HEIGHT, CV_IO_MAX_IMAGE_PIXELS): a
// header that claims more is not decoded here.
const (
	maxSide   = 1 << 20
	maxPixels = 1 << 30
)

// ErrDecode is a libjpeg error while decoding.
var ErrDecode = errors.New("jpegbgr: decode error")

// Read decodes into dst, H rows of W BGR pixels step bytes apart.
func (d *Decoder) Read(dst []byte, step int) error {
	if step < 3*d.W || len(dst) < (d.H-1)*step+3*d.W {
		return errors.New("jpegbgr: destination too small")
	}
	if C.dw_jpeg_read(d.j, (*C.uchar)(unsafe.Pointer(&dst[0])), C.size_t(step)) != 0 {
		return ErrDecode
	}
	return nil
}

// Close frees the decoder.
func (d *Decoder) Close() {
	C.dw_jpeg_close(d.j)
	C.free(d.buf)
	d.j, d.buf = nil, nil
}

// Package cvsafe decodes images with OpenCV without letting OpenCV's C++
// exceptions reach Go. gocv v0.32's IMDecode and IMRead do not catch
// them, and an uncaught exception aborts the whole process: a JPEG whose
// header claims more than OpenCV's 2^30-pixel limit did so, from a file
// given to `dicewatch read` or a frame from an MJPEG camera. It is a
// package of its own because vision holds Go assembly, which cannot sit
// beside cgo.
package cvsafe

/*
#cgo pkg-config: opencv4
#cgo CXXFLAGS: -std=c++11
#include <stdlib.h>
#include "cvsafe.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"unsafe"

	"gocv.io/x/gocv"
)

// ErrNotImage is returned for bytes OpenCV does not decode as an image.
var ErrNotImage = errors.New("not a decodable image")

// Decode decodes b as a colour (BGR) image. The caller closes the Mat,
// which is returned only with a nil error.
func Decode(b []byte) (gocv.Mat, error) {
	if len(b) == 0 {
		return gocv.Mat{}, fmt.Errorf("%w: no bytes", ErrNotImage)
	}
	m := gocv.NewMat()
	var msg [512]C.char
	rc := C.dw_imdecode((*C.uchar)(unsafe.Pointer(&b[0])), C.size_t(len(b)), unsafe.Pointer(m.Ptr()), &msg[0], C.size_t(len(msg)))
	if rc != 0 {
		m.Close()
		return gocv.Mat{}, fmt.Errorf("%w: %s", ErrNotImage, C.GoString(&msg[0]))
	}
	if m.Empty() {
		m.Close()
		return gocv.Mat{}, ErrNotImage
	}
	return m, nil
}

// ReadFile reads and decodes the image file at path.
func ReadFile(path string) (gocv.Mat, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return gocv.Mat{}, err
	}
	return Decode(b)
}

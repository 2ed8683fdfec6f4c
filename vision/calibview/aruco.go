package calibview

/*
#cgo pkg-config: opencv4
#cgo CXXFLAGS: -std=c++11
#include <stdlib.h>
#include "aruco.h"
*/
import "C"

import (
	"fmt"
	"strings"
	"unsafe"

	"gocv.io/x/gocv"
)

// Dictionaries are the predefined ArUco dictionaries by name (the values
// are OpenCV's PREDEFINED_DICTIONARY_NAME numbers).
var Dictionaries = map[string]int{
	"4x4_50": 0, "4x4_100": 1, "4x4_250": 2, "4x4_1000": 3,
	"5x5_50": 4, "5x5_100": 5, "5x5_250": 6, "5x5_1000": 7,
	"6x6_50": 8, "6x6_100": 9, "6x6_250": 10, "6x6_1000": 11,
}

// Marker is one detected ArUco marker: its id and its four corners in
// image pixels (top-left, top-right, bottom-right, bottom-left of the
// marker image), refined to subpixel accuracy.
type Marker struct {
	ID      int
	Corners [4][2]float64
}

func dictionary(name string) (int, error) {
	d, ok := Dictionaries[strings.ToLower(name)]
	if !ok {
		return 0, fmt.Errorf("calibview: aruco dictionary %q is not supported", name)
	}
	return d, nil
}

const maxMarkers = 1024

// DetectMarkers finds ArUco markers of the named dictionary in an image
// (BGR or grey). The image is not modified.
func DetectMarkers(img gocv.Mat, dict string) ([]Marker, error) {
	d, err := dictionary(dict)
	if err != nil {
		return nil, err
	}
	gray := gocv.NewMat()
	defer gray.Close()
	switch img.Channels() {
	case 1:
		img.CopyTo(&gray)
	case 3:
		gocv.CvtColor(img, &gray, gocv.ColorBGRToGray)
	case 4:
		gocv.CvtColor(img, &gray, gocv.ColorBGRAToGray)
	default:
		return nil, fmt.Errorf("calibview: detect markers: %d channels", img.Channels())
	}
	if gray.Empty() || gray.Type() != gocv.MatTypeCV8U {
		return nil, fmt.Errorf("calibview: detect markers: need an 8-bit image")
	}
	if !gray.IsContinuous() {
		c := gray.Clone()
		gray.Close()
		gray = c
	}
	data, err := gray.DataPtrUint8()
	if err != nil {
		return nil, fmt.Errorf("calibview: detect markers: %w", err)
	}
	ids := make([]C.int, maxMarkers)
	corners := make([]C.float, maxMarkers*8)
	var cerr [256]C.char
	n := C.dw_aruco_detect((*C.uchar)(unsafe.Pointer(&data[0])), C.int(gray.Rows()), C.int(gray.Cols()), C.int(gray.Step()),
		C.int(d), C.int(maxMarkers), &ids[0], &corners[0], &cerr[0], C.int(len(cerr)))
	if n < 0 {
		return nil, fmt.Errorf("calibview: detect markers: %s", C.GoString(&cerr[0]))
	}
	out := make([]Marker, int(n))
	for i := range out {
		out[i].ID = int(ids[i])
		for k := 0; k < 4; k++ {
			out[i].Corners[k] = [2]float64{float64(corners[i*8+2*k]), float64(corners[i*8+2*k+1])}
		}
	}
	return out, nil
}

// MarkerBits returns marker id's cells including its one-cell black border,
// row by row (true is white), and the side in cells.
func MarkerBits(dict string, id int) ([]bool, int, error) {
	d, err := dictionary(dict)
	if err != nil {
		return nil, 0, err
	}
	var buf [16 * 16]C.uchar
	var cerr [256]C.char
	side := C.dw_aruco_bits(C.int(d), C.int(id), &buf[0], C.int(len(buf)), &cerr[0], C.int(len(cerr)))
	if side < 0 {
		return nil, 0, fmt.Errorf("calibview: aruco marker %d of %s: %s", id, dict, C.GoString(&cerr[0]))
	}
	s := int(side)
	bits := make([]bool, s*s)
	for i := range bits {
		bits[i] = buf[i] > 127
	}
	return bits, s, nil
}

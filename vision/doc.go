// Package vision is the only package that imports gocv. It owns frame
// sources (V4L2 devices, video files, RTSP/GStreamer URLs, directories of
// stills), motion and at-rest detection, dice detection, pip reading, and
// flatness and stacking evidence.
//
// Everything it hands to the rest of dicewatch is a plain Go struct in pixel
// or table-millimetre coordinates, never a gocv.Mat, so the packages
// downstream build with CGO_ENABLED=0 and test without OpenCV.
package vision

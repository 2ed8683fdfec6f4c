package main

import (
	"io"

	"github.com/dicewatch/dicewatch/vision/calibview"
)

// cmdCalibrate is `dicewatch calibrate`: find the reference markers or
// chessboard in a still, write the calibration file and an overlay PNG,
// and optionally print where dice boxes fall (see README.md, "Calibrating a table").
func cmdCalibrate(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return calibview.RunCalibrate(args, stdin, stdout, stderr)
}

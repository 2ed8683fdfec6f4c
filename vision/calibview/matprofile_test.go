//go:build matprofile

package calibview

import (
	"testing"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/calibration"
	"github.com/dicewatch/dicewatch/calibration/caltest"
)

// TestNoMatLeaks: go test -tags matprofile -run TestNoMatLeaks ./vision/calibview/
func TestNoMatLeaks(t *testing.T) {
	truth, _, err := caltest.Calibration(calibration.TemplatePaiGow)
	if err != nil {
		t.Fatal(err)
	}
	tpl, _ := calibration.LoadTemplate(calibration.TemplatePaiGow)
	a, _ := Render(Scene{Truth: truth, Aruco: tpl.Aruco})
	b, _ := Render(Scene{Truth: truth, Chessboard: tpl.Chessboard})
	start := gocv.MatProfile.Count()
	for _, tc := range []struct {
		method string
		img    gocv.Mat
	}{{calibration.MethodAruco, toMat(t, a)}, {calibration.MethodChessboard, toMat(t, b)}} {
		c, err := Calibrate(tc.img, Options{Template: tpl, Method: tc.method})
		if err != nil {
			t.Fatal(err)
		}
		o := DrawOverlay(tc.img, c)
		o.Close()
		tc.img.Close()
	}
	if n := gocv.MatProfile.Count(); n != start {
		t.Errorf("MatProfile count %d, want %d", n, start)
	}
}

package calibview

import (
	"fmt"
	"image"
	"math"
	"strings"
	"testing"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/calibration"
	"github.com/dicewatch/dicewatch/calibration/caltest"
)

func toMat(t testing.TB, img *image.RGBA) gocv.Mat {
	t.Helper()
	m, err := gocv.ImageToMatRGB(img)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// recoveryErrors compares a recovered calibration with the truth over a
// grid across the table (RMS) and at the table corners (max), in mm.
func recoveryErrors(truth, got *calibration.Calibration) (rmsMM, cornerMM float64) {
	var xmax, ymax float64
	for _, p := range truth.TablePolygon {
		xmax, ymax = math.Max(xmax, p[0]), math.Max(ymax, p[1])
	}
	var ss float64
	n := 0
	for i := 0; i <= 20; i++ {
		for j := 0; j <= 10; j++ {
			p := calibration.Point{X: xmax * float64(i) / 20, Y: ymax * float64(j) / 10}
			q := got.ToTable(truth.ToImage(p))
			e := math.Hypot(q.X-p.X, q.Y-p.Y)
			ss += e * e
			n++
		}
	}
	for _, p := range []calibration.Point{{X: 0, Y: 0}, {X: xmax, Y: 0}, {X: xmax, Y: ymax}, {X: 0, Y: ymax}} {
		q := got.ToTable(truth.ToImage(p))
		cornerMM = math.Max(cornerMM, math.Hypot(q.X-p.X, q.Y-p.Y))
	}
	return math.Sqrt(ss / float64(n)), cornerMM
}

// TestRecoveryPerMethod is the bar: on generated stills with a
// known homography, each reference method recovers table positions within
// 1 mm RMS across the table and 2 mm at the corners.
func TestRecoveryPerMethod(t *testing.T) {
	templates := calibration.TemplateNames()
	if testing.Short() || raceEnabled {
		templates = []string{calibration.TemplatePaiGow} // the smallest image
	}
	for _, name := range templates {
		for _, method := range []string{calibration.MethodAruco, calibration.MethodChessboard, calibration.MethodPoints} {
			t.Run(name+"/"+method, func(t *testing.T) {
				truth, _, err := caltest.Calibration(name)
				if err != nil {
					t.Fatal(err)
				}
				tpl, _ := calibration.LoadTemplate(name)
				scene := Scene{Truth: truth, NoiseGrey: 2, Seed: 1}
				opts := Options{Template: tpl, Method: method, Table: "t"}
				switch method {
				case calibration.MethodAruco:
					scene.Aruco = tpl.Aruco
				case calibration.MethodChessboard:
					scene.Chessboard = tpl.Chessboard
				case calibration.MethodPoints:
					// A technician clicks whole pixels at marks on the
					// layout: a 5 x 3 grid of marks inside the rail.
					opts.Points = clickedPoints(truth, tpl)
				}
				img, err := Render(scene)
				if err != nil {
					t.Fatal(err)
				}
				m := toMat(t, img)
				defer m.Close()
				got, err := Calibrate(m, opts)
				if err != nil {
					t.Fatal(err)
				}
				rmsMM, cornerMM := recoveryErrors(truth, got)
				t.Logf("%s %s: %d points, fit rms %.3f mm worst %.3f mm; recovered: table rms %.3f mm, corners max %.3f mm",
					name, method, len(got.Reference.Points), got.Reference.RMSErrorMM, got.Reference.WorstErrorMM, rmsMM, cornerMM)
				if rmsMM > 1 || cornerMM > 2 {
					t.Errorf("table rms %.3f mm (bar 1), corners %.3f mm (bar 2)", rmsMM, cornerMM)
				}
			})
		}
	}
}

// clickedPoints are marks at known layout positions, located in the image
// to the nearest whole pixel (as a person clicking would).
func clickedPoints(truth *calibration.Calibration, tpl calibration.Template) []calibration.RefPoint {
	var xmax, ymax float64
	for _, p := range tpl.Table {
		xmax, ymax = math.Max(xmax, p[0]), math.Max(ymax, p[1])
	}
	var pts []calibration.RefPoint
	for i := 0; i <= 4; i++ {
		for j := 0; j <= 2; j++ {
			mm := calibration.Point{X: xmax * (0.05 + 0.9*float64(i)/4), Y: ymax * (0.08 + 0.84*float64(j)/2)}
			px := truth.ToImage(mm)
			pts = append(pts, calibration.RefPoint{Label: fmt.Sprintf("mark %d,%d", i, j), Px: [2]float64{math.Round(px.X), math.Round(px.Y)}, MM: [2]float64{mm.X, mm.Y}})
		}
	}
	return pts
}

// BenchmarkCalibrateAruco: finding 24 markers and fitting, on a 1080p
// craps still. go test -run '^$' -bench Calibrate -benchmem ./vision/calibview/
func BenchmarkCalibrateAruco(b *testing.B) {
	truth, _, _ := caltest.Calibration(calibration.TemplateCraps12)
	tpl, _ := calibration.LoadTemplate(calibration.TemplateCraps12)
	img, err := Render(Scene{Truth: truth, Aruco: tpl.Aruco, NoiseGrey: 2, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	m := toMat(b, img)
	defer m.Close()
	for b.Loop() {
		if _, err := Calibrate(m, Options{Template: tpl, Method: calibration.MethodAruco}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCalibrateKeepsView: recalibrating over a base calibration keeps the
// installer's view of the table: a measured tilt always, a focal length in
// pixels only for a still of the base's size (it is in that image's
// pixels), the view then following the new homography. The generated
// camera is not a pinhole's, so the known focal length's view is refused
// as not agreeing with the homography.
func TestCalibrateKeepsView(t *testing.T) {
	const name = calibration.TemplatePaiGow
	truth, _, err := caltest.Calibration(name)
	if err != nil {
		t.Fatal(err)
	}
	tpl, _ := calibration.LoadTemplate(name)
	img, err := Render(Scene{Truth: truth, Aruco: tpl.Aruco, NoiseGrey: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	m := toMat(t, img)
	defer m.Close()
	tilt := 12.5
	focal := 1.2 * float64(truth.Camera.Width)
	for _, tc := range []struct {
		name     string
		cam      calibration.Camera
		wantTilt bool
		wantF    float64
		source   calibration.ViewSource
		reason   string
	}{
		{name: "measured tilt", cam: calibration.Camera{Width: truth.Camera.Width, Height: truth.Camera.Height, ViewTiltDeg: &tilt}, wantTilt: true, source: calibration.ViewMeasured},
		{name: "measured tilt, other size", cam: calibration.Camera{Width: 2 * truth.Camera.Width, Height: 2 * truth.Camera.Height, ViewTiltDeg: &tilt}, wantTilt: true, source: calibration.ViewMeasured},
		{name: "focal length", cam: calibration.Camera{Width: truth.Camera.Width, Height: truth.Camera.Height, FocalPx: focal}, wantF: focal, reason: "not a pinhole's view with the known focal length 1536 px"},
		{name: "focal length, other size", cam: calibration.Camera{Width: 2 * truth.Camera.Width, Height: 2 * truth.Camera.Height, FocalPx: 2 * focal}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := *truth
			base.Camera = tc.cam
			got, err := Calibrate(m, Options{Template: tpl, Method: calibration.MethodAruco, Table: "t", Base: &base})
			if err != nil {
				t.Fatal(err)
			}
			if got.Camera.Width != m.Cols() || got.Camera.Height != m.Rows() {
				t.Errorf("camera %dx%d, want the still's %dx%d", got.Camera.Width, got.Camera.Height, m.Cols(), m.Rows())
			}
			if (got.Camera.ViewTiltDeg != nil) != tc.wantTilt || tc.wantTilt && *got.Camera.ViewTiltDeg != tilt {
				t.Errorf("view_tilt_deg %v, want kept: %v", got.Camera.ViewTiltDeg, tc.wantTilt)
			}
			if got.Camera.FocalPx != tc.wantF {
				t.Errorf("focal_px %g, want %g", got.Camera.FocalPx, tc.wantF)
			}
			if tc.source != "" && got.View().Source != tc.source {
				t.Errorf("view %s, want source %q", got.View(), tc.source)
			}
			if tc.reason != "" && !strings.Contains(got.View().Reason, tc.reason) {
				t.Errorf("view %s, want it not known: %q", got.View(), tc.reason)
			}
		})
	}
}

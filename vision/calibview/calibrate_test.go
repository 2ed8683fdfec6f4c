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
// pixels scaled with the still's size when it is the base's shape (and
// said so), refused when it is another shape (the camera crops its
// sensor for it), the view then following the new homography. The
// generated camera is not a pinhole's, so the known focal length's view
// is refused as not agreeing with the homography. With method points the
// base's points are scaled to the still as well.
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
	w, h := truth.Camera.Width, truth.Camera.Height
	for _, tc := range []struct {
		name     string
		cam      calibration.Camera
		wantTilt bool
		wantF    float64
		source   calibration.ViewSource
		reason   string
		report   string
		wantErr  string
	}{
		{name: "measured tilt", cam: calibration.Camera{Width: w, Height: h, ViewTiltDeg: &tilt}, wantTilt: true, source: calibration.ViewMeasured},
		{name: "measured tilt, other size", cam: calibration.Camera{Width: 2 * w, Height: 2 * h, ViewTiltDeg: &tilt}, wantTilt: true, source: calibration.ViewMeasured},
		{name: "measured tilt, other shape", cam: calibration.Camera{Width: w, Height: w, ViewTiltDeg: &tilt}, wantTilt: true, source: calibration.ViewMeasured},
		{name: "focal length", cam: calibration.Camera{Width: w, Height: h, FocalPx: focal}, wantF: focal, reason: "not a pinhole's view with the known focal length 1536 px"},
		{name: "focal length, other size", cam: calibration.Camera{Width: 2 * w, Height: 2 * h, FocalPx: 2 * focal}, wantF: focal, reason: "not a pinhole's view with the known focal length 1536 px",
			report: "base: scaled from 2560x1920 to 1280x960 frames (x0.5): camera.focal_px 3072 -> 1536; a camera mode that crops its sensor rather than scaling it needs them measured at 1280x960\n"},
		{name: "focal length, other shape", cam: calibration.Camera{Width: w, Height: w, FocalPx: focal},
			wantErr: "calibview: -base: calibration: camera.focal_px is in pixels of a 1280x1280 frame, and a 1280x960 frame is another shape: the camera crops its sensor for it, so it is not known at 1280x960; measure it at 1280x960, or leave it out"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := *truth
			base.Camera = tc.cam
			var report strings.Builder
			got, err := Calibrate(m, Options{Template: tpl, Method: calibration.MethodAruco, Table: "t", Base: &base, Report: &report})
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("got %v, want %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if report.String() != tc.report {
				t.Errorf("report %q, want %q", report.String(), tc.report)
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
	t.Run("points, other size", func(t *testing.T) {
		// The base was calibrated from clicked points at twice the
		// still's size: its points follow the still.
		base := *truth
		base.Camera = calibration.Camera{Width: 2 * w, Height: 2 * h}
		pts := clickedPoints(truth, tpl)
		for i := range pts {
			pts[i].Px[0], pts[i].Px[1] = 2*pts[i].Px[0], 2*pts[i].Px[1]
		}
		base.Reference = &calibration.Reference{Method: calibration.MethodPoints, Points: pts}
		var report strings.Builder
		got, err := Calibrate(m, Options{Template: tpl, Method: calibration.MethodPoints, Table: "t", Base: &base, Report: &report})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(report.String(), "15 reference points' pixels") {
			t.Errorf("report %q", report.String())
		}
		if rmsMM, cornerMM := recoveryErrors(truth, got); rmsMM > 1 || cornerMM > 2 {
			t.Errorf("table rms %.3f mm (bar 1), corners %.3f mm (bar 2)", rmsMM, cornerMM)
		}
		if base.Reference.Points[0].Px != pts[0].Px {
			t.Error("the base's points were changed")
		}
	})
}

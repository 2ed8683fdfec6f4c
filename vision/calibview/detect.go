package calibview

import (
	"fmt"
	"image"
	"io"
	"math"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/calibration"
)

// FindAruco finds the layout's markers in a still and returns one
// reference point per marker corner (labelled "aruco 7 c2"). Markers not
// in the layout are ignored; fewer than 4 points is an error.
func FindAruco(img gocv.Mat, layout *calibration.ArucoLayout) ([]calibration.RefPoint, error) {
	ms, err := DetectMarkers(img, layout.Dictionary)
	if err != nil {
		return nil, err
	}
	var pts []calibration.RefPoint
	seen := map[int]bool{}
	for _, m := range ms {
		lm, ok := layout.Marker(m.ID)
		if !ok || seen[m.ID] {
			continue // unknown, or seen twice (a stray print): use the first
		}
		seen[m.ID] = true
		mm := layout.Corners(lm)
		for k := 0; k < 4; k++ {
			pts = append(pts, calibration.RefPoint{
				Label: fmt.Sprintf("aruco %d c%d", m.ID, k),
				Px:    m.Corners[k],
				MM:    [2]float64{mm[k].X, mm[k].Y},
			})
		}
	}
	if len(pts) < 4 {
		return nil, fmt.Errorf("calibview: found %d of %d aruco markers (%s) in the still; need at least 1", len(seen), len(layout.Markers), layout.Dictionary)
	}
	return pts, nil
}

// FindChessboard finds the calibration chessboard in a still and returns
// one reference point per inner corner (labelled "chess r2 c5").
func FindChessboard(img gocv.Mat, board *calibration.ChessboardLayout) ([]calibration.RefPoint, error) {
	gray := gocv.NewMat()
	defer gray.Close()
	if img.Channels() == 1 {
		img.CopyTo(&gray)
	} else {
		gocv.CvtColor(img, &gray, gocv.ColorBGRToGray)
	}
	corners := gocv.NewMat()
	defer corners.Close()
	size := image.Pt(board.Cols, board.Rows)
	// The classic detector with subpixel refinement is several times faster
	// than the sector-based one and as accurate on a flat printed mat; the
	// sector-based one is the fallback (it copes with blur and glare).
	if gocv.FindChessboardCorners(gray, size, &corners, gocv.CalibCBAdaptiveThresh|gocv.CalibCBNormalizeImage) {
		gocv.CornerSubPix(gray, &corners, image.Pt(5, 5), image.Pt(-1, -1),
			gocv.NewTermCriteria(gocv.Count|gocv.EPS, 50, 0.001))
	} else if !gocv.FindChessboardCornersSB(gray, size, &corners, gocv.CalibCBAccuracy) {
		return nil, fmt.Errorf("calibview: chessboard of %dx%d inner corners not found in the still", board.Cols, board.Rows)
	}
	n := board.Cols * board.Rows
	if corners.Rows()*corners.Cols() != n {
		return nil, fmt.Errorf("calibview: chessboard: got %d corners, want %d", corners.Rows()*corners.Cols(), n)
	}
	px := make([][2]float64, n)
	for i := 0; i < n; i++ {
		v := corners.GetVecfAt(i, 0)
		px[i] = [2]float64{float64(v[0]), float64(v[1])}
	}
	// The detector may start from either end of the board. Try both orders
	// and keep the one where the square before the first corner is dark.
	var best []calibration.RefPoint
	for _, reversed := range []bool{false, true} {
		pts := make([]calibration.RefPoint, n)
		for i := 0; i < n; i++ {
			j := i
			if reversed {
				j = n - 1 - i
			}
			c := board.Corner(i)
			pts[i] = calibration.RefPoint{Label: fmt.Sprintf("chess r%d c%d", i/board.Cols, i%board.Cols), Px: px[j], MM: [2]float64{c.X, c.Y}}
		}
		f, err := calibration.FitHomography(toPairs(pts))
		if err != nil {
			continue
		}
		inv, ok := calibration.Invert(f.H)
		if !ok {
			continue
		}
		if darkAt(gray, inv, calibration.Point{X: board.Origin[0] - board.SquareMM/2, Y: board.Origin[1] - board.SquareMM/2},
			calibration.Point{X: board.Origin[0] + board.SquareMM/2, Y: board.Origin[1] - board.SquareMM/2}) {
			best = pts
			break
		}
	}
	if best == nil {
		return nil, fmt.Errorf("calibview: chessboard found but its orientation is ambiguous (the square before the first corner must be dark)")
	}
	return best, nil
}

// darkAt reports whether the image at table point a (through inv, table ->
// image) is darker than at table point b.
func darkAt(gray gocv.Mat, inv [9]float64, a, b calibration.Point) bool {
	pa, pb := calibration.Apply(inv, a), calibration.Apply(inv, b)
	in := func(p calibration.Point) bool {
		return p.X >= 0 && p.Y >= 0 && int(p.X) < gray.Cols() && int(p.Y) < gray.Rows()
	}
	if !in(pa) || !in(pb) {
		return false
	}
	return gray.GetUCharAt(int(pa.Y), int(pa.X)) < gray.GetUCharAt(int(pb.Y), int(pb.X))
}

func toPairs(pts []calibration.RefPoint) []calibration.Pair {
	ps := make([]calibration.Pair, len(pts))
	for i, p := range pts {
		ps[i] = calibration.Pair{Px: calibration.Point{X: p.Px[0], Y: p.Px[1]}, MM: calibration.Point{X: p.MM[0], Y: p.MM[1]}}
	}
	return ps
}

// Options say how to calibrate a still.
type Options struct {
	Template calibration.Template
	Method   string // calibration.MethodAruco, MethodChessboard or MethodPoints
	// Points are method points' pairs, in the still's pixels (nil with
	// Base: the base's reference.points, scaled to the still).
	Points     []calibration.RefPoint
	Table      string
	MaxErrorMM float64
	// Base, when not nil, is an existing calibration whose zones, table
	// polygon, die model, lens and camera view (camera.view_tilt_deg,
	// camera.focal_px) are kept (a technician's adjusted template); only
	// the homography and reference are replaced. For a still of another
	// size its values in pixels are scaled (see
	// calibration.Calibration.ForFrame), or, for a still of another
	// shape, refused.
	Base *calibration.Calibration
	// Report, when not nil, is told what was scaled from Base.
	Report io.Writer
}

// Calibrate finds the reference points in the still (or takes
// opts.Points), fits the homography and returns a validated calibration.
// A calibration whose worst point error exceeds the limit is refused.
func Calibrate(img gocv.Mat, opts Options) (*calibration.Calibration, error) {
	ref := &calibration.Reference{Method: opts.Method, MaxErrorMM: opts.MaxErrorMM}
	var err error
	switch opts.Method {
	case calibration.MethodAruco:
		if opts.Template.Aruco == nil {
			return nil, fmt.Errorf("calibview: template %s has no aruco layout", opts.Template.Name)
		}
		ref.Aruco = opts.Template.Aruco
		ref.Points, err = FindAruco(img, ref.Aruco)
	case calibration.MethodChessboard:
		if opts.Template.Chessboard == nil {
			return nil, fmt.Errorf("calibview: template %s has no chessboard layout", opts.Template.Name)
		}
		ref.Chessboard = opts.Template.Chessboard
		ref.Points, err = FindChessboard(img, ref.Chessboard)
	case calibration.MethodPoints:
		ref.Points = append([]calibration.RefPoint(nil), opts.Points...)
	default:
		return nil, fmt.Errorf("calibview: method %q is not aruco, chessboard or points", opts.Method)
	}
	if err != nil {
		return nil, err
	}
	var c *calibration.Calibration
	if opts.Base != nil {
		// The base's homography is fitted again, and its reference
		// replaced but for method points' when none are given; what is
		// left in pixels (focal_px, the lens model, those points)
		// follows the still's size.
		cp := *opts.Base
		cp.Homography = [9]float64{}
		if opts.Method != calibration.MethodPoints || opts.Points != nil {
			cp.Reference = nil
		}
		var note string
		c, note, err = cp.ForFrame(img.Cols(), img.Rows())
		if err != nil {
			return nil, fmt.Errorf("calibview: -base: %w", err)
		}
		if note != "" && opts.Report != nil {
			fmt.Fprintf(opts.Report, "base: %s\n", note)
		}
		if opts.Method == calibration.MethodPoints && opts.Points == nil {
			if c.Reference == nil || len(c.Reference.Points) == 0 {
				return nil, fmt.Errorf("calibview: method points: the base has no reference.points")
			}
			ref.Points = append([]calibration.RefPoint(nil), c.Reference.Points...)
		}
	} else {
		c = opts.Template.New(opts.Table, img.Cols(), img.Rows(), [9]float64{})
	}
	if opts.Table != "" {
		c.Table = opts.Table
	}
	c.Reference = ref
	pairs := toPairs(ref.Points)
	for i := range pairs {
		pairs[i].Px = c.Undistort(pairs[i].Px)
	}
	f, err := calibration.FitHomography(pairs)
	if err != nil {
		return nil, fmt.Errorf("calibview: %w", err)
	}
	c.Homography = f.H
	if err := c.Validate(); err != nil {
		return c, err
	}
	return c, nil
}

// rms is a helper for reports.
func rms(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(s / float64(max(1, len(v))))
}

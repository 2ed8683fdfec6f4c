package calibration

import (
	"fmt"
	"math"
)

// ArucoLayout says where ArUco markers lie on the table for calibration.
// Each marker is a square of MarkerMM printed flat on the layout cloth and
// laid with the marker image's x axis along table +X and its y axis along
// table +Y, so corner 0 (the marker's top-left) is at
// (centre.x - s/2, centre.y - s/2).
type ArucoLayout struct {
	// Dictionary is the predefined dictionary, e.g. "4x4_50" (see
	// vision/calibview for the supported names).
	Dictionary string        `yaml:"dictionary"`
	MarkerMM   float64       `yaml:"marker_mm"`
	Markers    []ArucoMarker `yaml:"markers"`
}

// ArucoMarker is one marker's id and centre in table mm.
type ArucoMarker struct {
	ID     int        `yaml:"id"`
	Center [2]float64 `yaml:"center,flow"`
}

// Corners returns the table positions of marker m's four corners in
// OpenCV's order (top-left, top-right, bottom-right, bottom-left of the
// marker image).
func (a *ArucoLayout) Corners(m ArucoMarker) [4]Point {
	h := a.MarkerMM / 2
	x, y := m.Center[0], m.Center[1]
	return [4]Point{{x - h, y - h}, {x + h, y - h}, {x + h, y + h}, {x - h, y + h}}
}

// Marker returns the marker with the given id.
func (a *ArucoLayout) Marker(id int) (ArucoMarker, bool) {
	for _, m := range a.Markers {
		if m.ID == id {
			return m, true
		}
	}
	return ArucoMarker{}, false
}

func (a *ArucoLayout) validate() error {
	if a.Dictionary == "" {
		return fmt.Errorf("dictionary: is required")
	}
	if !(a.MarkerMM >= 10 && a.MarkerMM <= 500) {
		return fmt.Errorf("marker_mm: %g is out of range 10..500", a.MarkerMM)
	}
	seen := map[int]bool{}
	for i, m := range a.Markers {
		if m.ID < 0 || m.ID > 1000 {
			return fmt.Errorf("markers[%d].id: %d is out of range 0..1000", i, m.ID)
		}
		if seen[m.ID] {
			return fmt.Errorf("markers[%d].id: %d is used twice", i, m.ID)
		}
		seen[m.ID] = true
		if math.IsNaN(m.Center[0]) || math.IsNaN(m.Center[1]) || math.IsInf(m.Center[0], 0) || math.IsInf(m.Center[1], 0) {
			return fmt.Errorf("markers[%d].center: not finite", i)
		}
	}
	return nil
}

// ChessboardLayout says where a calibration chessboard (mat) lies on the
// table: Cols x Rows inner corners, SquareMM apart, the first inner corner
// at Origin, rows along table +X. The square diagonally before the first
// inner corner (towards -X, -Y) is dark; that tells the two ends apart, so
// the board must have an odd number of squares one way and even the other
// (Cols+1 and Rows+1 of different parity).
type ChessboardLayout struct {
	Cols     int        `yaml:"cols"`
	Rows     int        `yaml:"rows"`
	SquareMM float64    `yaml:"square_mm"`
	Origin   [2]float64 `yaml:"origin,flow"`
}

// Corner returns the table position of inner corner i in row-major order
// (i = row*Cols + col).
func (b *ChessboardLayout) Corner(i int) Point {
	return Point{b.Origin[0] + float64(i%b.Cols)*b.SquareMM, b.Origin[1] + float64(i/b.Cols)*b.SquareMM}
}

// Dark reports whether the square containing table point p is dark (the
// squares outside the board are neither; ok is false there).
func (b *ChessboardLayout) Dark(p Point) (dark, ok bool) {
	fx := (p.X-b.Origin[0])/b.SquareMM + 1
	fy := (p.Y-b.Origin[1])/b.SquareMM + 1
	if fx < 0 || fy < 0 || fx >= float64(b.Cols+1) || fy >= float64(b.Rows+1) {
		return false, false
	}
	return (int(fx)+int(fy))%2 == 0, true
}

func (b *ChessboardLayout) validate() error {
	if b.Cols < 3 || b.Rows < 3 || b.Cols > 100 || b.Rows > 100 {
		return fmt.Errorf("cols, rows: %dx%d inner corners, each must be 3..100", b.Cols, b.Rows)
	}
	if (b.Cols+b.Rows)%2 == 0 {
		return fmt.Errorf("cols, rows: %dx%d inner corners is symmetric under a half turn; one must be odd and one even", b.Cols, b.Rows)
	}
	if !(b.SquareMM >= 5 && b.SquareMM <= 1000) {
		return fmt.Errorf("square_mm: %g is out of range 5..1000", b.SquareMM)
	}
	if math.IsNaN(b.Origin[0]) || math.IsNaN(b.Origin[1]) || math.IsInf(b.Origin[0], 0) || math.IsInf(b.Origin[1], 0) {
		return fmt.Errorf("origin: not finite")
	}
	return nil
}

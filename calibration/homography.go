package calibration

import (
	"errors"
	"fmt"
	"math"
)

// Pair is one reference correspondence: a pixel in the image and the table
// position (mm) it shows.
type Pair struct {
	Px Point
	MM Point
}

// Fit is the result of fitting a homography to reference pairs.
type Fit struct {
	// H maps image pixels to table mm (row-major 3x3, H[8] == 1).
	H [9]float64
	// ErrorsMM is each pair's reprojection error in table mm: the distance
	// between H(Px) and MM.
	ErrorsMM []float64
	// RMSMM and MaxMM summarise ErrorsMM.
	RMSMM float64
	MaxMM float64
}

// ErrDegenerate is returned when the reference points cannot fix a
// homography (fewer than 4, or too close to a line).
var ErrDegenerate = errors.New("reference points are degenerate")

// FitHomography fits the image->table homography to at least 4 pairs with
// the normalised direct linear transform, then refines it by minimising the
// error in table mm (Levenberg-Marquardt). It is pure Go.
func FitHomography(pairs []Pair) (Fit, error) {
	if len(pairs) < 4 {
		return Fit{}, fmt.Errorf("calibration: %w: %d pairs, need at least 4", ErrDegenerate, len(pairs))
	}
	px := make([]Point, len(pairs))
	mm := make([]Point, len(pairs))
	for i, p := range pairs {
		px[i], mm[i] = p.Px, p.MM
		for _, v := range []float64{p.Px.X, p.Px.Y, p.MM.X, p.MM.Y} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return Fit{}, fmt.Errorf("calibration: %w: pair %d is not finite", ErrDegenerate, i)
			}
		}
	}
	tp, okp := normaliser(px)
	tm, okm := normaliser(mm)
	if !okp || !okm {
		return Fit{}, fmt.Errorf("calibration: %w: points lie on a line or coincide", ErrDegenerate)
	}
	np := make([]Point, len(px))
	nm := make([]Point, len(mm))
	for i := range px {
		np[i] = apply(tp, px[i])
		nm[i] = apply(tm, mm[i])
	}
	hn, ok := dlt(np, nm)
	if !ok {
		return Fit{}, fmt.Errorf("calibration: %w: no unique solution", ErrDegenerate)
	}
	hn = refine(hn, np, nm)
	tmInv, ok := invert3(tm)
	if !ok {
		return Fit{}, fmt.Errorf("calibration: %w", ErrDegenerate)
	}
	h := mul3(tmInv, mul3(hn, tp))
	if math.Abs(h[8]) < 1e-15 {
		return Fit{}, fmt.Errorf("calibration: %w: homography maps the image origin to infinity", ErrDegenerate)
	}
	for k := range h {
		h[k] /= h[8]
	}
	if _, ok := invert3(h); !ok || !finite9(h) {
		return Fit{}, fmt.Errorf("calibration: %w: homography not invertible", ErrDegenerate)
	}
	f := Fit{H: h}
	f.ErrorsMM, f.RMSMM, f.MaxMM = reprojection(h, pairs)
	return f, nil
}

// reprojection returns each pair's error in mm, the RMS and the maximum.
func reprojection(h [9]float64, pairs []Pair) (errs []float64, rms, max float64) {
	errs = make([]float64, len(pairs))
	var ss float64
	for i, p := range pairs {
		q := apply(h, p.Px)
		e := math.Hypot(q.X-p.MM.X, q.Y-p.MM.Y)
		errs[i] = e
		ss += e * e
		if e > max || math.IsNaN(e) {
			max = e
		}
	}
	if len(pairs) > 0 {
		rms = math.Sqrt(ss / float64(len(pairs)))
	}
	return errs, rms, max
}

// normaliser is Hartley's similarity: centroid to the origin, mean distance
// sqrt(2). ok is false when the points do not span two dimensions.
func normaliser(p []Point) ([9]float64, bool) {
	var cx, cy float64
	for _, q := range p {
		cx += q.X
		cy += q.Y
	}
	n := float64(len(p))
	cx /= n
	cy /= n
	var d, sxx, syy, sxy float64
	for _, q := range p {
		dx, dy := q.X-cx, q.Y-cy
		d += math.Hypot(dx, dy)
		sxx += dx * dx
		syy += dy * dy
		sxy += dx * dy
	}
	d /= n
	if d < 1e-9 {
		return [9]float64{}, false
	}
	// The smaller eigenvalue of the scatter matrix must not vanish (the
	// points are not on a line).
	tr, det := sxx+syy, sxx*syy-sxy*sxy
	disc := math.Sqrt(math.Max(tr*tr/4-det, 0))
	if tr/2-disc < 1e-6*(tr/2+disc) {
		return [9]float64{}, false
	}
	s := math.Sqrt2 / d
	return [9]float64{s, 0, -s * cx, 0, s, -s * cy, 0, 0, 1}, true
}

// dlt solves A h = 0 in the least-squares sense: h is the eigenvector of
// AᵀA with the smallest eigenvalue.
func dlt(px, mm []Point) ([9]float64, bool) {
	var ata [9][9]float64
	add := func(r [9]float64) {
		for i := 0; i < 9; i++ {
			for j := 0; j < 9; j++ {
				ata[i][j] += r[i] * r[j]
			}
		}
	}
	for i := range px {
		x, y := px[i].X, px[i].Y
		u, v := mm[i].X, mm[i].Y
		add([9]float64{x, y, 1, 0, 0, 0, -u * x, -u * y, -u})
		add([9]float64{0, 0, 0, x, y, 1, -v * x, -v * y, -v})
	}
	vals, vecs := jacobiEigen(ata)
	best := 0
	for i := 1; i < 9; i++ {
		if vals[i] < vals[best] {
			best = i
		}
	}
	var h [9]float64
	for i := 0; i < 9; i++ {
		h[i] = vecs[i][best]
	}
	if !finite9(h) {
		return h, false
	}
	return h, true
}

// jacobiEigen diagonalises a symmetric matrix; it returns the eigenvalues
// and the eigenvectors as columns.
func jacobiEigen(a [9][9]float64) ([9]float64, [9][9]float64) {
	var v [9][9]float64
	for i := range v {
		v[i][i] = 1
	}
	for sweep := 0; sweep < 100; sweep++ {
		var off float64
		for p := 0; p < 9; p++ {
			for q := p + 1; q < 9; q++ {
				off += a[p][q] * a[p][q]
			}
		}
		if off < 1e-30 {
			break
		}
		for p := 0; p < 9; p++ {
			for q := p + 1; q < 9; q++ {
				if math.Abs(a[p][q]) < 1e-300 {
					continue
				}
				theta := (a[q][q] - a[p][p]) / (2 * a[p][q])
				t := math.Copysign(1, theta) / (math.Abs(theta) + math.Sqrt(theta*theta+1))
				c := 1 / math.Sqrt(t*t+1)
				s := t * c
				for k := 0; k < 9; k++ {
					akp, akq := a[k][p], a[k][q]
					a[k][p] = c*akp - s*akq
					a[k][q] = s*akp + c*akq
				}
				for k := 0; k < 9; k++ {
					apk, aqk := a[p][k], a[q][k]
					a[p][k] = c*apk - s*aqk
					a[q][k] = s*apk + c*aqk
				}
				for k := 0; k < 9; k++ {
					vkp, vkq := v[k][p], v[k][q]
					v[k][p] = c*vkp - s*vkq
					v[k][q] = s*vkp + c*vkq
				}
			}
		}
	}
	var vals [9]float64
	for i := range vals {
		vals[i] = a[i][i]
	}
	return vals, v
}

// refine minimises the sum of squared distances |H(px) - mm|² over the
// eight free entries of H (H[8] fixed to 1) with Levenberg-Marquardt.
func refine(h [9]float64, px, mm []Point) [9]float64 {
	if math.Abs(h[8]) < 1e-12 {
		return h
	}
	for k := range h {
		h[k] /= h[8]
	}
	cost := func(h [9]float64) float64 {
		var s float64
		for i := range px {
			q := apply(h, px[i])
			dx, dy := q.X-mm[i].X, q.Y-mm[i].Y
			s += dx*dx + dy*dy
		}
		return s
	}
	lambda := 1e-3
	c := cost(h)
	for iter := 0; iter < 50; iter++ {
		var jtj [8][8]float64
		var jtr [8]float64
		for i := range px {
			x, y := px[i].X, px[i].Y
			w := h[6]*x + h[7]*y + 1
			u := (h[0]*x + h[1]*y + h[2]) / w
			v := (h[3]*x + h[4]*y + h[5]) / w
			ju := [8]float64{x / w, y / w, 1 / w, 0, 0, 0, -u * x / w, -u * y / w}
			jv := [8]float64{0, 0, 0, x / w, y / w, 1 / w, -v * x / w, -v * y / w}
			ru, rv := u-mm[i].X, v-mm[i].Y
			for a := 0; a < 8; a++ {
				jtr[a] += ju[a]*ru + jv[a]*rv
				for b := 0; b < 8; b++ {
					jtj[a][b] += ju[a]*ju[b] + jv[a]*jv[b]
				}
			}
		}
		improved := false
		for try := 0; try < 10; try++ {
			var m [8][8]float64
			rhs := [8]float64{}
			for a := 0; a < 8; a++ {
				m[a] = jtj[a]
				m[a][a] += lambda * (jtj[a][a] + 1e-12)
				rhs[a] = -jtr[a]
			}
			d, ok := solve8(m, rhs)
			if !ok {
				lambda *= 10
				continue
			}
			var hn [9]float64
			for k := 0; k < 8; k++ {
				hn[k] = h[k] + d[k]
			}
			hn[8] = 1
			if cn := cost(hn); cn < c {
				step := c - cn
				h, c = hn, cn
				lambda = math.Max(lambda/10, 1e-12)
				improved = true
				if step < 1e-14*(c+1e-30) {
					return h
				}
				break
			}
			lambda *= 10
		}
		if !improved {
			break
		}
	}
	return h
}

// solve8 solves m x = b by Gaussian elimination with partial pivoting.
func solve8(m [8][8]float64, b [8]float64) ([8]float64, bool) {
	const n = 8
	for col := 0; col < n; col++ {
		piv := col
		for r := col + 1; r < n; r++ {
			if math.Abs(m[r][col]) > math.Abs(m[piv][col]) {
				piv = r
			}
		}
		if math.Abs(m[piv][col]) < 1e-300 {
			return b, false
		}
		m[col], m[piv] = m[piv], m[col]
		b[col], b[piv] = b[piv], b[col]
		for r := col + 1; r < n; r++ {
			f := m[r][col] / m[col][col]
			for k := col; k < n; k++ {
				m[r][k] -= f * m[col][k]
			}
			b[r] -= f * b[col]
		}
	}
	var x [8]float64
	for r := n - 1; r >= 0; r-- {
		s := b[r]
		for k := r + 1; k < n; k++ {
			s -= m[r][k] * x[k]
		}
		x[r] = s / m[r][r]
	}
	return x, true
}

func mul3(a, b [9]float64) [9]float64 {
	var r [9]float64
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			for k := 0; k < 3; k++ {
				r[3*i+j] += a[3*i+k] * b[3*k+j]
			}
		}
	}
	return r
}

func finite9(h [9]float64) bool {
	for _, v := range h {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

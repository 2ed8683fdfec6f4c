package calibration

import (
	"fmt"
	"math"
)

// geomEps is the tolerance, in mm, for points on a boundary.
const geomEps = 1e-6

// openPolygon returns the polygon without a repeated closing point (a
// polygon may be written closed, last point == first, or open).
func openPolygon(p [][2]float64) [][2]float64 {
	if n := len(p); n > 1 && p[0] == p[n-1] {
		return p[:n-1]
	}
	return p
}

// checkPolygon checks that a polygon is a simple closed ring: finite
// points, at least 3 distinct vertices, a non-zero area and no two edges
// crossing or touching except neighbours at their shared vertex.
func checkPolygon(p [][2]float64) error {
	for i, v := range p {
		if math.IsNaN(v[0]) || math.IsNaN(v[1]) || math.IsInf(v[0], 0) || math.IsInf(v[1], 0) {
			return fmt.Errorf("point %d is not finite", i)
		}
	}
	p = openPolygon(p)
	if len(p) < 3 {
		return fmt.Errorf("not closed: needs at least 3 distinct points, got %d", len(p))
	}
	for i := range p {
		if p[i] == p[(i+1)%len(p)] {
			return fmt.Errorf("points %d and %d repeat", i, (i+1)%len(p))
		}
	}
	n := len(p)
	for i := 0; i < n; i++ {
		a, b := p[i], p[(i+1)%n]
		for j := i + 1; j < n; j++ {
			if j == i+1 || (i == 0 && j == n-1) {
				continue // neighbours share a vertex
			}
			c, d := p[j], p[(j+1)%n]
			if segmentsTouch(a, b, c, d) {
				return fmt.Errorf("self-intersecting: edges %d and %d cross", i, j)
			}
		}
	}
	if math.Abs(area(p)) < 1 {
		return fmt.Errorf("not closed: encloses no area")
	}
	return nil
}

// area is the signed shoelace area.
func area(p [][2]float64) float64 {
	var s float64
	for i := range p {
		j := (i + 1) % len(p)
		s += p[i][0]*p[j][1] - p[j][0]*p[i][1]
	}
	return s / 2
}

func cross(o, a, b [2]float64) float64 {
	return (a[0]-o[0])*(b[1]-o[1]) - (a[1]-o[1])*(b[0]-o[0])
}

func onSegment(a, b, p [2]float64) bool {
	return math.Min(a[0], b[0])-geomEps <= p[0] && p[0] <= math.Max(a[0], b[0])+geomEps &&
		math.Min(a[1], b[1])-geomEps <= p[1] && p[1] <= math.Max(a[1], b[1])+geomEps
}

// segmentsTouch reports whether segments ab and cd share any point.
func segmentsTouch(a, b, c, d [2]float64) bool {
	d1, d2 := cross(c, d, a), cross(c, d, b)
	d3, d4 := cross(a, b, c), cross(a, b, d)
	if ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0)) {
		return true
	}
	return (d1 == 0 && onSegment(c, d, a)) || (d2 == 0 && onSegment(c, d, b)) ||
		(d3 == 0 && onSegment(a, b, c)) || (d4 == 0 && onSegment(a, b, d))
}

// segmentsCross reports a proper crossing: the interiors of ab and cd meet
// at a single point and neither endpoint lies on the other segment.
func segmentsCross(a, b, c, d [2]float64) bool {
	d1, d2 := cross(c, d, a), cross(c, d, b)
	d3, d4 := cross(a, b, c), cross(a, b, d)
	return ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0))
}

// distToBoundary is the distance from p to the polygon's nearest edge.
func distToBoundary(poly [][2]float64, p Point) float64 {
	best := math.Inf(1)
	n := len(poly)
	for i := 0; i < n; i++ {
		a, b := poly[i], poly[(i+1)%n]
		best = math.Min(best, distToSegment(a, b, p))
	}
	return best
}

func distToSegment(a, b [2]float64, p Point) float64 {
	dx, dy := b[0]-a[0], b[1]-a[1]
	l2 := dx*dx + dy*dy
	t := 0.0
	if l2 > 0 {
		t = ((p.X-a[0])*dx + (p.Y-a[1])*dy) / l2
		t = math.Max(0, math.Min(1, t))
	}
	return math.Hypot(p.X-(a[0]+t*dx), p.Y-(a[1]+t*dy))
}

// insideOrOn reports whether p is inside poly or within tol mm of its edge.
func insideOrOn(poly [][2]float64, p Point, tol float64) bool {
	return inPolygon(poly, p) || distToBoundary(poly, p) <= tol
}

// strictlyInside reports whether p is inside poly and more than tol mm from
// its edge.
func strictlyInside(poly [][2]float64, p Point, tol float64) bool {
	return inPolygon(poly, p) && distToBoundary(poly, p) > tol
}

// polygonWithin reports whether every point of inner lies in outer (edges
// may touch) and no edge of inner crosses out of outer. It returns the index
// of the first vertex outside, or -1.
func polygonWithin(outer, inner [][2]float64) int {
	for i, v := range inner {
		if !insideOrOn(outer, Point{v[0], v[1]}, 0.5) {
			return i
		}
	}
	return -1
}

// overlap reports whether two simple polygons share interior area (edges
// that only touch do not overlap).
func overlap(a, b [][2]float64) bool {
	for i := range a {
		for j := range b {
			if segmentsCross(a[i], a[(i+1)%len(a)], b[j], b[(j+1)%len(b)]) {
				return true
			}
		}
	}
	// No proper crossings: either one contains the other, they are
	// identical, or they are apart or only touch. Probe points just inside
	// each polygon near its vertices and edge midpoints.
	return probeInside(a, b) || probeInside(b, a)
}

// probeInside reports whether some point well inside a is also well inside b.
func probeInside(a, b [][2]float64) bool {
	const tol = 0.01
	for _, p := range interiorProbes(a) {
		if strictlyInside(a, p, tol) && strictlyInside(b, p, tol) {
			return true
		}
	}
	return false
}

// interiorProbes are points near each vertex and edge midpoint, nudged
// towards the centroid of the vertices, plus that centroid.
func interiorProbes(p [][2]float64) []Point {
	var cx, cy float64
	for _, v := range p {
		cx += v[0]
		cy += v[1]
	}
	cx /= float64(len(p))
	cy /= float64(len(p))
	out := []Point{{cx, cy}}
	nudge := func(x, y float64) {
		for _, f := range []float64{0.001, 0.05} {
			out = append(out, Point{x + (cx-x)*f, y + (cy-y)*f})
		}
	}
	for i, v := range p {
		w := p[(i+1)%len(p)]
		nudge(v[0], v[1])
		nudge((v[0]+w[0])/2, (v[1]+w[1])/2)
	}
	return out
}

// inPolygon is the even-odd ray test.
func inPolygon(poly [][2]float64, p Point) bool {
	in := false
	n := len(poly)
	for i, j := 0, n-1; i < n; j, i = i, i+1 {
		xi, yi := poly[i][0], poly[i][1]
		xj, yj := poly[j][0], poly[j][1]
		if (yi > p.Y) != (yj > p.Y) && p.X < (xj-xi)*(p.Y-yi)/(yj-yi)+xi {
			in = !in
		}
	}
	return in
}

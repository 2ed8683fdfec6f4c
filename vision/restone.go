package vision

import (
	"math"
	"sort"
)

// A one has no pip spread to size it by (see sizeByPips): its size
// evidence is its outline's area alone. A red one resting on another die
// over red print stands out clearly only where it covers the felt and at
// its rim and pip; the rest of its top face differs from the print by
// less than restStrongDiff, and its area falls short of the face it is.
// Seed 33 throw 1107 die 1, a stacked 1 of true size 1.20, measured an
// area of 1.24 die areas (size 1.11, under the rules' 1.12 cut) inside an
// outline 1.29 by 1.35 edges: it was left a flat 1 at flatness 0.80.
// What stands out still reaches every side of the face, so the convex
// hull of it covers the face where the area does not.

// hullSide is the square root of the area of the convex hull of a
// component's pixels (each taken as a unit square), in pixels.
func hullSide(c []int, w int) float64 {
	if len(c) == 0 {
		return 0
	}
	// Each row's ends suffice: the hull of a row's pixels is spanned by
	// its first and last.
	lo := map[int]int{}
	hi := map[int]int{}
	for _, p := range c {
		x, y := p%w, p/w
		if v, ok := lo[y]; !ok || x < v {
			lo[y] = x
		}
		if v, ok := hi[y]; !ok || x > v {
			hi[y] = x
		}
	}
	pts := make([][2]float64, 0, 4*len(lo))
	for y, x := range lo {
		fy := float64(y)
		pts = append(pts, [2]float64{float64(x), fy}, [2]float64{float64(x), fy + 1},
			[2]float64{float64(hi[y] + 1), fy}, [2]float64{float64(hi[y] + 1), fy + 1})
	}
	return math.Sqrt(hullArea(pts))
}

// hullArea is the area of the convex hull of pts (monotone chain).
func hullArea(pts [][2]float64) float64 {
	if len(pts) < 3 {
		return 0
	}
	sort.Slice(pts, func(i, j int) bool {
		if pts[i][0] != pts[j][0] {
			return pts[i][0] < pts[j][0]
		}
		return pts[i][1] < pts[j][1]
	})
	cross := func(o, a, b [2]float64) float64 {
		return (a[0]-o[0])*(b[1]-o[1]) - (a[1]-o[1])*(b[0]-o[0])
	}
	hull := make([][2]float64, 0, 2*len(pts))
	for _, p := range pts {
		for len(hull) >= 2 && cross(hull[len(hull)-2], hull[len(hull)-1], p) <= 0 {
			hull = hull[:len(hull)-1]
		}
		hull = append(hull, p)
	}
	for i, t := len(pts)-2, len(hull)+1; i >= 0; i-- {
		p := pts[i]
		for len(hull) >= t && cross(hull[len(hull)-2], hull[len(hull)-1], p) <= 0 {
			hull = hull[:len(hull)-1]
		}
		hull = append(hull, p)
	}
	hull = hull[:len(hull)-1]
	var a float64
	for i := range hull {
		j := (i + 1) % len(hull)
		a += hull[i][0]*hull[j][1] - hull[j][0]*hull[i][1]
	}
	return math.Abs(a) / 2
}

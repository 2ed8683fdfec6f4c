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
	y0, y1 := c[0]/w, c[0]/w
	for _, p := range c {
		y0, y1 = min(y0, p/w), max(y1, p/w)
	}
	lo := make([]int, y1-y0+1)
	hi := make([]int, y1-y0+1)
	for i := range lo {
		lo[i], hi[i] = w, -1
	}
	for _, p := range c {
		x, i := p%w, p/w-y0
		lo[i], hi[i] = min(lo[i], x), max(hi[i], x)
	}
	pts := make([][2]float64, 0, 4*len(lo))
	for i := range lo {
		if hi[i] < 0 {
			continue
		}
		y := float64(y0 + i)
		pts = append(pts, [2]float64{float64(lo[i]), y}, [2]float64{float64(lo[i]), y + 1},
			[2]float64{float64(hi[i] + 1), y}, [2]float64{float64(hi[i] + 1), y + 1})
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

// restHullRim is how much a flat die's hull side (restDie.hull) exceeds
// its area's, in die edges: the blurred rim and the outline's steps that
// the hull bridges. Measured on the first-pass ones of seeds 1 to 3 and
// 31 to 33 (2,000 throws each; DICEWATCH_SCENE_ONES): the median excess
// over 3,016 flat ones was 0.049, and their hull sides ran from 0.93 to
// 1.11 (a true size of 1.00).
const restHullRim = 0.05

// oneSize is the size ratio of a face (size: its area's) with a one's
// hull taken in: a one read on the first pass whose hull, less its rim,
// measures more than one die's top (restOneDieSize) is that large,
// whatever its area says. Under that, the area's size stands, so a flat
// one keeps the size it had.
func (d restDie) oneSize(size float64) float64 {
	if d.hull == 0 {
		return size
	}
	if h := d.hull - restHullRim; h > restOneDieSize && h > size {
		return h
	}
	return size
}

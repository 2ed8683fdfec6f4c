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
//
// What stands out still reaches the face's far sides, so the convex hull
// of it spans the face; but the hull also bridges what is not the die: a
// face through the video's JPEG stands out as a blocky cross, whose hull
// takes in the felt between its arms (flat ones of testdata/restcrops:
// hull sides 1.13 to 1.15 against areas of 1.07). A pixel the hull takes
// in can be the die's face that failed to stand out only where the empty
// table there has the die's colour: anywhere else the face would have
// stood out. So the face's area is taken as what stands out plus the
// pixels within its hull whose empty table lies within restPrintLike of
// the die's body colour (printFilled): 1.155 for seed 33 throw 1107's die,
// and what it was (their areas) for the flat ones through JPEG.

// restPrintLike is the largest channel difference from the die's body
// colour (the median of what stands out) at which the empty table counts
// as print of the die's colour: a red die differs from red print by 10 to
// 40 levels (see restWeakDiff). On seed 33 throw 1107's die the filled
// size was 1.121, 1.145, 1.155, 1.155 and 1.157 at 30, 40, 50, 60 and 80.
const restPrintLike = 60

// printFilled is the side of a face's area (pixels, not die edges) with
// the print of its colour that its outline's convex hull bridges taken in
// (see above): c is the component that stands out, fr and bg the frame
// and empty-table patches it lies in.
func printFilled(c []int, fr, bg bgrPatch) float64 {
	if len(c) == 0 {
		return 0
	}
	w := fr.w
	hull := hullOf(c, w)
	x0, y0, x1, y1 := fr.w, fr.h, 0, 0
	for _, p := range hull {
		x0, y0 = min(x0, int(math.Floor(p[0]))), min(y0, int(math.Floor(p[1])))
		x1, y1 = max(x1, int(math.Ceil(p[0]))), max(y1, int(math.Ceil(p[1])))
	}
	x0, y0, x1, y1 = max(0, x0), max(0, y0), min(fr.w, x1), min(fr.h, y1)
	bw := x1 - x0
	// The body colour: each channel's median over what stands out (by
	// its histogram); in marks what stands out within the hull's box.
	var hist [3][256]int
	in := make([]bool, bw*(y1-y0))
	for _, p := range c {
		x, y := p%w, p/w
		in[(y-y0)*bw+x-x0] = true
		b, g, r := fr.at(x, y)
		hist[0][b]++
		hist[1][g]++
		hist[2][r]++
	}
	var body [3]byte
	for k := range hist {
		for v, acc := 0, 0; v < 256; v++ {
			if acc += hist[k][v]; 2*acc > len(c) {
				body[k] = byte(v)
				break
			}
		}
	}
	n := len(c)
	for y := y0; y < y1; y++ {
		// The hull's span along this row of pixel centres.
		fy := float64(y) + 0.5
		lo, hi := math.Inf(1), math.Inf(-1)
		for i := range hull {
			a, b := hull[i], hull[(i+1)%len(hull)]
			if (a[1]-fy)*(b[1]-fy) > 0 || a[1] == b[1] {
				continue
			}
			x := a[0] + (b[0]-a[0])*(fy-a[1])/(b[1]-a[1])
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
		for x := x0; x < x1; x++ {
			if fx := float64(x) + 0.5; in[(y-y0)*bw+x-x0] || fx < lo || fx > hi {
				continue
			}
			b, g, r := bg.at(x, y)
			if max(absDiff(b, body[0]), absDiff(g, body[1]), absDiff(r, body[2])) < restPrintLike {
				n++
			}
		}
	}
	return math.Sqrt(float64(n))
}

// hullOf is the convex hull of a component's pixels, each taken as a unit
// square, as a closed polygon of its corners in order.
func hullOf(c []int, w int) [][2]float64 {
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
	sort.Slice(pts, func(i, j int) bool {
		if pts[i][0] != pts[j][0] {
			return pts[i][0] < pts[j][0]
		}
		return pts[i][1] < pts[j][1]
	})
	cross := func(o, a, b [2]float64) float64 {
		return (a[0]-o[0])*(b[1]-o[1]) - (a[1]-o[1])*(b[0]-o[0])
	}
	// Andrew's monotone chain: the lower chain, then the upper.
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
	return hull[:len(hull)-1]
}

// oneSize is the size ratio of a face (size: its area's) with a one's
// print-filled area taken in (restDie.filled): a one read on the first
// pass whose filled area measures more than one die's top
// (restOneDieSize), and more than its area, is that large. Under that,
// the area's size stands, so a flat one keeps the size it had.
func (d restDie) oneSize(size float64) float64 {
	if d.filled > restOneDieSize && d.filled > size {
		return d.filled
	}
	return size
}

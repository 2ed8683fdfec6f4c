package vision

import "math"

// silhouette finds the die's outline around the candidate at full
// resolution and returns the rectangle that bounds it most tightly, for a
// face rectangle better than the segmentation's (found at about 18 px a
// die, so a few pixels and degrees off at full size). The die is the
// pixels that differ from the floor's colour (the median colour of the
// region's corners, outside any die of the candidate's size centred
// there) by more than an Otsu threshold, connected to the candidate's
// centre. It reports false when the outline is not a die's alone: it
// reaches the region's border (a touching die, a wall), it fills its
// rectangle poorly, or its rectangle is far from the candidate's size or
// far from square.
func (s *faceScratch) silhouette(fr bgrImage, c candidate) (candidate, bool) {
	e := max(c.w, c.h)
	rad := 0.8*e + 2
	x0, y0 := int(math.Floor(c.cx-rad)), int(math.Floor(c.cy-rad))
	x1, y1 := int(math.Ceil(c.cx+rad)), int(math.Ceil(c.cy+rad))
	if x0 < 0 || y0 < 0 || x1 > fr.w || y1 > fr.h {
		return c, false
	}
	w, h := x1-x0, y1-y0
	n := w * h
	if cap(s.silD) < n {
		s.silD = make([]int32, n)
		s.silL = make([]bool, n)
	}
	dist, in := s.silD[:n], s.silL[:n]
	// The floor: per-channel median of the pixels farther than 0.72 of
	// an edge from the centre (beyond a die's corners at any turn).
	var hist [3][256]int
	cnt := 0
	r2 := (0.72 * e) * (0.72 * e)
	// Rows of the region as slices of known length: no bounds checks
	// inside.
	for y := y0; y < y1; y++ {
		dy := float64(y) + 0.5 - c.cy
		row := fr.pix[(y*fr.w+x0)*3:][:3*w]
		for x := x0; x < x1; x++ {
			dx := float64(x) + 0.5 - c.cx
			if dx*dx+dy*dy < r2 {
				continue
			}
			p := row[(x-x0)*3:][:3]
			hist[0][p[0]]++
			hist[1][p[1]]++
			hist[2][p[2]]++
			cnt++
		}
	}
	if cnt < 20 {
		return c, false
	}
	var bg [3]int32
	for ch := range bg {
		bg[ch] = int32(percentile(hist[ch][:], cnt, 0.5))
	}
	var dh [766]int
	b0, b1, b2 := bg[0], bg[1], bg[2]
	for y := y0; y < y1; y++ {
		row := fr.pix[(y*fr.w+x0)*3:][:3*w]
		drow := dist[(y-y0)*w:][:w]
		for i := range drow {
			p := row[3*i:][:3]
			d := abs32(int32(p[0])-b0) + abs32(int32(p[1])-b1) + abs32(int32(p[2])-b2)
			drow[i] = d
			dh[d]++
		}
	}
	thr := int32(max(otsu(dh[:], n), silMinContrast))
	// The outline's pixels connected to those near the centre.
	for i := range in {
		in[i] = false
	}
	s.stack = s.stack[:0]
	seedR := 0.2 * e
	for y := int(c.cy - seedR); y <= int(c.cy+seedR); y++ {
		for x := int(c.cx - seedR); x <= int(c.cx+seedR); x++ {
			i := (y-y0)*w + x - x0
			if dist[i] > thr && !in[i] {
				in[i] = true
				s.stack = append(s.stack, x-x0|(y-y0)<<16)
			}
		}
	}
	// Stack entries hold a pixel as x | y<<16 (the region is far smaller
	// than 65536 a side): no division to find its column.
	area := 0
	for len(s.stack) > 0 {
		p := s.stack[len(s.stack)-1]
		s.stack = s.stack[:len(s.stack)-1]
		px, py := p&0xffff, p>>16
		if px == 0 || py == 0 || px == w-1 || py == h-1 {
			return c, false // reaches the border: not this die's alone
		}
		area++
		i := py*w + px
		for k, j := range [4]int{i - 1, i + 1, i - w, i + w} {
			if !in[j] && dist[j] > thr {
				in[j] = true
				s.stack = append(s.stack, p+silStep[k])
			}
		}
	}
	if area < 20 {
		return c, false
	}
	// The outline's leftmost and rightmost pixels on each row: along a
	// row both projections below change monotonically with x (and so
	// does their rounding), so the extremes of any projection are among
	// them. (The outline never reaches the region's border.)
	pts := s.silP[:0]
	defer func() { s.silP = pts[:0] }()
	for y := 1; y < h-1; y++ {
		row := in[y*w:][:w]
		lo := 1
		for lo < w-1 && !row[lo] {
			lo++
		}
		if lo == w-1 {
			continue
		}
		hi := w - 2
		for !row[hi] {
			hi--
		}
		py := float64(y+y0) + 0.5
		pts = append(pts, [2]float64{float64(lo+x0) + 0.5, py})
		if hi != lo {
			pts = append(pts, [2]float64{float64(hi+x0) + 0.5, py})
		}
	}
	// The tightest rectangle, turn by turn (one degree).
	// Only the hull's boundary can hold a projection's extreme (the
	// points are in row order; see hullBoundary).
	hull := hullBoundary(pts, s.silH[:0])
	s.silH = hull[:0]
	best := minRect(hull, 1, silCos[:], silSin[:])
	// The outline with its holes (pips the floor's colour) filled: the
	// pixels the floor does not reach from the region's border. A die
	// seen from above fills its rectangle but for rounded corners; an
	// outline with a shadow's wedge or a neighbour's corner attached
	// fills it less. (A cube seen at a slant, a hexagon, fills 0.75 when
	// regular: this does not tell it from a face.)
	// The border is all floor (the outline does not reach it): it is
	// reached, and its inner neighbours start the flood. Every pixel
	// flooded is then inside the border, its four neighbours in the
	// region.
	for x := 0; x < w; x++ {
		in[x], in[n-w+x] = true, true
	}
	for y := 1; y < h-1; y++ {
		in[y*w], in[y*w+w-1] = true, true
	}
	reached := 2*w + 2*(h-2)
	s.stack = s.stack[:0]
	reach := func(j int) {
		if !in[j] {
			in[j] = true
			reached++
			s.stack = append(s.stack, j)
		}
	}
	for x := 1; x < w-1; x++ {
		reach(w + x)
		reach(n - 2*w + x)
	}
	for y := 1; y < h-1; y++ {
		reach(y*w + 1)
		reach(y*w + w - 2)
	}
	for len(s.stack) > 0 {
		i := s.stack[len(s.stack)-1]
		s.stack = s.stack[:len(s.stack)-1]
		reach(i - 1)
		reach(i + 1)
		reach(i - w)
		reach(i + w)
	}
	if float64(n-reached) < silMinFill*best.w*best.h {
		return c, false
	}
	edge := (best.w + best.h) / 2
	if min(best.w, best.h) < silMinSquare*max(best.w, best.h) || edge < 0.7*c.edge || edge > 1.4*c.edge {
		return c, false
	}
	out := c
	out.cx, out.cy, out.w, out.h, out.edge = best.cx, best.cy, best.w, best.h, edge
	// The candidate's angle modulo a quarter turn, nearest the outline's.
	out.angle = c.angle + math.Remainder(best.angle-c.angle, math.Pi/2)
	return out, true
}

// silStep is the change of a packed x | y<<16 pixel to its left, right,
// upper and lower neighbour.
var silStep = [4]int{-1, 1, -1 << 16, 1 << 16}

// silCos and silSin hold silhouette's angles' cosines and sines.
var silCos, silSin = func() (c, s [90]float64) {
	for deg := range c {
		a := float64(deg) * math.Pi / 180
		c[deg], s[deg] = math.Cos(a), math.Sin(a)
	}
	return c, s
}()

// silMinContrast is the least colour distance from the floor (sum of
// three channels) a die's outline pixel must have.
const silMinContrast = 45

// silMinFill is the least share of its rectangle an outline, holes
// filled, must cover: a die seen from above covers about 0.75 to 0.9 of
// it on byler_d6 (rounded corners, soft edges); one with a shadow's
// wedge or a neighbour's corner attached covers less. On matteo_webcam
// it kept out an outline of 0.70 (a large die with its sides) whose
// turn gave a wrong value.
const silMinFill = 0.72

// silMinSquare is the least short-over-long side of an outline's
// rectangle taken as a face.
const silMinSquare = 0.85

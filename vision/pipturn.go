package vision

import "math"

// pipTurn turns and moves the candidate's rectangle so that two or three
// pips found in a row there lie on its diagonal, centred, as a 3's do.
// The die's outline or its gradients may miss the face's turn (rounded
// corners, marbling, a cut-off side); the pips' own places do not depend
// on them. It returns the rectangles to read (none when the pips make no
// such row, or when the rectangle already has about their turn): with
// three pips, centred on the middle one; with two, which may be a 3's
// ends or its middle and one end (the other end cut off by the
// rectangle), centred on their middle and on the one nearer the
// rectangle's centre.
func (s *faceScratch) pipTurn(fr bgrImage, c candidate) []candidate {
	s.sample(fr, c)
	s.pipMap()
	pts, _ := s.blobs()
	if len(pts) < 2 || len(pts) > 3 {
		pts = s.peaks()
	}
	if len(pts) < 2 || len(pts) > 3 {
		return nil
	}
	const shrink = 0.94 // as in sample
	// Frame-pixel offsets in the rectangle's own axes.
	var p [3][2]float64
	for i, q := range pts {
		p[i] = [2]float64{q[0] * c.w * shrink, q[1] * c.h * shrink}
	}
	n := len(pts)
	// The two pips farthest apart are the row's ends.
	a, b := 0, 1
	if n == 3 {
		best := -1.0
		for i := 0; i < 3; i++ {
			for j := i + 1; j < 3; j++ {
				if d := math.Hypot(p[i][0]-p[j][0], p[i][1]-p[j][1]); d > best {
					best, a, b = d, i, j
				}
			}
		}
	}
	dx, dy := p[b][0]-p[a][0], p[b][1]-p[a][1]
	l := math.Hypot(dx, dy)
	e := (c.w + c.h) / 2
	// A 3's diagonal spans 2*sqrt2 pip offsets: over the layout fit's
	// range of offsets (0.14 to 0.42 of the patch) 0.37 to 1.1 of the
	// rectangle's edge, less when the rectangle holds more than the face
	// or the row is a middle and an end. Its middle is near the
	// rectangle's centre.
	mx, my := (p[a][0]+p[b][0])/2, (p[a][1]+p[b][1])/2
	if l < 0.25*e || l > 1.1*e || math.Hypot(mx, my) > 0.2*e {
		return nil
	}
	centres := [][2]float64{{mx, my}}
	if n == 3 {
		m := 3 - a - b
		// The third pip in the middle of the row.
		if math.Hypot(p[m][0]-mx, p[m][1]-my) > 0.15*l {
			return nil
		}
		centres[0] = p[m]
	} else {
		near := p[a]
		if math.Hypot(p[b][0], p[b][1]) < math.Hypot(near[0], near[1]) {
			near = p[b]
		}
		centres = append(centres, near)
	}
	turn := math.Remainder(math.Atan2(dy, dx)-math.Pi/4, math.Pi/2)
	// matchLayout turns two or three pips by up to 0.45 radians itself.
	if math.Abs(turn) <= pipTurnMin {
		return nil
	}
	// Centred on the face's centre as the row shows it: a row of pips
	// from a larger face (a 6's column) then has the rest of its face
	// around it, in view of both cues.
	co, si := math.Cos(c.angle), math.Sin(c.angle)
	var out []candidate
	for _, q := range centres {
		ct := c
		ct.cx += q[0]*co - q[1]*si
		ct.cy += q[0]*si + q[1]*co
		ct.angle += turn
		out = append(out, ct)
	}
	return out
}

// pipTurnMin is the least turn pipTurn reports: smaller ones the layout
// fit and read1's own re-turn find.
const pipTurnMin = 0.3

// secondTurned is a second look's value from the rectangle turned to the
// pips, capped as every second look's is; like the other second looks it
// must read 3 or more (a 4, 5 or 6 whose other pips are missed reads 2).
func secondTurned(f faceValue) (faceValue, bool) {
	f.conf = min(f.conf, secondLookMaxConf)
	return f, f.value >= 3 && f.conf >= retryBelow
}

// squareLook reads a face whose rectangle is far from square again in
// square rectangles, its short side stretched to the long one's length
// towards either end: a rectangle cut short by a row of a 6 holds the
// square layout of a 4. Only a 6 with all its pips found counts, and only
// from one of the two ends.
func (s *faceScratch) squareLook(fr bgrImage, c candidate) (faceValue, bool) {
	long, short := max(c.w, c.h), min(c.w, c.h)
	d := (long - short) / 2
	// The short side's axis in the frame.
	ax, ay := math.Cos(c.angle), math.Sin(c.angle)
	if c.h < c.w {
		ax, ay = -ay, ax
	}
	var got faceValue
	n := 0
	for _, sg := range []float64{-1, 1} {
		cs := c
		cs.w, cs.h, cs.edge = long, long, long
		cs.cx += sg * d * ax
		cs.cy += sg * d * ay
		f := s.readAt(fr, cs)
		if f.value == 6 && f.blobs == 6 && f.conf >= retryBelow {
			got = f
			n++
		}
	}
	if n != 1 {
		return faceValue{}, false
	}
	got.conf = min(got.conf, secondLookMaxConf)
	return got, true
}

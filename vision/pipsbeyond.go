package vision

import "math"

// Pips past the layout's corners.
//
// A 4, 5 or 6 sets its corner pips on a square whose side is the pip
// spread twice over (about half the face's edge); the face's rim ends a
// quarter of that side past each corner pip, so one side's length past a
// corner along either of its sides lies off the face: on the table, a
// side face, a shadow, or a neighbour. A layout read on part of a larger
// pattern is different: on generated still 84838 a 5 resting on another
// die, turned by an eighth of a turn, had its centre pip and two of its
// corners taken, with a mark of the die under it, as a 4 at half the
// 5's size (size ratio 0.92 against its true 1.19, so nothing called it
// stacked), and the 5's two other pips lay exactly one side past that
// 4's corners, on the 5's own face.
//
// beyondPips counts those spots: for each corner of the read layout,
// the two points one side's length on from it along its sides, each
// taken when it looks like one of the read pips on the read face's body
// (pipLikeAt).

// beyondCorners are the read layout's corner pips in turn round their
// centre (the four farthest from it), false for a layout that is not a
// 4, 5 or 6 of that many pips.
func beyondCorners(pips *[6][3]float64, value int) ([4][2]float64, bool) {
	var c [4][2]float64
	if value < 4 || value > 6 {
		return c, false
	}
	n := 0
	var mx, my float64
	for _, p := range pips {
		if p[2] > 0 {
			n++
			mx += p[0]
			my += p[1]
		}
	}
	if n != value {
		return c, false
	}
	mx /= float64(n)
	my /= float64(n)
	type pt struct{ x, y, d, a float64 }
	var buf [6]pt
	ps := buf[:0]
	for _, p := range pips {
		if p[2] > 0 {
			ps = append(ps, pt{p[0], p[1], math.Hypot(p[0]-mx, p[1]-my), math.Atan2(p[1]-my, p[0]-mx)})
		}
	}
	// Insertion sorts (six points at most): by distance, farthest
	// first, then the four corners by angle.
	for i := 1; i < len(ps); i++ {
		for j := i; j > 0 && ps[j].d > ps[j-1].d; j-- {
			ps[j], ps[j-1] = ps[j-1], ps[j]
		}
	}
	ps = ps[:4]
	for i := 1; i < len(ps); i++ {
		for j := i; j > 0 && ps[j].a < ps[j-1].a; j-- {
			ps[j], ps[j-1] = ps[j-1], ps[j]
		}
	}
	for i, p := range ps {
		c[i] = [2]float64{p.x, p.y}
	}
	return c, true
}

// ringLevel is how far from the body's colour b the frame lies round
// (x, y), ring pixels out: the pipLikeRing-th smallest colour distance
// of eight points on that circle (so that many of them lie within it).
func ringLevel(fr bgrImage, x, y float64, b [3]float64, ring float64) float64 {
	var ds [8]float64
	for i := range ds {
		a := float64(i) * math.Pi / 4
		ds[i] = colDist(fr.bilinear(x+ring*math.Cos(a), y+ring*math.Sin(a)), b)
	}
	for i := 1; i < len(ds); i++ {
		for j := i; j > 0 && ds[j] < ds[j-1]; j-- {
			ds[j], ds[j-1] = ds[j-1], ds[j]
		}
	}
	return ds[pipLikeRing-1]
}

// pipLikeAt reports whether the frame at (x, y) looks like a pip on the
// read face: its colour (mean3) nearer the pips' colour pc than the
// body's colour b, at least half the pip-to-body contrast from b, and
// its ring level (ringLevel) no farther from b than lim, the read pips'
// own ring level with a margin, capped (beyondPips): a neighbour's pip
// on a body of another colour, or a dark spot on the table, has a ring
// off the face's body.
func pipLikeAt(fr bgrImage, x, y float64, pc, b [3]float64, ring, lim float64) bool {
	if x < ring+1 || y < ring+1 || x > float64(fr.w-2)-ring || y > float64(fr.h-2)-ring {
		return false
	}
	c := fr.mean3(x, y)
	if colDist(c, pc) >= colDist(c, b) || colDist(c, b) < 0.5*colDist(pc, b) {
		return false
	}
	return ringLevel(fr, x, y, b, ring) <= lim
}

// pipLikeRing is the count of ring points that must lie near the body
// (ringLevel); pipLikeMargin the margin on the read pips' ring level,
// and pipLikeBody the share of the pip-to-body contrast that caps it
// (on a marbled or glared body the read pips' own rings lie far from
// the body's median colour, and a light table round a light-pipped
// neighbour would pass) (pipLikeAt).
const (
	pipLikeRing   = 6
	pipLikeMargin = 1.25
	pipLikeBody   = 0.25
)

// beyondPips counts the pip-like spots one side past the read layout's
// corners (see above); -1 when the layout is not a 4, 5 or 6 read from
// that many pips. pips and body are the read's (faceValue.pips, .body).
func beyondPips(fr bgrImage, pips *[6][3]float64, value int, body [3]float64) int {
	c, ok := beyondCorners(pips, value)
	if !ok {
		return -1
	}
	var pc [3]float64
	var rbuf [6]float64
	rs := rbuf[:0]
	for _, p := range pips {
		if p[2] <= 0 {
			continue
		}
		q := fr.mean3(p[0], p[1])
		for k := range pc {
			pc[k] += q[k] / float64(value)
		}
		rs = append(rs, p[2])
	}
	ring := 2 * sortedMedian(rs)
	lim := 0.0
	for _, p := range pips {
		if p[2] > 0 {
			lim = max(lim, ringLevel(fr, p[0], p[1], body, ring))
		}
	}
	lim = min(lim*pipLikeMargin, pipLikeBody*colDist(pc, body))
	n := 0
	for i := range c {
		for _, j := range [2]int{(i + 3) % 4, (i + 1) % 4} {
			x := 2*c[i][0] - c[j][0]
			y := 2*c[i][1] - c[j][1]
			if pipLikeAt(fr, x, y, pc, body, ring, lim) {
				n++
			}
		}
	}
	return n
}

// beyondLook withholds the value of each die whose read layout shows
// minBeyond pip-like spots or more one side past its corners (beyondPips):
// the layout is likely part of a larger pattern, the value and the pips'
// measure of the die's size both wrong. The die is reported unread.
// Only with a known die size and the dice's pip spread (readCandidate
// measures beyondPips only then): without a size, on the photo sets it
// withheld four values (a 6 on byler_d6, a 4, a 6 and a 4 on
// matteo_webcam), and a 4 or 6 withheld is one ruler fewer for the frame's relative sizes
// (relativeSize), which moved other dice's sizes.
//
// The face rectangle must also be large for the pips' measure (its edge
// over the expected edge at least minBeyondFace times the size ratio
// the pips gave): a layout read on part of a larger pattern measures the
// die small (still 84838: face 1.22, pips 0.92, 1.33 times), while a
// whole layout whose lattice runs on into a touching neighbour of the
// same style (the eight right values the count alone withheld on stills
// 0..999) has face and pips agree (0.98 to 1.14). Without the dice's pip
// spread (ReaderOptions.PipSpread) the size ratio is the face's own
// (sizeEvidence; pipSizes sizes nothing), so the face condition never
// holds and nothing would be withheld: readCandidate does not count the
// spots then.
func (r *Reader) beyondLook(dets []Detection) {
	if beyondOff {
		return
	}
	for i := range dets {
		d := &dets[i]
		if d.Value == 0 || d.Value != d.beyondOf || d.beyond < minBeyond || d.SizeRatio <= 0 {
			continue
		}
		if e := r.expectedAt(d.CX, d.CY); e > 0 && d.EdgePx >= minBeyondFace*e*d.SizeRatio {
			d.Value, d.Confidence = 0, 0
		}
	}
}

// minBeyond and minBeyondFace: see beyondLook.
const (
	minBeyond     = 2
	minBeyondFace = 1.2
)

// beyondOff turns beyondLook off (tests' before-and-after figures).
var beyondOff bool

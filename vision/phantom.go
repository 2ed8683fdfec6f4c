package vision

import (
	"math"
	"sort"
)

// pipRingSamples is how many points pipEnclosure reads on the ring
// around each pip.
const pipRingSamples = 16

// pipRingDirs are the unit steps to pipEnclosure's ring points, worked
// out once rather than for every pip of every value checked.
var pipRingDirs = func() (d [pipRingSamples][2]float64) {
	for i := range d {
		a := 2 * math.Pi * float64(i) / pipRingSamples
		d[i] = [2]float64{math.Cos(a), math.Sin(a)}
	}
	return d
}()

// pipEnclosure measures how far the body closes round each pip fv's
// value was read from. Paint on a die's face is a blob the body surrounds
// on every side; the "pips" a blank patch of print or floor offers (the
// felt showing past a printed stroke, at the corners round a printed disc
// or cross, a chip's inserts) are the surround seen past the patch's
// edges, open to the outside. For each pip it reads the frame at
// pipRingSamples points on a ring a little past the pip's edge (1.6 times
// its radius, at least 1.5 pixels past it) and counts the points nearer
// the body's colour than the pip's own. It returns the mean share over
// the pips and the share of the pips whose ring is at least half body
// (1, 1 when no pip was placed: a value not read from blobs).
func pipEnclosure(fr bgrImage, fv faceValue) (mean, enclosedPips float64) {
	if fv.pipRing == 0 {
		return 1, 1
	}
	n := 0
	at := fr.nearest
	for _, p := range fv.pips[:fv.pipRing] {
		// The pip's colour: the mean of the 3x3 pixels at its centre.
		var pc [3]float64
		for dy := -1; dy <= 1; dy++ {
			for dx := -1; dx <= 1; dx++ {
				c := at(p[0]+float64(dx), p[1]+float64(dy))
				for ch := range pc {
					pc[ch] += c[ch] / 9
				}
			}
		}
		rr := max(1.6*p[2], p[2]+1.5)
		body := 0
		for _, u := range pipRingDirs {
			c := at(p[0]+rr*u[0], p[1]+rr*u[1])
			if colDist(c, fv.body) < colDist(c, pc) {
				body++
			}
		}
		f := float64(body) / pipRingSamples
		mean += f / float64(fv.pipRing)
		if 2*body >= pipRingSamples {
			n++
		}
	}
	return mean, float64(n) / float64(fv.pipRing)
}

// minPipsEnclosed is the least share of a value's pips the body must
// enclose (pipEnclosure) for check to keep the value: most of a face's
// pips stand clear of everything but the body (glare across a face, or
// large pips nearly touching, may crowd one or two).
const minPipsEnclosed = 0.5

// enclosureOff turns the enclosure rule off (for tests).
var enclosureOff bool

// strokeRays is how many rays printedOutline casts from the face.
const strokeRays = 32

// strokeRayDirs are the unit steps of printedOutline's rays.
var strokeRayDirs = func() (d [strokeRays][2]float64) {
	for i := range d {
		a := 2 * math.Pi * (float64(i) + 0.5) / strokeRays
		d[i] = [2]float64{math.Cos(a), math.Sin(a)}
	}
	return d
}()

// printedOutline measures how far a value's face is ringed by a thin
// stroke of its pips' colour with the body's colour on both sides: a
// picture of a die printed on the table (an outline and dots drawn on the
// cloth, the cloth showing inside the outline as outside it). A die's
// body ends at its own edge, past which lies the table or its shadow, not
// a line of pip colour and then the body's colour again. Rays leave the
// face's centre from just past its outermost pip to about a face edge
// out; a ray counts when, past the body, it meets a run of pixels nearer
// the pips' colour than the body's no longer than a quarter of the face's
// edge, followed by pixels nearer the body's colour again. It returns the
// share of the rays that do (0 when no pip was placed); once too many
// rays fail for the share to reach maxOutlined it stops casting them, and
// the share returned is of those cast so far, over all rays.
func printedOutline(fr bgrImage, fv faceValue) float64 {
	if fv.pipRing == 0 || fv.c.edge <= 0 {
		return 0
	}
	at := fr.nearest
	// The pips' colour and centre, and how far out they reach.
	var pc [3]float64
	var cx, cy float64
	n := float64(fv.pipRing)
	for _, p := range fv.pips[:fv.pipRing] {
		c := at(p[0], p[1])
		for k := range pc {
			pc[k] += c[k] / n
		}
		cx += p[0] / n
		cy += p[1] / n
	}
	reach := 0.0
	for _, p := range fv.pips[:fv.pipRing] {
		reach = max(reach, math.Hypot(p[0]-cx, p[1]-cy)+p[2])
	}
	if colDist(pc, fv.body) < 1 {
		return 0
	}
	start, end := reach+1, reach+1.1*fv.c.edge
	maxRun := max(2, 0.25*fv.c.edge)
	// A pixel is of the pips' (the body's) colour when it lies within
	// strokeColTol of the pips' contrast with the body of that colour.
	tol := strokeColTol * colDist(pc, fv.body)
	hit, miss := 0, 0
	// Past this many rays that do not count, the share cannot reach
	// maxOutlined: the rest are not cast (most faces, a die's, stop
	// there).
	maxMiss := int(math.Floor((1 - maxOutlined) * strokeRays))
	for _, u := range strokeRayDirs {
		if miss > maxMiss {
			break
		}
		// The ray counts when a run of pip colour no longer than
		// maxRun is followed, within three pixels, by the body's colour.
		run, after := 0.0, 0.0
		found := false
		for s := start; s <= end; s++ {
			c := at(cx+s*u[0], cy+s*u[1])
			switch {
			case colDist(c, pc) < tol:
				run++
				after = 0
			case run > 0:
				after++
				if colDist(c, fv.body) < tol {
					found = true
				}
			}
			if found || run > maxRun || after > 2 {
				break
			}
		}
		if found {
			hit++
		} else {
			miss++
		}
	}
	return float64(hit) / strokeRays
}

// strokeColTol is how near, as a share of the pips' contrast with the
// body, printedOutline's pixels must lie to the pips' or the body's
// colour to count as either.
const strokeColTol = 0.3

// maxOutlined is the share of printedOutline's rays at which check
// withholds a value as a printed die's picture.
const maxOutlined = 0.6

// outlineOff turns the printed-outline rule off (for tests).
var outlineOff bool

// printedLook withholds the value of each detection whose kept value
// check found outlined like a printed die's picture (printedOutline at
// maxOutlined or more). It runs after the frame's looks rather than in
// check: the picture's value stays the frame's evidence of a die of its
// size read (see Reader.ReadRegion's far larger regions), which a
// withheld value in check would take away, and without which the frame's
// real dice were read differently (on stills 0..599 without a known size,
// four new wrong values, two at 0.85). Only without a known die size:
// with one, check's size test already keeps out a picture about twice a
// die's size, and the rule measured no phantom fewer there (10 at 0.8 on
// stills 0..599) and one real die unread.
func printedLook(dets []Detection) {
	if outlineOff {
		return
	}
	withholdWhere(dets, func(d *Detection) bool { return d.outlined >= maxOutlined })
}

// withholdWhere takes the value away from each detection given one for
// which past reports true: the rules that run after the frame's looks
// (printedLook, openLook, softLook) differ only in the measure and its
// cut.
func withholdWhere(dets []Detection, past func(d *Detection) bool) {
	for i := range dets {
		d := &dets[i]
		if d.Value > 0 && past(d) {
			d.Value, d.Confidence = 0, 0
		}
	}
}

// nearest is the colour (BGR) of the pixel holding (x, y), the point
// clamped into the frame.
func (fr bgrImage) nearest(x, y float64) [3]float64 {
	xi := min(max(int(math.Floor(x)), 0), fr.w-1)
	yi := min(max(int(math.Floor(y)), 0), fr.h-1)
	o := (yi*fr.w + xi) * 3
	return [3]float64{float64(fr.pix[o]), float64(fr.pix[o+1]), float64(fr.pix[o+2])}
}

// mean3 is the mean colour of the 3x3 pixels round (x, y) (nearest's,
// each point clamped into the frame): a pip's colour at its centre.
func (fr bgrImage) mean3(x, y float64) [3]float64 {
	var m [3]float64
	for j := -1; j <= 1; j++ {
		for i := -1; i <= 1; i++ {
			q := fr.nearest(x+float64(i), y+float64(j))
			for k := range m {
				m[k] += q[k] / 9
			}
		}
	}
	return m
}

// pipsOpen measures how many of the pips fv's value was read from lie
// open to the outside of the face: a ray from the face's centre through
// the pip, followed from just past the pip's edge to a little past the
// face's rectangle, that meets no pixel nearer the body's colour than the
// pip's. A die's pips are closed off from the table by the rim of body
// round them; the "pips" a printed cross offers (the cloth in the four
// corners between its arms) run out past the face, the cloth itself. Pips
// within a fifth of the edge of the centre have no outward ray and are
// not counted. It returns the share of the counted pips that are open
// and how many were counted.
func pipsOpen(fr bgrImage, fv faceValue) (float64, int) {
	c := fv.c
	if fv.pipRing == 0 || c.edge <= 0 {
		return 0, 0
	}
	at := fr.nearest
	co, si := math.Cos(c.angle), math.Sin(c.angle)
	hw, hh := c.w/2+0.15*c.edge, c.h/2+0.15*c.edge
	open, n := 0, 0
	for _, p := range fv.pips[:fv.pipRing] {
		dx, dy := p[0]-c.cx, p[1]-c.cy
		dist := math.Hypot(dx, dy)
		if dist < 0.2*c.edge {
			continue
		}
		n++
		ux, uy := dx/dist, dy/dist
		pc := fr.mean3(p[0], p[1])
		closed := false
		for s := p[2] + 0.5; s < 2*c.edge; s++ {
			x, y := p[0]+s*ux, p[1]+s*uy
			// The point in the rectangle's own axes: past it, stop.
			lx := (x-c.cx)*co + (y-c.cy)*si
			ly := -(x-c.cx)*si + (y-c.cy)*co
			if math.Abs(lx) > hw || math.Abs(ly) > hh {
				break
			}
			q := at(x, y)
			if colDist(q, fv.body) < colDist(q, pc) {
				closed = true
				break
			}
		}
		if !closed {
			open++
		}
	}
	if n == 0 {
		return 0, 0
	}
	return float64(open) / float64(n), n
}

// minOpenCounted is the least number of pips pipsOpen must count (pips
// off the face's centre) for openLook to judge the value: a 2 or a 3 has
// only two, and a die's two pips smeared into streaks by motion may both
// run to its edge.
const minOpenCounted = 3

// maxOpen is the share of open pips (pipsOpen) at which openLook
// withholds a value.
const maxOpen = 0.75

// openOff turns the open-pips rule off (for tests).
var openOff bool

// openLook withholds the value of each detection whose kept value has
// most of its pips open to the outside (pipsOpen: a printed cross's
// corners, the cloth between its arms). Like printedLook it runs after
// the frame's looks, so that the frame's other dice are read as before;
// unlike it, it runs with a known die size too: a cross's arms of about
// a face's width fit a die's size.
func openLook(dets []Detection) {
	if openOff {
		return
	}
	withholdWhere(dets, func(d *Detection) bool { return d.open >= maxOpen })
}

// pipSoftness measures how gradually the pips fv's value was read from
// fade into the body: along 8 rays from each pip's centre, the distance
// from where the colour has gone a quarter of the way from the pip's to
// the body's to where it has gone three quarters; it returns the median
// over the rays and pips, in pixels. Paint or a drilled hole ends at a
// line, blurred only by the lens; a glow of light or wood grain fades
// over a good part of its width.
func pipSoftness(fr bgrImage, fv faceValue) float64 {
	if fv.pipRing == 0 {
		return 0
	}
	at := fr.nearest
	var ws []float64
	for _, p := range fv.pips[:fv.pipRing] {
		pc := fr.mean3(p[0], p[1])
		var ax [3]float64
		n2 := 0.0
		for k := range ax {
			ax[k] = pc[k] - fv.body[k]
			n2 += ax[k] * ax[k]
		}
		if n2 < 1 {
			continue
		}
		end := 3*p[2] + 4
		for i := 0; i < 8; i++ {
			a := math.Pi * float64(i) / 4
			ux, uy := math.Cos(a), math.Sin(a)
			s75, s25 := -1.0, end
			for s := 0.0; s <= end; s += 0.5 {
				q := at(p[0]+s*ux, p[1]+s*uy)
				t := 0.0
				for k := range ax {
					t += (q[k] - fv.body[k]) * ax[k]
				}
				t /= n2
				if s75 < 0 && t < 0.75 {
					s75 = s
				}
				if t < 0.25 {
					s25 = s
					break
				}
			}
			if s75 < 0 {
				s75 = s25
			}
			ws = append(ws, s25-s75)
		}
	}
	if len(ws) == 0 {
		return 0
	}
	sort.Float64s(ws)
	return ws[len(ws)/2]
}

// maxSoftPx and maxSoftRel: softLook withholds a value whose pips fade
// into the body over maxSoftPx pixels or more, and over maxSoftRel of
// the face's edge or more (pipSoftness). A die's pips, however large the
// die is in the frame, end within a few pixels of lens blur; a patch of
// light on the cloth, read as a 1 on a face four or five dice wide, fades
// over a tenth of its width.
const (
	maxSoftPx  = 10
	maxSoftRel = 0.08
)

// softOff turns the soft-pips rule off (for tests).
var softOff bool

// softLook withholds the value of each detection whose kept value was
// read from pips fading into the body like a glow, not ending at an edge
// like paint (maxSoftPx, maxSoftRel). Like openLook it runs after the
// frame's looks, so that the frame's other dice are read as before.
func softLook(dets []Detection) {
	if softOff {
		return
	}
	withholdWhere(dets, func(d *Detection) bool { return d.soft >= maxSoftPx })
}

// centrePipOff measures, on a 3 read from its three pips, how far the
// middle pip's colour is from its two corner pips' mean, over that
// mean's distance from the body's colour. A face's pips are of one paint;
// on a marbled die a light vein crossing the face's middle can stand in
// for a 2's missing centre pip, and its colour is the vein's, not the
// paint's. It returns 0 when the value is not a 3 read from three pips.
func centrePipOff(fr bgrImage, fv faceValue) float64 {
	if fv.value != 3 || fv.pipRing != 3 {
		return 0
	}
	ps := fv.pips[:3]
	mx, my := (ps[0][0]+ps[1][0]+ps[2][0])/3, (ps[0][1]+ps[1][1]+ps[2][1])/3
	mid := 0
	for i := range ps {
		if math.Hypot(ps[i][0]-mx, ps[i][1]-my) < math.Hypot(ps[mid][0]-mx, ps[mid][1]-my) {
			mid = i
		}
	}
	var cols [3][3]float64
	for i, p := range ps {
		for dy := -1; dy <= 1; dy++ {
			for dx := -1; dx <= 1; dx++ {
				c := fr.nearest(p[0]+float64(dx), p[1]+float64(dy))
				for ch := range c {
					cols[i][ch] += c[ch] / 9
				}
			}
		}
	}
	var corner [3]float64
	for i := range cols {
		if i == mid {
			continue
		}
		for ch := range corner {
			corner[ch] += cols[i][ch] / 2
		}
	}
	contrast := colDist(corner, fv.body)
	if contrast <= 0 {
		return 0
	}
	return colDist(cols[mid], corner) / contrast
}

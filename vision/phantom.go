package vision

import "math"

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
	at := func(x, y float64) (c [3]float64) {
		xi := min(max(int(math.Floor(x)), 0), fr.w-1)
		yi := min(max(int(math.Floor(y)), 0), fr.h-1)
		o := (yi*fr.w + xi) * 3
		return [3]float64{float64(fr.pix[o]), float64(fr.pix[o+1]), float64(fr.pix[o+2])}
	}
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

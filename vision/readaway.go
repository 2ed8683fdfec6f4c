package vision

import (
	"image"
	"math"
	"sort"
)

// look is a candidate and the index of its detection in the frame's
// detections (-1: none).
type look struct {
	c   candidate
	det int
}

// readAway reads again, at the end of its footprint away from the
// camera, each die that did not read. A camera that looks down at an
// angle sees the sides of every die that face it: the footprint holds
// the top face and, towards the camera, side faces with pips of their
// own, and a rectangle over the whole footprint reads none of the faces.
// With the camera tilted, the point below it may be far outside the
// frame, and the side faces show on the same side of every die. The dice
// that read in the frame tell that side: their faces lie off their
// footprints' centres, away from the camera. A die that did not read is
// read again on a face-sized square at that end of its footprint; a value
// found there replaces its unread detection. In a frame with fewer than
// two read dice, an oblong footprint is read at both ends of its long
// axis, and a first look's value of two pips or more counts (both ends
// must agree when both read).
//
// With a known die size the reader keeps to the rule as it was before
// session 7 (each face's centre is its detection's, agreement half the
// offsets' lengths, nothing read without the side): the later rule read
// more dice on the generated stills read calibrated, but more of them
// wrong (2000 stills: 16 more right for 4 more wrong on clean dice, and
// one more wrong from the ends), while read without a known size it
// gained on the stills and on the angled webcam photos alike.
func (r *Reader) readAway(fr bgrImage, roi image.Rectangle, ocx, ocy float64, out []Detection, looks []look) {
	known := r.knownSize()
	agree := 0.7
	if known {
		agree = 0.5
	}
	var sx, sy, sl float64
	var edges []float64
	for _, lk := range looks {
		if lk.det < 0 || out[lk.det].Value == 0 {
			continue
		}
		// The face's centre is the pips' centre (every layout is
		// symmetric about it): the square the face was read on may sit
		// anywhere around them.
		d := out[lk.det]
		fx, fy := d.CX, d.CY
		if !known && !d.PipBox.Empty() {
			fx, fy = float64(d.PipBox.Min.X+d.PipBox.Max.X)/2, float64(d.PipBox.Min.Y+d.PipBox.Max.Y)/2
		}
		dx := fx - float64(roi.Min.X) - lk.c.cx
		dy := fy - float64(roi.Min.Y) - lk.c.cy
		sx += dx
		sy += dy
		sl += math.Hypot(dx, dy)
		edges = append(edges, d.EdgePx)
	}
	n := len(edges)
	// Two read faces at least must agree on the side (their offsets'
	// sum at least agree times their lengths' sum), and lie off their
	// footprints' centres by a tenth of a face on average. With fewer,
	// the frame does not tell the side: without a known die size both
	// ends of an oblong footprint are read (below).
	var ux, uy, e float64
	if n >= 2 {
		ml := math.Hypot(sx, sy)
		sort.Float64s(edges)
		e = edges[n/2]
		if ml < agree*sl || ml < 0.1*e*float64(n) {
			return
		}
		ux, uy = sx/ml, sy/ml
	} else if known {
		return
	} else if n == 1 {
		e = edges[0]
	}
	var got []Detection
	for _, lk := range looks {
		// A die whose layout the check found small for it and for its
		// pips (pipsRow) stays unread: a face placed off its centre
		// reads a part of that face again.
		if lk.det < 0 || !out[lk.det].laterMay() {
			continue
		}
		c := lk.c
		co, si := math.Cos(c.angle), math.Sin(c.angle)
		f := math.Min(c.w, c.h)
		if e > 0 {
			f = math.Min(f, e)
		}
		dirs := [2][2]float64{{ux, uy}}
		nd := 1
		if n < 2 {
			// The footprint's long axis, both ways.
			lx, ly := co, si
			if c.h > c.w {
				lx, ly = -si, co
			}
			dirs, nd = [2][2]float64{{lx, ly}, {-lx, -ly}}, 2
		}
		got = got[:0]
		for _, u := range dirs[:nd] {
			// The footprint's reach along u from its centre.
			reach := (math.Abs(u[0]*co+u[1]*si)*c.w + math.Abs(-u[0]*si+u[1]*co)*c.h) / 2
			shift := reach - f/2
			if shift < 0.1*f {
				continue // the footprint is about the face
			}
			fc := candidate{cx: c.cx + shift*u[0], cy: c.cy + shift*u[1], w: f, h: f, angle: c.angle, edge: f,
				flatness: c.flatness, sizeRatio: c.sizeRatio, weak: true}
			d, ok := r.readCandidate(fr, fc, roi, ocx, ocy)
			if !ok || d.Value == 0 {
				continue
			}
			// Without the side, a value must be a first look's, of two
			// pips or more (a side face's pips seldom fit a layout; a
			// lone spot anywhere in a square reads as a one).
			if nd == 2 && (d.Value < 2 || d.Confidence <= secondLookMaxConf) {
				continue
			}
			got = append(got, d)
		}
		// Both ends read: they must agree.
		if len(got) == 0 || len(got) == 2 && got[0].Value != got[1].Value {
			continue
		}
		d := got[0]
		if len(got) == 2 && got[1].Confidence > d.Confidence {
			d = got[1]
		}
		// Its place is a guess: its value counts as a second look's.
		d.Confidence = min(d.Confidence, secondLookMaxConf)
		// The face's size was taken from the other dice: the die's own
		// measure stays its size evidence.
		o := out[lk.det]
		d.Flatness, d.Flat, d.SizeRatio, d.EdgePx, d.latReach, d.reachValue = o.Flatness, o.Flat, o.SizeRatio, o.EdgePx, o.latReach, o.reachValue
		d.lat, d.latAngle = o.lat, o.latAngle
		out[lk.det] = d
	}
}

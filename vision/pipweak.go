package vision

import (
	"image"
	"slices"
)

// A die whose body the mask found as a weak candidate (ivory on a light
// desk: only the brighter part of its top face stands out), whose face
// did not read there: the pip reader placed the face off its pips. Its
// top face's pip group (pipClusterCands) reads it. onWeakMiss takes the
// group's face d (edge the group's face edge) as a die when it lies on
// such a candidate of about a die's size: the body under the pips is
// the evidence a pip group alone lacks (as dice of their own, groups put
// phantoms on the generated stills).

// weakMissMin and clusterRegionMax bound the weak candidate's mean side,
// in group face edges.
const weakMissMin = 0.8

// onWeakMiss reports whether d's centre lies in a weak candidate that
// did not read (r.weakMiss) whose mean side is weakMissMin to
// clusterRegionMax face edges.
func (r *Reader) onWeakMiss(d Detection, edge float64) bool {
	if weakOff {
		return false
	}
	at := image.Pt(int(d.CX), int(d.CY))
	for _, b := range r.weakMiss {
		side := float64(b.Dx()+b.Dy()) / 2
		if at.In(b) && side >= weakMissMin*edge && side <= clusterRegionMax*edge {
			return true
		}
	}
	return false
}

// weakOff turns onWeakMiss off, and the keeping of weak misses
// (tests: figures before and after).
var weakOff bool

// weakTrace, when set (tests), sees each die onWeakMiss makes.
var weakTrace func(d Detection)

// mergeSub adds b to subs, merged with every part it meets.
func mergeSub(subs []image.Rectangle, b image.Rectangle) []image.Rectangle {
	for merged := true; merged; {
		merged = false
		for i, o := range subs {
			if o.Overlaps(b) {
				b = b.Union(o)
				subs = slices.Delete(subs, i, i+1)
				merged = true
				break
			}
		}
	}
	return append(subs, b)
}

// notFlatGroup reports a die made from a pip group (onWeakMiss) not
// flat: no footprint of its own shows it lies flat (only part of its top
// face stood out), and on the generated stills read without a size such
// groups found cocked dice as well as flat ones (0..599: 3 of 9). Its
// value stands; the roll is not taken as valid on it. It is no ruler of
// the others' sizes: as one, on the stills it moved their size ratios (a
// stacked die's to 1.00).
func notFlatGroup(d *Detection, minFlat float64) {
	d.Flatness = min(d.Flatness, 0.5*minFlat)
	d.Flat = false
	d.keepNotFlat = true
	d.fromGroup = true
}

package vision

import (
	"image"
	"slices"
)

// A die found in pieces: on a light floor an ivory die's body barely
// differs from the floor, and the difference mask may break its top face
// into parts, one about each pip (matteo_webcam's two_5.jpg: a 2 found as
// two unread spots a face apart). Each part is too small to read; the
// pip group over them (pipClusterCands) reads the whole face. splitPieces
// takes such a group's face as the die when the detections it holds are
// all unread pieces of it, and drops the pieces.

// splitPieceMax: a piece's mean box side at most this share of the
// group's face edge (a larger unread region is the die and its side
// faces, which the group's second look already serves).
const splitPieceMax = 0.9

// splitOff turns splitPieces off (tests: figures before and after).
var splitOff bool

// splitTrace, when set (tests), sees each die splitPieces makes and the
// pieces it replaces, and each onWeakMiss makes (pieces nil).
var splitTrace func(d Detection, pieces []Detection)

// splitPieces returns the indices of dets that are unread pieces of the
// face d read from a pip group, or nil when d is not a die found in
// pieces: at least two detections must lie on it (each holds d's centre
// or has its centre in d's box), every one of them unread and smaller
// than the face, and none lie on it read.
func splitPieces(dets []Detection, d Detection) []int {
	if splitOff {
		return nil
	}
	at := image.Pt(int(d.CX), int(d.CY))
	var idx []int
	for i, o := range dets {
		if !at.In(o.Box) && !image.Pt(int(o.CX), int(o.CY)).In(d.Box) {
			continue
		}
		if o.Value != 0 || float64(o.Box.Dx()+o.Box.Dy())/2 > splitPieceMax*d.EdgePx {
			return nil
		}
		idx = append(idx, i)
	}
	if len(idx) < 2 {
		return nil
	}
	return idx
}

// deleteAt returns dets without the entries at idx (ascending).
func deleteAt(dets []Detection, idx []int) []Detection {
	kept := dets[:0]
	j := 0
	for i, o := range dets {
		if j < len(idx) && idx[j] == i {
			j++
			continue
		}
		kept = append(kept, o)
	}
	return kept
}

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

// weakOff turns onWeakMiss off (tests: figures before and after).
var weakOff bool

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

// notFlatGroup reports a die made from a pip group (splitPieces,
// onWeakMiss) not flat: no footprint of its own shows it lies flat (its
// body is in pieces, or only part of its top face stood out), and on the
// generated stills read without a size such groups found cocked dice as
// well as flat ones (0..599: 3 of 9). Its value stands; the roll is not
// taken as valid on it. It is no ruler of the others' sizes: as one, on
// the stills it moved their size ratios (a stacked die's to 1.00).
func notFlatGroup(d *Detection, minFlat float64) {
	d.Flatness = min(d.Flatness, 0.5*minFlat)
	d.Flat = false
	d.keepNotFlat = true
	d.fromGroup = true
}

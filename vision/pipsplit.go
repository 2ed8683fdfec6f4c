package vision

import "image"

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

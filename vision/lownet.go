package vision

import "image"

// lowNetLook reads, after every other look, an unread die called flat
// whose first look's two cues agree on a value of 2 or more (the layout
// fitted to every blob, and the best template) on a face rectangle square
// enough to read, below the reader's confidence, where the face net reads
// the same value both on that rectangle and on the square of the frame's
// die size, its "no clean top face" output under netMaxReject on both:
// netLook's rule without its margin (netMinMargin), as a third cue on the
// dice the first look held (for their low confidence, or by the veto or
// the check, which giveLater runs again). Given at sepConf
// (under the rules' 0.8) when the veto and the check pass. 1s are not
// read (as netLook). Without a known die size only.
//
// The dice it is for (byler_d6, session 21): the first look's layout
// score is near 0 (pips off their places, or a pip-like mark at an empty
// one) while the template fits; of the 9 byler dice held so at session 20
// the first look's value was right on 3, and the net decides. Chosen on
// byler's even half (one die, a 3 whose net margins were 0.69 and 0.61
// against netMinMargin's 0.7); the odd half holds no die it reads.
func (r *Reader) lowNetLook(fr bgrImage, dets []Detection, roi image.Rectangle) {
	if r.net == nil || len(r.unreadReads) == 0 || lowNetOff || r.knownSize() {
		return
	}
	med, medOK := readEdgeMedian(dets)
	for i := range dets {
		d := &dets[i]
		ur, found := r.unreadReads[[2]float64{d.CX, d.CY}]
		if !found || ur.shrunk || !d.laterMay() || !d.Flat || ur.fv.c.weak {
			continue
		}
		fv := ur.fv
		if !fv.sq || fv.lv < 2 || fv.lv != fv.tmpl || fv.blobs > fv.lv {
			continue
		}
		edge, sized := r.edgeAt(d, med, medOK)
		if !sized || !r.netReadsBoth(fr, fv.c, edge, fv.lv) {
			continue
		}
		fv.value, fv.conf = fv.lv, sepConf
		if r.giveLater(fr, d, fv, roi) && lowNetTrace != nil {
			lowNetTrace(d, fv)
		}
	}
}

// netReadsBoth reports whether the face net's most likely face is v both
// on the face rectangle c and on the square of edge at c's centre, its
// reject output under netMaxReject on both patches: netSureBoth with no
// least lead (the net's lead over its second face is never negative).
func (r *Reader) netReadsBoth(fr bgrImage, c candidate, edge float64, v int) bool {
	return r.netSureBoth(fr, c, edge, v, 0)
}

// lowNetOff turns lowNetLook off (for tests); lowNetTrace, when set,
// sees each value it gives.
var (
	lowNetOff   bool
	lowNetTrace func(d *Detection, fv faceValue)
)

package vision

import (
	"image"
	"math"
)

// shrunkRedLook reads, last of the frame's looks, each unread die called
// flat whose first read settled on a face much smaller than its region
// (readCandidate's shrunk) from two cues that do not share a measure: the
// lattice spots of the redness map (pipRedMap) on that face made square,
// and the face net on the face's rectangle. A value is given only where
// the redness map's spots read a face of three pips or more clearly
// (spotLead and spotAbsMin, as spotLook's vote), the net's most likely
// face is the same with its "no clean top face" output under
// netMaxReject, and the veto and the check pass; at netConf, under the
// rules' 0.8.
//
// The dice it is for (byler_d6, session 20): red pips on a marbled blue or
// a dark body, large enough to run together, whose blobs read one pip (a
// larger face read as a 1) or none, and which the hue and colour-distance
// maps do not read, so spotLook's two-map vote fails. Only the redness
// map is taken: on byler's 80 unread dice the colour-distance map's spots
// agreed with the net on two wrong 3s (a 2 and a 4), and 2s are not
// taken (spotDecode's 2 is the commonest misread of any face).
//
// Without a known die size only, as spotLook (the daemon always has one,
// and the look was not measured there).
func (r *Reader) shrunkRedLook(fr bgrImage, dets []Detection, roi image.Rectangle) {
	if r.net == nil || len(r.unreadReads) == 0 || shrunkRedOff || r.knownSize() {
		return
	}
	med, ok := readEdgeMedian(dets)
	if !ok {
		return
	}
	off := math.NaN()
	for i := range dets {
		d := &dets[i]
		ur, found := r.unreadReads[[2]float64{d.CX, d.CY}]
		if !found || !ur.shrunk || !d.laterMay() || !d.Flat || ur.fv.c.weak {
			continue
		}
		cs, ok := r.unreadFaces[[2]float64{d.CX, d.CY}]
		if !ok {
			continue
		}
		// cs[0] is the face the first read settled on (ur.fv.c).
		face := cs[0]
		c := face.square()
		pitch := r.latticePitch(dets, c.edge, med, &off)
		sr, ok := r.redSpotsNetAgree(fr, face, pitch)
		if !ok {
			continue
		}
		fv := faceValue{value: sr.value, conf: netConf, c: c, tmpl: sr.value}
		if r.giveLater(fr, d, fv, roi) && shrunkRedTrace != nil {
			shrunkRedTrace(d, sr)
		}
	}
}

// redSpotsNetAgree reads face (a face rectangle in the frame's region)
// on the lattice spots of the redness map, the face made square with its
// sides' mean and the lattice's pitch given in pixels, and with the face
// net on the rectangle itself; it reports the spots' read and whether it
// is a face of three pips or more, clear by spotLead and spotAbsMin, that
// the net reads too (most likely, its reject output under netMaxReject).
func (r *Reader) redSpotsNetAgree(fr bgrImage, face candidate, pitch float64) (spotRead, bool) {
	s := &r.face
	c := face.square()
	s.sample(fr, c)
	s.pipMap()
	if !s.pipRedMap() {
		return spotRead{}, false
	}
	sr := s.spotDecode(pitch / (c.edge * sampleShrink))
	if sr.value < 3 || sr.clear() < spotLead || sr.margin-max(sr.next, 0) < spotAbsMin {
		return sr, false
	}
	p, rej := r.ns.predictReject(r.net, fr, face)
	v, _, _ := netTop2(p)
	return sr, v == sr.value && rej < netMaxReject
}

// shrunkRedOff turns shrunkRedLook off (for tests); shrunkRedTrace, when
// set, sees each value it gives.
var (
	shrunkRedOff   bool
	shrunkRedTrace func(d *Detection, sr spotRead)
)

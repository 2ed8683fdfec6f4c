package vision

import (
	"image"
	"math"
)

// hueLook reads flat dice the first look held for "no layout fits the
// pips" (blobs found, no layout fitting them) on the two hue pip maps:
// the hue distance from the body's colour (pipChromaMap) and the redness
// (pipRedMap). Red pips on marbled blue and dark bodies stand out on
// those maps while the colour distance sees the marbling and the glare
// as strongly as the pips; the maps are soft, though (the camera keeps
// colour at half the resolution of brightness), so neighbouring pips run
// together into bars and blobs fit no layout. Their separated maxima
// (sepPeaks, as sepLook finds them) keep a peak a pip.
//
// A value needs, on each of the two maps, the layout fitted to every
// separated maximum (no maximum left over, a fit of hueLayoutMin or
// better) and the template cue to read it, the template clearly (at
// least spotTmplMin, spotTmplLead over any other value): two cues
// agreeing on two maps. sepLook asks the face net as the second cue;
// on these dice the net is wrong about half the time, and it is not
// asked here. Only without a known die size (as sepLook and spotLook):
// the daemon's calibrated reads are as before. The veto and the check
// apply as to any later value; the confidence is sepLook's (under the
// rules' 0.8).
func (r *Reader) hueLook(fr bgrImage, dets []Detection, roi image.Rectangle) {
	if len(r.unreadReads) == 0 || hueLookOff || r.knownSize() {
		return
	}
	med, medOK := readEdgeMedian(dets)
	off := math.NaN()
	for i := range dets {
		d := &dets[i]
		ur, found := r.unreadReads[[2]float64{d.CX, d.CY}]
		if !found || !d.laterMay() || !d.Flat || ur.shrunk || ur.fv.c.weak || ur.fv.lv != 0 || ur.fv.blobs == 0 {
			continue
		}
		fv := ur.fv
		v := r.face.hueValue(fr, fv.c)
		if v == 0 && hueSpots && medOK {
			c := r.unreadFaces[[2]float64{d.CX, d.CY}][0].square()
			fe := c.edge
			if !(fe >= spotSizeLo*med && fe <= spotSizeHi*med) {
				continue
			}
			pitch := r.latticePitch(dets, fe, med, &off)
			if v = hueSpotVote(r.face.spotMaps(fr, c, pitch)); v != 0 {
				fv.c = c
			}
		}
		if v == 0 {
			continue
		}
		fv.value, fv.conf = v, sepConf
		if r.giveLater(fr, d, fv, roi) && hueTrace != nil {
			hueTrace(d, fv)
		}
	}
}

// hueValue is the value both hue maps of c's face read (see hueLook), 0
// where either reads none or they differ.
func (s *faceScratch) hueValue(fr bgrImage, c candidate) int {
	v := 0
	for k := 0; k < 2; k++ {
		s.sample(fr, c)
		if k == 0 {
			s.pipChromaMap()
		} else if !s.pipRedMap() {
			return 0
		}
		lv, ls, n := s.sepLayout(c, sepSigma, sepRel, sepNMS)
		if lv < 2 || n != lv || ls < hueLayoutMin || (v != 0 && lv != v) {
			return 0
		}
		// sepPeaks left the sharper difference of blurs in s.dog; the
		// template reads the pip map's own, as cues does.
		s.blobs()
		var tr spotRead
		tr.setTemplate(s.templateCue())
		if tr.tv != lv || tr.tBest < spotTmplMin || tr.tBest-tr.tNext < spotTmplLead {
			return 0
		}
		v = lv
	}
	return v
}

// hueSpotVote decides a value from spotMaps' reads for hueLook: both
// hue maps (hue and redness) read it clearly (as spotVote counts a vote),
// 3 or more; a brightness map that reads another value clearly reads a
// face whose pips it holds (a pip faint on that map; pipSubset); and the
// template cue reads it on one of the maps (spotTemplateAgrees). 0: none.
func hueSpotVote(rs [5]spotRead) int {
	clear := func(sr spotRead) bool {
		return sr.value > 0 && sr.clear() >= spotLead && sr.margin-max(sr.next, 0) >= spotAbsMin
	}
	v := rs[1].value
	if v < 3 || !clear(rs[1]) || !clear(rs[2]) || rs[2].value != v {
		return 0
	}
	for i, sr := range rs {
		if spotMapKind[i] == 0 && clear(sr) && sr.value != v && !pipSubset(sr.value, v) {
			return 0
		}
	}
	if !spotTemplateAgrees(rs, v) {
		return 0
	}
	return v
}

// hueSpots: hueLook also reads the lattice spots (hueSpotVote).
var hueSpots = true

// hueLayoutMin is the least layout fit hueValue takes on a map.
const hueLayoutMin = 0.5

// hueLookOff turns hueLook off (for tests); hueTrace, when set, sees
// each value it gives.
var (
	hueLookOff bool
	hueTrace   func(d *Detection, fv faceValue)
)

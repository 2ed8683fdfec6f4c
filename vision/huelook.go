package vision

import "image"

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
	for i := range dets {
		d := &dets[i]
		ur, found := r.unreadReads[[2]float64{d.CX, d.CY}]
		if !found || !d.laterMay() || !d.Flat || ur.shrunk || ur.fv.c.weak || ur.fv.lv != 0 || ur.fv.blobs == 0 {
			continue
		}
		v := r.face.hueValue(fr, ur.fv.c)
		if v == 0 {
			continue
		}
		fv := ur.fv
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

// hueLayoutMin is the least layout fit hueValue takes on a map.
const hueLayoutMin = 0.5

// hueLookOff turns hueLook off (for tests); hueTrace, when set, sees
// each value it gives.
var (
	hueLookOff bool
	hueTrace   func(d *Detection, fv faceValue)
)

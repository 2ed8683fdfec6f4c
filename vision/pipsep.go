package vision

import "image"

// sepPeaks finds pip centres on the pip map s.d (as set by one of the
// map functions) as the local maxima of a sharper difference of blurs
// (sigma for the pips against the body's 4.5), at least rel of the
// strongest and above pipMinContrast, kept at least nms patch pixels
// apart, strongest first, away from the patch's edge band: pips that
// merge into bars or a cross under blobs' threshold keep a maximum each
// when the map dips between them at all. It returns at most seven
// centres (units of the patch side from its centre), and leaves s.dog
// holding the sharper difference of blurs.
func (s *faceScratch) sepPeaks(sigma, rel, nms float64) [][2]float64 {
	blurInner(&s.d, &s.g1, &s.tmp, sigma)
	blurInner(&s.d, &s.g2, &s.tmp, 4.5)
	const lo, hi = faceMargin, faceN - faceMargin
	for y := lo; y < hi; y++ {
		for x := lo; x < hi; x++ {
			i := y*faceN + x
			s.dog[i] = s.g1[i] - s.g2[i]
		}
	}
	var out [][2]float64
	for _, b := range s.pickPeaks(s.dogMaxima(), rel, nms, 1, nil) {
		out = append(out, [2]float64{b.x, b.y})
	}
	return out
}

// sepLayout fits a layout to sepPeaks' centres in the face's own
// proportions (as cues does): the value (0: none fits), its score and
// the number of centres.
func (s *faceScratch) sepLayout(c candidate, sigma, rel, nms float64) (int, float64, int) {
	pc := s.sepPeaks(sigma, rel, nms)
	e := (c.w + c.h) / 2
	kx, ky := c.w/e, c.h/e
	for i := range pc {
		pc[i][0] *= kx
		pc[i][1] *= ky
	}
	lv, ls, _ := matchLayout(pc)
	return lv, ls, len(pc)
}

// sepMapVotes reads the separated pips' layout (sepPeaks at sepSigma and
// sepRel, sepNMS apart) on each of four pip maps of the candidate's
// rectangle as it is: the colour distance, the hue, the redness (not on
// a reddish body) and the change towards the pips' colour. It returns
// the value most maps' layouts read (0: none, or a tie with another
// value of 3 or more: the maps then disagree on the face).
func (s *faceScratch) sepMapVotes(fr bgrImage, c candidate) int {
	var votes [7]int
	for k := 0; k < sepMaps; k++ {
		if !s.sepMap(fr, c, k) {
			continue
		}
		if lv, _, _ := s.sepLayout(c, sepSigma, sepRel, sepNMS); lv > 0 {
			votes[lv]++
		}
	}
	v := 0
	for k := 1; k <= 6; k++ {
		if votes[k] > 0 && (v == 0 || votes[k] > votes[v]) {
			v = k
		}
	}
	for k := 3; k <= 6; k++ {
		if k != v && votes[k] > 0 && votes[k] >= votes[v] {
			return 0
		}
	}
	return v
}

// sepMaps is the number of pip maps sepMap makes.
const sepMaps = 4

// sepMap samples the candidate's rectangle and sets s.d to its pip map k
// (0..sepMaps-1, made in that order: see case 3): the colour distance,
// the hue, the redness and the change towards the pips' colour. It reports false where map k does
// not apply (the redness on a reddish body).
func (s *faceScratch) sepMap(fr bgrImage, c candidate, k int) bool {
	s.sample(fr, c)
	s.pipMap()
	switch k {
	case 1:
		s.pipChromaMap()
	case 2:
		return s.pipRedMap()
	case 3:
		// pipColourMap takes the pips' colour at the maxima of s.dog,
		// which here still holds the sharper difference of blurs of the
		// map before (sepPeaks on the redness, or on the hue where the
		// redness does not apply), not the colour distance's as after
		// blobs in the first look. Made as the first look does (blobs
		// first), the look read one byler die fewer right and gave one
		// wrong value (IMG_20191208_111919, a 4 read 5, with the shipped
		// net); it is kept as measured.
		return s.pipColourMap()
	}
	return true
}

// The separated-pips look's settings: the pip blur, the least share of
// the strongest maximum a pip keeps, and the least distance between two
// pips (patch pixels; neighbouring pips of a 6 lie about 9.5 apart).
const (
	sepSigma = 1.2
	sepRel   = 0.25
	sepNMS   = 6.0
)

// sepLookOff turns sepLook off (for tests); sepTrace, when set, sees each
// value it gives.
var (
	sepLookOff bool
	sepTrace   func(d *Detection, fv faceValue)
)

// sepLook gives values of 3 or more to flat dice left unread (not weak):
// marbled blue and dark red bodies with red pips, whose large pips run
// together on the first look's pip map into bars or a cross or fade under
// its threshold, so that no layout fits the blobs or the template reads
// another face. Two cues must agree: the layout of the separated maxima
// of the pip maps (sepMapVotes: the value most of four maps read, no
// other value of 3 or more read as often) in the face rectangle, or
// failing that in the square of the frame's die size, and the face net's
// best guess, the same on the face rectangle and on that square, its
// reject output under netMaxReject on both. A shrunk face is read too:
// the net's square shows it the whole die. The value must not contradict
// the first look's layout or template (laterAgrees: the same, or a face
// holding its pips): a clean 3 whose first look saw its centre alone, lv
// and template 1, was read 6 so on held-out still 2290, calibrated. Only
// without a known die size (as frameSizeLook, spotLook and the cluster
// look), so the daemon's calibrated reads are as before. The veto and the
// check apply as to any later value. (byler_d6: 96 -> 90 unread, no wrong
// value more; with the net on the face rectangle only, a wrong value
// more.)
func (r *Reader) sepLook(fr bgrImage, dets []Detection, roi image.Rectangle) {
	if r.net == nil || len(r.unreadReads) == 0 || sepLookOff || r.knownSize() {
		return
	}
	r.laterFlatLooks(dets, true, func(d *Detection, fv faceValue, _ float64, sq candidate) {
		v := r.face.sepMapVotes(fr, fv.c)
		if v < 3 {
			v = r.face.sepMapVotes(fr, sq)
		}
		if v < 3 || !laterAgrees(fv.lv, v) || !laterAgrees(fv.tmpl, v) {
			return
		}
		p, rej := r.ns.predictReject(r.net, fr, fv.c)
		if nv, _, _ := netTop2(p); nv != v || rej >= netMaxReject {
			return
		}
		ps, rejs := r.ns.predictReject(r.net, fr, sq)
		if vs, _, _ := netTop2(ps); vs != v || rejs >= netMaxReject {
			return
		}
		fv.value, fv.conf = v, sepConf
		if r.giveLater(fr, d, fv, roi) && sepTrace != nil {
			sepTrace(d, fv)
		}
	})
}

// laterFlatLooks calls look on each die of dets that sepLook and
// mapsAgreeLook may give a value: unread and not marked against a later
// look (laterMay), flat, with a first look not a weak candidate's, and a
// die size at its place (edgeAt: the expected edge, or else the median
// edge of the dice read before look gives any value). look gets the
// first look's reading fv (a copy), that edge, and sq, the first look's
// face rectangle made a square of that edge. With netReject (a look
// that checks the face net's reject output) a die the cocked nets call
// flat against its footprint (earlyFlat) counts as flat.
func (r *Reader) laterFlatLooks(dets []Detection, netReject bool, look func(d *Detection, fv faceValue, edge float64, sq candidate)) {
	med, ok := readEdgeMedian(dets)
	for i := range dets {
		d := &dets[i]
		ur, found := r.unreadReads[[2]float64{d.CX, d.CY}]
		if !found || !d.laterMay() || !(d.Flat || (netReject && d.earlyFlat)) || ur.fv.c.weak {
			continue
		}
		edge, sized := r.edgeAt(d, med, ok)
		if !sized {
			continue
		}
		sq := ur.fv.c
		sq.w, sq.h, sq.edge = edge, edge, edge
		look(d, ur.fv, edge, sq)
	}
}

// sepConf is the confidence of a value sepLook gives (under the rules'
// 0.8: two weak cues agreeing).
const sepConf = 0.6

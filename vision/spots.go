package vision

import (
	"image"
	"math"
)

// The lattice-spot decoder reads a face's value from the nine places a
// die's pips can sit (a 3x3 lattice) rather than from blobs: large pips
// that run into each other (a marbled or dark body's big red pips) make
// one blob of two or three, which no blob count reads, but each of the
// spots they cover still shows the pip's colour. The lattice's pose
// (centre, turn, pitch) is searched in a small grid around the face
// square's; at each pose every canonical pattern of 2 to 6 pips (with
// 2's, 3's and 6's two orientations) is scored by how far its least "on"
// spot stands above its strongest "off" spot. The value is the pattern
// with the widest margin over all poses.

// spotPattern is one canonical face as the set of lattice spots it
// covers (bit (iy+1)*3+(ix+1) for the spot at (ix, iy)).
type spotPattern struct {
	value int
	on    uint16
}

var spotPatterns = func() []spotPattern {
	var out []spotPattern
	for _, l := range layouts {
		if l.value == 1 {
			// One spot on and eight off: moving the lattice off the
			// pips fits it to any face.
			continue
		}
		var m uint16
		for _, p := range l.pts {
			m |= 1 << ((int(p[1])+1)*3 + int(p[0]) + 1)
		}
		out = append(out, spotPattern{l.value, m})
	}
	return out
}()

// spotRead is what the spot decoder concluded on one map.
type spotRead struct {
	value int // the pattern with the widest margin (0: none above 0)
	// margin: that pattern's least on spot less its strongest off spot
	// (map units); contrast: its on spots' mean less its off spots'.
	margin, contrast float64
	// next is the widest margin of any other value.
	next float64
	// tv is the template cue's value on the same map (0: none), tBest
	// and tNext its correlation and the next value's.
	tv           int
	tBest, tNext float64
}

// clear is the winner's lead over every other value, over its contrast.
func (sr spotRead) clear() float64 {
	if sr.value == 0 || sr.contrast <= 0 {
		return 0
	}
	return (sr.margin - max(sr.next, 0)) / sr.contrast
}

// spotDecode decodes the map in s.d (the patch's pip map) on the lattice
// of pitch a (a corner spot's offset along one side, in patch sides),
// searching the pose around the patch's centre and axes.
func (s *faceScratch) spotDecode(a float64) spotRead {
	// A light blur stands in for a disc average at each spot.
	blurInner(&s.d, &s.g1, &s.tmp, 1.2)
	m := &s.g1
	var best [7]struct{ margin, contrast float64 }
	for v := range best {
		best[v].margin = math.Inf(-1)
	}
	var spot [9]float64
	// The spots' offsets from the lattice's centre, in patch pixels.
	var ox, oy [9]float64
	const lo, hi = float64(faceMargin), float64(faceN-faceMargin-1) - 0.001
	for _, turn := range spotTurns {
		co, si := math.Cos(turn), math.Sin(turn)
		for _, pf := range spotPitches {
			p := a * pf
			for k := 0; k < 9; k++ {
				ix, iy := float64(k%3-1)*p, float64(k/3-1)*p
				ox[k], oy[k] = (ix*co-iy*si)*faceN, (ix*si+iy*co)*faceN
			}
			for _, ty := range spotShifts {
				for _, tx := range spotShifts {
					// The lattice's centre in pixel coordinates (pixel
					// centres at integers), each spot's bilinear sample
					// clamped to the patch's inner part.
					cx, cy := (tx+0.5)*faceN-0.5, (ty+0.5)*faceN-0.5
					for k := 0; k < 9; k++ {
						x := min(max(cx+ox[k], lo), hi)
						y := min(max(cy+oy[k], lo), hi)
						x0, y0 := int(x), int(y)
						fx, fy := x-float64(x0), y-float64(y0)
						i := y0*faceN + x0
						spot[k] = m[i]*(1-fx)*(1-fy) + m[i+1]*fx*(1-fy) + m[i+faceN]*(1-fx)*fy + m[i+faceN+1]*fx*fy
					}
					mg := spotMargins(&spot)
					for j, pt := range spotPatterns {
						if mg[j] > best[pt.value].margin {
							best[pt.value].margin = mg[j]
							best[pt.value].contrast = spotContrast(&spot, pt.on)
						}
					}
				}
			}
		}
	}
	var out spotRead
	out.next = math.Inf(-1)
	for v := 2; v <= 6; v++ {
		if best[v].margin > 0 && (out.value == 0 || best[v].margin > out.margin) {
			if out.value != 0 {
				out.next = max(out.next, out.margin)
			}
			out.value, out.margin, out.contrast = v, best[v].margin, best[v].contrast
		} else {
			out.next = max(out.next, best[v].margin)
		}
	}
	return out
}

// spotMargins is each of spotPatterns' margins (its least on spot less
// its strongest off spot) for the nine spots, from the minima and maxima
// of the lattice's groups: corners, centre, the centre row's and the
// centre column's other spots, and the two diagonals' corners.
func spotMargins(sp *[9]float64) [8]float64 {
	cMin := min(sp[0], sp[2], sp[6], sp[8])
	m := sp[4]
	rowMin, rowMax := min(sp[3], sp[5]), max(sp[3], sp[5])
	colMin, colMax := min(sp[1], sp[7]), max(sp[1], sp[7])
	d1Min, d1Max := min(sp[0], sp[8]), max(sp[0], sp[8])
	d2Min, d2Max := min(sp[2], sp[6]), max(sp[2], sp[6])
	mids := max(rowMax, colMax)
	return [8]float64{
		d1Min - max(d2Max, m, mids),        // 2, one diagonal
		d2Min - max(d1Max, m, mids),        // 2, the other
		min(d1Min, m) - max(d2Max, mids),   // 3
		min(d2Min, m) - max(d1Max, mids),   // 3, the other
		cMin - max(m, mids),                // 4
		min(cMin, m) - mids,                // 5
		min(cMin, rowMin) - max(m, colMax), // 6, columns
		min(cMin, colMin) - max(m, rowMax), // 6, rows
	}
}

// spotContrast is the mean of the on spots less the mean of the off ones.
func spotContrast(sp *[9]float64, on uint16) float64 {
	var onSum, offSum float64
	var nOn, nOff int
	for k := 0; k < 9; k++ {
		if on&(1<<k) != 0 {
			onSum += sp[k]
			nOn++
		} else {
			offSum += sp[k]
			nOff++
		}
	}
	return onSum/float64(nOn) - offSum/float64(nOff)
}

// The pose grid: turns (radians) from the patch's axes, pitches as a
// share of the given one, centre shifts (patch sides).
var (
	spotTurns   = []float64{-0.16, -0.08, 0, 0.08, 0.16}
	spotPitches = []float64{0.85, 1, 1.15}
	spotShifts  = []float64{-0.09, -0.06, -0.03, 0, 0.03, 0.06, 0.09}
)

// spotMaps samples the candidate's square and decodes it on each pip map
// the reader has: colour distance, hue, redness (a body not red),
// darkness (a light body) and the body-to-pip colour direction. pitch is
// the lattice's pitch in pixels. A map the face does not allow reads
// value 0.
func (s *faceScratch) spotMaps(fr bgrImage, c candidate, pitch float64) [5]spotRead {
	var out [5]spotRead
	a := pitch / (c.edge * sampleShrink)
	s.sample(fr, c)
	s.pipMap()
	out[0] = s.spotTemplate(a) // blobs leaves the difference of blurs pipColourMap's peaks need
	if s.pipColourMap() {
		out[4] = s.spotTemplate(a)
	}
	s.pipMap()
	if s.pipDarkMap() {
		out[3] = s.spotTemplate(a)
	}
	s.pipChromaMap()
	out[1] = s.spotTemplate(a)
	if s.pipRedMap() {
		out[2] = s.spotTemplate(a)
	}
	return out
}

// spotVote decides a value from the maps' spot reads: a map votes for
// its pattern when that pattern leads every other value's by lead or
// more of its contrast and by absMin map units; the value is the one two
// maps or more vote for, with no vote for another, and only 3 to 6 (one
// spot on and eight off fits any face with the lattice moved off the
// pips, and a 2 is the blob reader's). A 4 then shows a 6's middle spots
// clearly emptier than its corners, and a 3 a 5's other corners.
func spotVote(rs [5]spotRead, lead, absMin float64) int {
	// votes by kind of map: brightness and colour distance (the colour
	// distance, darkness and body-to-pip direction maps follow each
	// other closely), and hue (hue and redness).
	var votes [2][7]int
	for i, sr := range rs {
		if sr.value > 0 && sr.clear() >= lead && sr.margin-max(sr.next, 0) >= absMin {
			votes[spotMapKind[i]][sr.value]++
		}
	}
	val := 0
	for v := 1; v <= 6; v++ {
		if votes[0][v]+votes[1][v] == 0 {
			continue
		}
		if val != 0 {
			return 0
		}
		val = v
	}
	if val < 3 || votes[1][val] == 0 || (votes[0][val] == 0 && votes[1][val] < 2) {
		return 0
	}
	return val
}

// spotMapKind is the kind of each of spotMaps' maps: 1 for the hue and
// redness maps, 0 for the colour distance, darkness and body-to-pip
// direction maps.
var spotMapKind = [5]int{0, 1, 1, 0, 0}

// spotTemplateAgrees reports whether the template cue reads v on one of
// the maps, clearly (a correlation of spotTmplMin or more, spotTmplLead
// over any other value's).
func spotTemplateAgrees(rs [5]spotRead, v int) bool {
	for _, sr := range rs {
		if sr.tv == v && sr.tBest >= spotTmplMin && sr.tBest-sr.tNext >= spotTmplLead {
			return true
		}
	}
	return false
}

const (
	// spotLead: a map's spot pattern must lead every other value's by
	// this share of its contrast (on byler_d6's unread dice 0.1 to 0.5
	// gave about the same; below 0.3 more wrong values on read dice).
	spotLead = 0.4
	// spotAbsMin: and by this much of the map's units.
	spotAbsMin   = 10
	spotTmplMin  = 0.25
	spotTmplLead = 0.03
	// spotSizeLo, spotSizeHi: the face's edge against the frame's read
	// faces' median.
	spotSizeLo, spotSizeHi = 0.7, 1.15
)

// spotLook reads each unread die called flat once more from the nine
// lattice spots of its face rectangle (made square), the last look: for
// faces whose large pips run into each other or fade, which no blob count
// reads. A value is given only where two pip maps' spots agree on it, the
// template cue reads it too on one of the maps, the face is of the
// frame's read faces' size, and the veto and the check pass; with a
// second look's confidence. The lattice's pitch is the frame's median
// layout offset (0.28 of the face's edge without one). Not on a die whose
// value was held for a shrunk face: frameSizeLook reads those only where
// the held value's pips agree, and this look was measured without them.
func (r *Reader) spotLook(fr bgrImage, dets []Detection, roi image.Rectangle) {
	if len(r.unreadFaces) == 0 || spotLookOff || r.knownSize() {
		return
	}
	med, ok := readEdgeMedian(dets)
	if !ok {
		return
	}
	off := math.NaN()
	s := &r.face
	for i := range dets {
		d := &dets[i]
		cs, ok := r.unreadFaces[[2]float64{d.CX, d.CY}]
		if !ok || !d.laterMay() || !d.Flat || r.unreadReads[[2]float64{d.CX, d.CY}].heldShrunk {
			continue
		}
		c := cs[0].square()
		fe := c.edge
		if !(fe >= spotSizeLo*med && fe <= spotSizeHi*med) {
			continue
		}
		pitch := r.latticePitch(dets, fe, med, &off)
		v, rs := s.spotValue(fr, c, pitch)
		if v == 0 {
			continue
		}
		fv := faceValue{value: v, conf: secondLookMaxConf, c: c, tmpl: v}
		nd := *d
		nd.Confidence = fv.conf
		if r.veto(fr, fv, &nd) || !r.check(fr, fv, &nd) {
			d.pipsRow = nd.pipsRow
			continue
		}
		d.Value, d.Confidence = v, fv.conf
		d.Box = c.box().Add(roi.Min).Intersect(roi)
		d.keepChecked(nd)
		if spotTrace != nil {
			rs[0].tNext = fe / med
			spotTrace(d, rs)
		}
		r.checked[[2]float64{d.CX, d.CY}] = checkRec{off: r.lastPipOff, colSpread: r.lastColSpread, weakCue: true}
	}
}

// square is c made square with its sides' mean as its edge.
func (c candidate) square() candidate {
	e := (c.w + c.h) / 2
	c.w, c.h, c.edge = e, e, e
	return c
}

// latticePitch is the pips' lattice pitch (pixels) for a face of edge fe
// in a frame whose read faces' median edge is med: the frame's median
// layout offset (frameOffMedian) scaled to fe, or 0.28 of fe where the
// frame has none. *off keeps the frame's offset from one die to the next:
// NaN until the first call works it out (from dets as they are then).
func (r *Reader) latticePitch(dets []Detection, fe, med float64, off *float64) float64 {
	if math.IsNaN(*off) {
		if *off = r.frameOffMedian(dets); math.IsNaN(*off) {
			*off = 0
		}
	}
	pitch := *off * fe / med
	if pitch <= 0 {
		pitch = 0.28 * fe
	}
	return pitch
}

// spotLookOff turns spotLook off (for tests); spotTrace, when set, sees
// each value it gives.
var (
	spotLookOff bool
	spotTrace   func(d *Detection, rs [5]spotRead)
)

// spotDiagHook, when set (tests), sees each frame's detections before
// the frame's pip check, with the reader's per-die records.
var spotDiagHook func(r *Reader, fr bgrImage, dets []Detection, roi image.Rectangle)

// spotValue is spotMaps' reads decided by spotVote and
// spotTemplateAgrees (0: no value), reading only as much as the decision
// needs: the hue maps first (a value needs a vote there), then the
// brightness maps, then the template cue map by map until one reads the
// value. The reads not needed are left zero.
func (s *faceScratch) spotValue(fr bgrImage, c candidate, pitch float64) (int, [5]spotRead) {
	var rs [5]spotRead
	a := pitch / (c.edge * sampleShrink)
	s.sample(fr, c)
	s.pipMap()
	voted := func(sr spotRead) bool {
		return sr.value >= 3 && sr.clear() >= spotLead && sr.margin-max(sr.next, 0) >= spotAbsMin
	}
	// Each map, set again on demand (index as spotMaps').
	setMap := func(i int) bool {
		switch i {
		case 0:
			s.pipMap()
		case 1:
			s.pipChromaMap()
		case 2:
			return s.pipRedMap()
		case 3:
			s.pipMap()
			return s.pipDarkMap()
		case 4:
			// pipColourMap finds the pips' colour at the peaks of the
			// difference of blurs blobs leaves.
			s.pipMap()
			s.blobs()
			return s.pipColourMap()
		}
		return true
	}
	for _, i := range [...]int{1, 2} {
		if setMap(i) {
			rs[i] = s.spotDecode(a)
		}
	}
	if !voted(rs[1]) && !voted(rs[2]) {
		return 0, rs
	}
	if voted(rs[1]) && voted(rs[2]) && rs[1].value != rs[2].value {
		return 0, rs
	}
	for _, i := range [...]int{0, 4, 3} {
		if setMap(i) {
			rs[i] = s.spotDecode(a)
		}
	}
	v := spotVote(rs, spotLead, spotAbsMin)
	if v == 0 {
		return 0, rs
	}
	for i := range rs {
		if !setMap(i) {
			continue
		}
		s.blobs()
		rs[i].setTemplate(s.templateCue())
		if spotTemplateAgrees(rs, v) {
			return v, rs
		}
	}
	return 0, rs
}

// setTemplate records the template cue's best value and correlations.
func (sr *spotRead) setTemplate(bp [7]float64) {
	sr.tv, sr.tBest, sr.tNext = 0, 0, -1
	for v := 1; v <= 6; v++ {
		if sr.tv == 0 || bp[v] > sr.tBest {
			if sr.tv != 0 {
				sr.tNext = max(sr.tNext, sr.tBest)
			}
			sr.tv, sr.tBest = v, bp[v]
		} else {
			sr.tNext = max(sr.tNext, bp[v])
		}
	}
}

// spotTemplate is spotDecode on s.d with the template cue's value on the
// same map beside it.
func (s *faceScratch) spotTemplate(a float64) spotRead {
	sr := s.spotDecode(a)
	s.blobs()
	sr.setTemplate(s.templateCue())
	return sr
}

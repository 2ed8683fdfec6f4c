package vision

import "image"

// 1s and 2s the face net backs.
//
// The pip reader's 1s and 2s are its least sure values: one pip, or two
// on a diagonal, are also what part of a larger face shows (a 3 less an
// end, a 4 or a 6 less a row or two corners) and what a spot of a
// textured floor or a glint shows, so the first look's weak 1s and 2s and
// the later looks' are held back (see smallface.go) unless the whole top
// face was seen. The learned face cue (facenet.go) judges the whole face
// patch, so it tells a lone centre pip on an empty face from a larger
// face's centre. netSmallLook gives an unread flat die a 1 or a 2 where:
//
//   - a pip look read it cleanly: the first look (its layout and template
//     reading the value, one blob per pip, on a square face not much
//     smaller than the die's region), or a later look whose 1 or 2 was
//     the only value read besides the first look's none (one blob per
//     pip, the layout and the template agreeing, on a square rectangle
//     with no large non-pip blob); either with a template score of
//     smallMinScore or more: the 5 of a dark red die whose pips merged
//     into one red blob in the middle read as a 1 by the layout and by
//     the net, but its template scored 0.5 (byler IMG_20191209_095849);
//   - the net reads the same face, leading its second face by
//     netSmallMargin or more, on that look's face rectangle and again on
//     a square of the frame's die size (the median edge of its read
//     faces, or the known size) at the same centre: a larger face's part
//     shows the rest of that face in the square;
//   - the whole face seen: the die's own outline found, or nothing
//     pip-like around the value's pips (nothingBeside, on a square of
//     vetoGrow times that edge). A die partly under a neighbour shows a
//     lone pip of its 2 with the neighbour's pips beside it and no
//     outline of its own, and the net, which cannot see the hidden pip,
//     read it as a 1 on both patches (held-out still 2095, uncalibrated),
//     as it read a calibrated clean 4 on a tilted camera as a 1 (still
//     96; a square of vetoGrow times the edge, where the net read 4,
//     caught that one too, but no other, and is left out);
//   - no first-look cue (layout or template) read more pips than the
//     value (blurred 2s whose second pip the blur took, read as 1s by a
//     later look and the net, the first look's template a 2: uncalibrated
//     stills 118, 1098, 1133 and 2460);
//   - a 2's pips as far apart as the frame's faces' (smallRowRel of the
//     median layout offset of its values, as giveSmall);
//   - the face is of about the frame's size (smallFaceMin..smallFaceMax of
//     that edge) and the die under the stacked cut;
//   - the veto and the check pass, as for any value (giveLater).
//
// Only without a known die size (as frameSizeLook and spotLook): on
// never-read stills 16000..16599, read once as the final check, the one
// value it gave calibrated was wrong, a 1 on a detection over the lower
// pip of a black 2 on a dark floor (still 16090, the detection 0.7 of the
// die's size; it had given 3 right values calibrated on 0..2599 and none
// wrong). netSmallKnownSize (tests) lets it run with one.
//
// Its values carry netConf (never sure). It runs after every other look,
// so it only reads dice nothing else read.
const netSmallMargin = 0.8

// netSmallOff turns netSmallLook off (tests); netSmallTrace, when set
// (tests), sees every candidate it weighed: the look ("first" or
// "later"), the value, the net's face and margin on the face rectangle
// and on the frame-size square, the face's size over the frame's, and why
// it was not given ("" when given).
var (
	netSmallOff       bool
	netSmallKnownSize bool
	netSmallTrace     func(r *Reader, fr bgrImage, edge float64, d *Detection, look string, f faceValue, v1 int, m1 float64, v2 int, m2, rel float64, why string)
)

// netSmallRead is the later look's 1 or 2 of the last read that
// netSmallLook may weigh (value 0: none): the only value the later looks
// read, the first look reading none or the same, its cues agreeing on a
// square rectangle with no large non-pip blob.
func (s *faceScratch) netSmallRead(first faceValue) faceValue {
	f := s.small
	switch {
	case f.value == 0, s.smallN != 1<<f.value,
		first.value != 0 && first.value != f.value,
		f.blobs != f.value || f.lv != f.value || f.tmpl != f.value,
		!f.sq || f.junk:
		return faceValue{}
	}
	return f
}

// netSmallLook gives unread flat dice the 1s and 2s the face net backs
// (see above).
func (r *Reader) netSmallLook(fr bgrImage, dets []Detection, roi image.Rectangle) {
	if r.net == nil || len(r.unreadReads) == 0 || netSmallOff || (r.knownSize() && !netSmallKnownSize) {
		return
	}
	med, ok := readEdgeMedian(dets)
	offMed := r.frameOffMedian(dets)
	for i := range dets {
		d := &dets[i]
		ur, found := r.unreadReads[[2]float64{d.CX, d.CY}]
		if !found || !d.laterMay() || !d.Flat || ur.fv.c.weak || !(d.SizeRatio < smallMaxSizeRatio) {
			continue
		}
		edge, sized := r.edgeAt(d, med, ok)
		if !sized {
			continue
		}
		looks := [2]faceValue{}
		if fv := ur.fv; fv.lv <= 2 && fv.lv == fv.tmpl && fv.blobs == fv.lv && fv.sq && !ur.shrunk {
			looks[0] = fv
		}
		looks[1] = ur.small
		for k, f := range looks {
			if f.lv == 0 {
				continue
			}
			why := ""
			v1, m1, v2, m2 := 0, 0.0, 0, 0.0
			rel := min(f.c.w, f.c.h) / edge
			if !(rel >= smallFaceMin && rel <= smallFaceMax) {
				why = "face size"
			} else if ur.fv.lv > f.lv || ur.fv.tmpl > f.lv {
				why = "first look larger"
			} else if f.lv == 2 && !(f.lat.scale >= smallRowRel*offMed) {
				why = "pip spacing"
			} else if f.nccScore < smallMinScore {
				why = "template score"
			} else if v1, _, m1 = netTop2(r.ns.predict(r.net, fr, f.c)); v1 != f.lv || m1 < netSmallMargin {
				why = "net on the face"
			} else {
				sq := f.c
				sq.w, sq.h, sq.edge = edge, edge, edge
				if v2, _, m2 = netTop2(r.ns.predict(r.net, fr, sq)); v2 != f.lv || m2 < netSmallMargin {
					why = "net on the square"
				} else if !ur.smallSil && !r.face.nothingBeside(fr, f, edge) {
					why = "marks beside, no outline"
				}
			}
			if why == "" {
				f.value, f.conf = f.lv, netConf
				if !r.giveLater(fr, d, f, roi) {
					why = "veto or check"
				}
			}
			if netSmallTrace != nil {
				netSmallTrace(r, fr, edge, d, [2]string{"first", "later"}[k], f, v1, m1, v2, m2, rel, why)
			}
			if why == "" {
				break
			}
		}
	}
}

// edgeAt is the die edge the frame looks use at d: the known die size
// there, else the median edge of the frame's read faces (med, when
// medOK); false when neither is known.
func (r *Reader) edgeAt(d *Detection, med float64, medOK bool) (float64, bool) {
	if e := r.expectedAt(d.CX, d.CY); e > 0 {
		return e, true
	}
	return med, medOK
}

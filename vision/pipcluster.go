package vision

import (
	"image"
	"math"
	"slices"

	"gocv.io/x/gocv"
)

// Pip clusters: a die whose body is about as light as the floor (ivory on
// a light desk, seen aslant) shows in the difference mask with its side
// faces, and the face read there sits off its top face and stays unread.
// Its top face's pips still stand out: dark, round spots of one size,
// each ringed by the body, lying within a face's reach of each other.
// pipClusterCands finds such groups at full resolution without a die
// size (the spots' own size and spacing give the face's) and puts a
// face-sized candidate on each. Only without a known die size, and only
// as a second look at an unread die under it: the face must read as
// many pips as the group holds, at a first look's confidence (see
// readFrame). As dice of their own (ivory dice the mask misses) they
// found three more matteo_webcam dice but added phantoms and wrong
// values on the generated stills, so they are not kept.

// Pip spot limits, as fractions of the frame's smaller side (or of the
// spot's own size).
const (
	// clusterWinFrac: the window of the local mean a spot is darker
	// than, over the frame's smaller side.
	clusterWinFrac = 1.0 / 12
	// clusterDark: how much darker than that mean a pip pixel is, in
	// grey levels.
	clusterDark = 40
	// clusterSpotMax: a spot's longest side at most this share of the
	// frame's smaller side.
	clusterSpotMax = 1.0 / 16
	// clusterRingContrast: the body ring around a spot at least this
	// much lighter than the spot, in grey levels.
	clusterRingContrast = 60
	// clusterRingDark: at most this share of the ring as dark as the
	// spot (another pip, a seam, the floor's shadow).
	clusterRingDark = 0.12
	// clusterLink: spots of one face lie at most this many spot sizes
	// apart (a 2's diagonal is the farthest, about four).
	clusterLink = 4.5
	// clusterSideLight: a group whose ring is this many grey levels
	// darker than a neighbouring group's is that die's side face.
	clusterSideLight = 12
	// clusterRound: the least mean roundness (minor over major axis)
	// of a group's spots. On matteo_webcam's aslant frames the top
	// faces' pips measure 0.70 to 0.96, the side faces' read as dice
	// 0.42 to 0.59.
	clusterRound = 0.65
	// clusterRegionMax: an unread die takes a group's value only when
	// its box's mean side is at most this many of the group's face
	// edges (a die seen aslant with its side faces: matteo_webcam's
	// 0.66 to 1.83, one at 2.41; on the generated stills read without a
	// size, regions of several dice 2.52 to 3.74 took phantom values).
	clusterRegionMax = 2.0
)

// clusterOff turns pipClusterCands off (tests: figures before and after).
var clusterOff bool

// clusterSpot is one dark, round spot: its box, the centre of its
// pixels, its size (mean of the box's sides) and its mean grey.
type clusterSpot struct {
	bb     image.Rectangle
	cx, cy float64
	size   float64
	// area in pixels, aspect (height over width) of the box, and the
	// ring's mean grey.
	area   float64
	aspect float64
	ring   float64
	round  float64
}

// pipClusterCands returns a weak candidate (region pixels) for each group
// of two to six round pip spots of about one size, close together, whose
// centre lies in no detection of dets that has a value (dets' boxes are
// in frame pixels, the region at roi). Each candidate's nPips is its
// group's size. A detection read as 1 whose pip is one of a group's is
// withheld first (pairOne), and the group's candidate kept.
func (r *Reader) pipClusterCands(fr bgrImage, dets []Detection, roi image.Rectangle) []candidate {
	w, h := fr.w, fr.h
	minDim := min(w, h)
	if minDim < 64 {
		return nil
	}
	hw := max(7, int(clusterWinFrac*float64(minDim))/2)
	maxSide := int(clusterSpotMax * float64(minDim))
	minArea := max(10, minDim*minDim/20000)
	// Only where a group can serve: about the unread dice and those
	// read as 1 (a group elsewhere is taken by a read die, or gives
	// nothing). Their boxes, grown by their size each way, merged where
	// they meet.
	var subs []image.Rectangle
	for _, d := range dets {
		if d.Value > 1 {
			continue
		}
		b := d.Box.Sub(roi.Min)
		b = b.Inset(-max(b.Dx(), b.Dy())).Intersect(image.Rect(0, 0, w, h))
		if b.Dx() < 8 || b.Dy() < 8 {
			continue
		}
		subs = mergeSub(subs, b)
	}
	for _, wb := range r.weakMiss {
		// A weak candidate that did not read: a body the mask found,
		// which its pips may read (onWeakMiss).
		b := wb.Sub(roi.Min)
		b = b.Inset(-max(b.Dx(), b.Dy()) / 4).Intersect(image.Rect(0, 0, w, h))
		if b.Dx() < 8 || b.Dy() < 8 {
			continue
		}
		subs = mergeSub(subs, b)
	}
	var spots []clusterSpot
	for _, sub := range subs {
		spots = r.clusterSpots(sub, hw, maxSide, minArea, spots)
	}
	if len(spots) < 2 {
		return nil
	}
	// Groups: spots of about one size within a face's reach of each
	// other, linked.
	grp := make([]int, len(spots))
	for i := range grp {
		grp[i] = -1
	}
	var out []candidate
	var rings []float64
	for i := range spots {
		if grp[i] >= 0 {
			continue
		}
		grp[i] = i
		members := []int{i}
		for q := 0; q < len(members); q++ {
			a := spots[members[q]]
			for j := range spots {
				if grp[j] >= 0 {
					continue
				}
				b := spots[j]
				// One face: pips of one area and shape (a side face's
				// are foreshortened), on a body lit alike.
				if max(a.area, b.area) > 1.7*min(a.area, b.area) ||
					math.Abs(math.Log(a.aspect/b.aspect)) > 0.4 ||
					math.Abs(a.ring-b.ring) > 0.08*max(a.ring, b.ring) {
					continue
				}
				if math.Hypot(a.cx-b.cx, a.cy-b.cy) <= clusterLink*(a.size+b.size)/2 {
					grp[j] = i
					members = append(members, j)
				}
			}
		}
		if len(members) < 2 || len(members) > 6 {
			continue
		}
		// The face: its diagonal is the two farthest pips' span over
		// 0.5 (pips of 2..6 sit a quarter edge in from the centre on
		// each axis), turned 45 degrees from it.
		var far float64
		var p, q clusterSpot
		var sz float64
		for _, a := range members {
			sa := spots[a]
			sz += sa.size
			for _, b := range members {
				if d := math.Hypot(sa.cx-spots[b].cx, sa.cy-spots[b].cy); d > far {
					far, p, q = d, sa, spots[b]
				}
			}
		}
		sz /= float64(len(members))
		edge := math.Sqrt2 * far
		if edge < 3.2*sz || edge > 8*sz {
			continue
		}
		cx, cy := (p.cx+q.cx)/2, (p.cy+q.cy)/2
		ang := math.Atan2(q.cy-p.cy, q.cx-p.cx) - math.Pi/4
		// A square's turn is known only modulo a quarter turn.
		ang -= math.Pi / 2 * math.Round(ang/(math.Pi/2))
		var ring, round float64
		for _, a := range members {
			ring += spots[a].ring
			round += spots[a].round
		}
		if round < clusterRound*float64(len(members)) {
			// A side face, seen aslant: its pips are squeezed.
			continue
		}
		at := image.Pt(int(cx)+roi.Min.X, int(cy)+roi.Min.Y)
		taken := false
		for k := range dets {
			d := &dets[k]
			if d.Value == 0 || !at.In(d.Box) {
				continue
			}
			if d.Value == 1 && slices.ContainsFunc(members, func(m int) bool {
				return image.Pt(int(spots[m].cx)+roi.Min.X, int(spots[m].cy)+roi.Min.Y).In(d.PipBox.Inset(-1))
			}) {
				// A 1 whose pip is one of a group of like pips: a 2
				// or more read from one of its pips. Its value is
				// withheld, and the later looks leave it so; the
				// group's face may give it one (see readFrame).
				d.Value, d.Confidence = 0, 0
				d.pairOne = true
				continue
			}
			taken = true
			break
		}
		if taken {
			continue
		}
		out = append(out, candidate{cx: cx, cy: cy, w: edge, h: edge, angle: ang, edge: edge, flatness: 1, sizeRatio: 1,
			weak: true, pipsOnly: true, nPips: len(members)})
		rings = append(rings, ring/float64(len(members)))
	}
	// A die seen aslant shows a side face's pips next to its top face's:
	// the top face is the one lit from above. A group by a group much
	// lighter around its pips, within a face's reach, is a side face.
	// A lone spot counts too: a 1 on top, its side faces' pips in groups.
	kept := out[:0]
	for i, c := range out {
		side := false
		for j, o := range out {
			if j != i && rings[j] > rings[i]+clusterSideLight && math.Hypot(c.cx-o.cx, c.cy-o.cy) <= 1.3*max(c.edge, o.edge) {
				side = true
				break
			}
		}
		for _, sp := range spots {
			if sp.ring > rings[i]+clusterSideLight && math.Hypot(c.cx-sp.cx, c.cy-sp.cy) <= 1.3*c.edge {
				side = true
				break
			}
		}
		if !side {
			kept = append(kept, c)
		}
	}
	return kept
}

// clusterSpots appends to spots the pip spots found in the part sub of
// the frame (region pixels): dark, round, filled, ringed by a lighter
// body (see pipClusterCands).
func (r *Reader) clusterSpots(inner image.Rectangle, hw, maxSide, minArea int, spots []clusterSpot) []clusterSpot {
	// Dark pixels: darker than the local mean by clusterDark. The mean
	// is taken over a part wider by its window, on the frame's grid of
	// quarter cells, so that over inner it is the whole frame's.
	fw, fh := r.frame.Cols(), r.frame.Rows()
	pad := hw + 8
	sub := image.Rect((max(0, inner.Min.X-pad))/4*4, (max(0, inner.Min.Y-pad))/4*4,
		(inner.Max.X+pad+3)/4*4, (inner.Max.Y+pad+3)/4*4).Intersect(image.Rect(0, 0, fw, fh))
	in := inner.Sub(sub.Min)
	part := r.frame.Region(sub)
	gocv.CvtColor(part, &r.clGrayM, gocv.ColorBGRToGray)
	part.Close()
	w, h := sub.Dx(), sub.Dy()
	// The mean over a window of some 50 px changes slowly: it is taken
	// at a quarter of the size and scaled back up.
	sw, sh := max(1, w/4), max(1, h/4)
	gocv.Resize(r.clGrayM, &r.clSmallM, image.Pt(sw, sh), 0, 0, gocv.InterpolationArea)
	gocv.Blur(r.clSmallM, &r.clSmallM, image.Pt(2*(hw/4)+1, 2*(hw/4)+1))
	gocv.Resize(r.clSmallM, &r.clMeanM, image.Pt(w, h), 0, 0, gocv.InterpolationLinear)
	gocv.Subtract(r.clMeanM, r.clGrayM, &r.clMaskM)
	gocv.Threshold(r.clMaskM, &r.clMaskM, clusterDark, 255, gocv.ThresholdBinary)
	gray, err := r.clGrayM.DataPtrUint8()
	if err != nil || len(gray) < w*h {
		return spots
	}
	mk, err := r.clMaskM.DataPtrUint8()
	if err != nil || len(mk) < w*h {
		return spots
	}
	if cap(r.clLab) < w*h {
		r.clLab = make([]int32, w*h)
		r.clCCL.labOK = false
	}
	lab := r.clLab[:w*h]
	nl := labelComponents(mk[:w*h], w, h, lab, &r.clStats, &r.clFull, &r.clCCL)
	stats := r.clStats[:5*nl]
	for id := 1; id < nl; id++ {
		st := stats[5*id:][:5]
		area := int(st[4])
		bb := image.Rect(int(st[0]), int(st[1]), int(st[0]+st[2]), int(st[1]+st[3]))
		bw, bh := bb.Dx(), bb.Dy()
		if area < minArea || max(bw, bh) > maxSide {
			continue
		}
		// Round and filled: a pip seen at an angle is an ellipse, not
		// a stroke.
		if float64(min(bw, bh)) < 0.55*float64(max(bw, bh)) || float64(area) < 0.55*float64(bw*bh) {
			continue
		}
		if !image.Pt((bb.Min.X+bb.Max.X)/2, (bb.Min.Y+bb.Max.Y)/2).In(in) {
			continue
		}
		size := float64(bw+bh) / 2
		// The ring around it: the body, lighter by far, and with
		// little else as dark.
		pad := int(math.Ceil(0.6 * size))
		ring := bb.Inset(-pad)
		if !ring.In(image.Rect(0, 0, w, h)) {
			continue
		}
		var sx, sy, sg, sxx, syy, sxy int
		for y := bb.Min.Y; y < bb.Max.Y; y++ {
			for x := bb.Min.X; x < bb.Max.X; x++ {
				if lab[y*w+x] != int32(id) {
					continue
				}
				sx += x
				sy += y
				sg += int(gray[y*w+x])
				sxx += x * x
				syy += y * y
				sxy += x * y
			}
		}
		mean := float64(sg) / float64(area)
		var rs, rn int
		for y := ring.Min.Y; y < ring.Max.Y; y++ {
			for x := ring.Min.X; x < ring.Max.X; x++ {
				if image.Pt(x, y).In(bb) {
					continue
				}
				rs += int(gray[y*w+x])
				rn++
			}
		}
		rmean := float64(rs) / float64(rn)
		if rmean-mean < clusterRingContrast {
			continue
		}
		mid := (rmean + mean) / 2
		dark := 0
		for y := ring.Min.Y; y < ring.Max.Y; y++ {
			for x := ring.Min.X; x < ring.Max.X; x++ {
				if !image.Pt(x, y).In(bb) && float64(gray[y*w+x]) < mid {
					dark++
				}
			}
		}
		if float64(dark) > clusterRingDark*float64(rn) {
			continue
		}
		// Roundness: the minor axis over the major of the pixels'
		// spread (a side face's pips are squeezed, turned any way).
		fa := float64(area)
		mx, my := float64(sx)/fa, float64(sy)/fa
		vxx, vyy, vxy := float64(sxx)/fa-mx*mx, float64(syy)/fa-my*my, float64(sxy)/fa-mx*my
		tr, det := vxx+vyy, vxx*vyy-vxy*vxy
		disc := math.Sqrt(math.Max(0, tr*tr/4-det))
		round := 0.0
		if l1 := tr/2 + disc; l1 > 0 {
			round = math.Sqrt(math.Max(0, tr/2-disc) / l1)
		}
		spots = append(spots, clusterSpot{round: round, bb: bb.Add(sub.Min), cx: float64(sx)/float64(area) + float64(sub.Min.X),
			cy: float64(sy)/float64(area) + float64(sub.Min.Y), size: size, area: float64(area), aspect: float64(bh) / float64(bw), ring: rmean})
	}
	return spots
}

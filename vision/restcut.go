package vision

import (
	"image"
	"math"
	"unsafe"
)

// restComp is a region of the segmentation mask (not a wall) that may
// hold a die no candidate of its own stood for: dice pressed together
// are cut where their outline narrows, and a die that meets its
// neighbour along a whole side is cut with it, or not at all.
type restComp struct {
	id int32
	bb image.Rectangle
}

// restCands returns a weak candidate for each die-sized part of the
// regions r.rest that no read detection of dets (boxes in roi pixels)
// covers: the rest of a cluster once the dice read in it are taken out,
// or of a region where nothing read.
// It works on the labels detect left in r.lab, at its scale r.detSc,
// with the die edge r.detEdge there (0: none known).
func (r *Reader) restCands(dets []Detection, roi image.Rectangle) []candidate {
	sd, sc := r.detEdge, r.detSc
	if sd <= 0 || len(r.rest) == 0 {
		return nil
	}
	lb, err := r.lab.DataPtrUint8()
	w := r.lab.Cols()
	if err != nil || len(lb) < 4*w*r.lab.Rows() {
		return nil
	}
	lab := unsafe.Slice((*int32)(unsafe.Pointer(&lb[0])), w*r.lab.Rows())
	// The detections' boxes at the detection scale.
	boxes := make([]image.Rectangle, 0, len(dets))
	for _, d := range dets {
		if d.Value == 0 {
			// An unread die is looked at again with its region's rest.
			continue
		}
		b := d.Box.Sub(roi.Min)
		boxes = append(boxes, image.Rect(int(math.Floor(float64(b.Min.X)*sc)), int(math.Floor(float64(b.Min.Y)*sc)),
			int(math.Ceil(float64(b.Max.X)*sc)), int(math.Ceil(float64(b.Max.Y)*sc))))
	}
	var out []candidate
	for _, rc := range r.rest {
		bb := rc.bb
		// hit: a detection lies on the region. Where none does, its
		// own candidates did not read, and its parts are unsure.
		hit := false
		for _, b := range boxes {
			if b.Overlaps(bb) {
				hit = true
				break
			}
		}
		bw, bh := bb.Dx(), bb.Dy()
		if cap(r.restLab) < bw*bh {
			r.restLab = make([]int32, bw*bh)
			r.restDist = make([]float32, bw*bh)
		}
		res, dist := r.restLab[:bw*bh], r.restDist[:bw*bh]
		for y := 0; y < bh; y++ {
			row, lr := res[y*bw:][:bw], lab[(y+bb.Min.Y)*w+bb.Min.X:][:bw]
			for x := range row {
				row[x] = 0
				if lr[x] == rc.id {
					row[x] = 1
				}
			}
		}
		for _, b := range boxes {
			b = b.Intersect(bb).Sub(bb.Min)
			for y := b.Min.Y; y < b.Max.Y; y++ {
				clear(res[y*bw+b.Min.X : y*bw+b.Max.X])
			}
		}
		// What is left falls apart into pieces (a wall's rest is a few
		// pieces about a large box): each one large enough for a die is
		// cut on its own, tagged 2, 3, ... in res.
		id := int32(1)
		for s0 := range res {
			if res[s0] != 1 {
				continue
			}
			id++
			res[s0] = id
			stack := append(r.restStack[:0], int32(s0))
			n, pb := 0, image.Rectangle{Min: image.Pt(bw, bh), Max: image.Pt(-1, -1)}
			for len(stack) > 0 {
				p := int(stack[len(stack)-1])
				stack = stack[:len(stack)-1]
				x, y := p%bw, p/bw
				n++
				pb.Min.X, pb.Min.Y = min(pb.Min.X, x), min(pb.Min.Y, y)
				pb.Max.X, pb.Max.Y = max(pb.Max.X, x), max(pb.Max.Y, y)
				if x > 0 && res[p-1] == 1 {
					res[p-1] = id
					stack = append(stack, int32(p-1))
				}
				if x+1 < bw && res[p+1] == 1 {
					res[p+1] = id
					stack = append(stack, int32(p+1))
				}
				if y > 0 && res[p-bw] == 1 {
					res[p-bw] = id
					stack = append(stack, int32(p-bw))
				}
				if y+1 < bh && res[p+bw] == 1 {
					res[p+bw] = id
					stack = append(stack, int32(p+bw))
				}
			}
			r.restStack = stack
			pb.Max = pb.Max.Add(image.Pt(1, 1))
			if float64(n) < 0.5*sd*sd || float64(min(pb.Dx(), pb.Dy())) < 0.6*sd {
				continue
			}
			out = r.restPiece(out, res, dist, bw, pb, id, bb.Min, sd, sc, !hit)
		}
	}
	return out
}

// restPiece appends restCands's candidates for the piece tagged id of
// res (bw wide, inside pb; at the detection scale, off its region's
// origin at), dist scratch; unsure: nothing read in the region.
func (r *Reader) restPiece(out []candidate, res []int32, dist []float32, bw int, pb image.Rectangle, id int32, at image.Point, sd, sc float64, unsure bool) []candidate {
	t := 0.3 * sd
	chamfer(res, dist, bw, pb, id)
	bh := len(res) / bw
	in := func(x, y int) bool {
		x, y = x-at.X, y-at.Y
		return x >= 0 && y >= 0 && x < bw && y < bh && res[y*bw+x] == id
	}
	for _, core := range findCores(res, dist, bw, pb, id, float32(t), &r.seen) {
		c := rectOf(core)
		c.cx += float64(at.X)
		c.cy += float64(at.Y)
		c.w += 2 * t
		c.h += 2 * t
		pieces := []candidate{c}
		if math.Max(c.w, c.h) > 1.35*sd {
			pieces = gridCells(c, sd, in)
		}
		for _, d := range pieces {
			aspect := math.Min(d.w, d.h) / math.Max(d.w, d.h)
			d.edge = (d.w + d.h) / 2
			if aspect < 0.75 || d.edge < 0.75*sd || d.edge > 1.35*sd {
				continue
			}
			d.flatness = flatness(aspect, rectFill(d, in))
			d.weak, d.unsure = true, unsure
			d.sizeRatio = d.edge / sd
			d.toFrame(sc)
			out = append(out, d)
		}
	}
	return out
}

// rectFill is the share of c's rectangle that in(x, y) covers (pixel
// centres): a cocked die's or a shadow's rest is ragged, a flat die's
// fills its square.
func rectFill(c candidate, in func(x, y int) bool) float64 {
	co, si := math.Cos(c.angle), math.Sin(c.angle)
	b := c.box()
	n, hit := 0, 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			dx, dy := float64(x)+0.5-c.cx, float64(y)+0.5-c.cy
			if math.Abs(dx*co+dy*si) > c.w/2 || math.Abs(-dx*si+dy*co) > c.h/2 {
				continue
			}
			n++
			if in(x, y) {
				hit++
			}
		}
	}
	if n == 0 {
		return 0
	}
	return float64(hit) / float64(n)
}

// speck is a region of the segmentation mask too small or too thin for
// a die: its box and pixel count.
type speck struct {
	id   int32
	bb   image.Rectangle
	area int
}

// pipGroups returns a weak, die-sized candidate (edge sd, all at the
// detection scale) on each group of two to six pip-like specks that lie
// close together, within one face's reach, outside every candidate of
// cands: a die whose body differs too little from the floor to show in
// the mask (white on white) still shows its pips. out is reused.
func pipGroups(specks []speck, cands []candidate, sd float64, lab []int32, w, h int, out []candidate) []candidate {
	if sd <= 0 {
		return out
	}
	// Pip-like: small, about round, not inside a candidate.
	var pips []speck
	for _, s := range specks {
		long, short := max(s.bb.Dx(), s.bb.Dy()), min(s.bb.Dx(), s.bb.Dy())
		if float64(long) > 1.1*sd || float64(s.area) < 0.004*sd*sd || float64(short) < 0.08*sd {
			continue
		}
		ctr := image.Pt((s.bb.Min.X+s.bb.Max.X)/2, (s.bb.Min.Y+s.bb.Max.Y)/2)
		inside := false
		for _, c := range cands {
			// (Candidates far from the die size are dropped.)
			if c.edge >= 0.6*sd && c.edge <= 1.6*sd && ctr.In(c.box()) {
				inside = true
				break
			}
		}
		if !inside {
			pips = append(pips, s)
		}
	}
	// Groups: specks a third of a die edge apart or closer, linked.
	grp := make([]int, len(pips))
	for i := range grp {
		grp[i] = -1
	}
	for i := range pips {
		if grp[i] >= 0 {
			continue
		}
		grp[i] = i
		members := []int{i}
		for q := 0; q < len(members); q++ {
			a := pips[members[q]].bb
			for j := range pips {
				if grp[j] >= 0 {
					continue
				}
				b := pips[j].bb
				gx := max(0, max(a.Min.X, b.Min.X)-min(a.Max.X, b.Max.X))
				gy := max(0, max(a.Min.Y, b.Min.Y)-min(a.Max.Y, b.Max.Y))
				if math.Hypot(float64(gx), float64(gy)) <= 0.35*sd {
					grp[j] = i
					members = append(members, j)
				}
			}
		}
		if len(members) < 2 || len(members) > 6 {
			continue
		}
		box := pips[members[0]].bb
		for _, m := range members[1:] {
			box = box.Union(pips[m].bb)
		}
		// One face's pips (and the bits of its outline that show):
		// within its reach.
		if float64(max(box.Dx(), box.Dy())) > 1.25*sd {
			continue
		}
		// Alone on the floor: around the group, no other region (the
		// body of a die whose side face the pips are on, a keyboard's
		// keys, a textured floor).
		ring := box.Inset(-int(math.Ceil(0.4 * sd))).Intersect(image.Rect(0, 0, w, h))
		other := 0
		for y := ring.Min.Y; y < ring.Max.Y; y++ {
			for x := ring.Min.X; x < ring.Max.X; x++ {
				id := lab[y*w+x]
				if id == 0 {
					continue
				}
				mine := false
				for _, m := range members {
					if pips[m].id == id {
						mine = true
						break
					}
				}
				if !mine {
					other++
				}
			}
		}
		if other > 0 {
			continue
		}
		cx, cy := float64(box.Min.X+box.Max.X)/2, float64(box.Min.Y+box.Max.Y)/2
		out = append(out, candidate{cx: cx, cy: cy, w: sd, h: sd, edge: sd, flatness: 1, sizeRatio: 1, weak: true, pipsOnly: true})
	}
	return out
}

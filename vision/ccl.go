package vision

import (
	"encoding/binary"
	"slices"
)

// cclRun is a horizontal run [x0, x1) of foreground pixels in row y and
// the union-find parent (a run index) of its component.
type cclRun struct {
	y, x0, x1 int32
	parent    int32
	full      int32 // its pixels at 255
}

// cclScratch holds labelComponents' buffers between calls.
type cclScratch struct {
	runs  []cclRun
	roots []cclRoot
	ids   []int32 // per root run: its final label
	// labOK: the labels last written are still in lab (at labAt, of
	// labLen values, rows of labW), zero outside the last call's runs (callers may
	// only clear labels), so only those runs need clearing. Whoever
	// replaces the label buffer sets it false.
	labOK        bool
	labAt        *int32
	labLen, labW int
}

// cclRoot is one component while being labelled: its root run, the key
// that orders it, its area and bounding box.
type cclRoot struct {
	run            int32
	key            int32
	area           int32
	full           int32
	x0, y0, x1, y1 int32
}

// find returns the root of run i, halving the path.
func (s *cclScratch) find(i int32) int32 {
	runs := s.runs
	for runs[i].parent != i {
		p := runs[runs[i].parent].parent
		runs[i].parent = p
		i = p
	}
	return i
}

// labelComponents labels the 8-connected components of the nonzero
// pixels of the w×h mask m as gocv.ConnectedComponentsWithStats does
// (OpenCV 4.6, CCL_DEFAULT, CV_32S labels): lab gets 0 on the background
// and 1..n-1 on the components, numbered in the order of their first 2×2
// block (rows 2k and 2k+1, columns 2j and 2j+1) in raster order of the
// blocks, which is the order OpenCV's block-based labelling (Spaghetti,
// sequential or in stripes) gives them; stats gets five int32 per label
// (left, top, width, height, area). Row 0 of stats (the background) is
// left zero: no caller reads it. full gets per label the count of its
// pixels at 255. It returns n, the label count with the background. lab
// must hold w*h values; stats and full are grown as needed.
func labelComponents(m []uint8, w, h int, lab []int32, stats, full *[]int32, s *cclScratch) int {
	m, lab = m[:w*h], lab[:w*h]
	// Clear the last labels: only their runs where lab is the buffer
	// they were written to, else all of it.
	if s.labOK && s.labAt == &lab[0] && s.labLen == len(lab) && s.labW == w {
		for _, rn := range s.runs {
			clear(lab[int(rn.y)*w+int(rn.x0) : int(rn.y)*w+int(rn.x1)])
		}
	} else {
		clear(lab)
	}
	s.labOK = false
	runs := s.runs[:0]
	prev0, prev1 := 0, 0 // the previous row's runs are runs[prev0:prev1]
	for y := 0; y < h; y++ {
		row := m[y*w : (y+1)*w]
		cur0 := len(runs)
		for x := 0; x < w; {
			if x+8 <= w && binary.NativeEndian.Uint64(row[x:]) == 0 {
				x += 8
				continue
			}
			if row[x] == 0 {
				x++
				continue
			}
			x0, f := x, int32(0)
			for x < w && row[x] != 0 {
				if row[x] == 255 {
					f++
				}
				x++
			}
			runs = append(runs, cclRun{y: int32(y), x0: int32(x0), x1: int32(x), parent: int32(len(runs)), full: f})
		}
		cur1 := len(runs)
		s.runs = runs
		// Join each run with the previous row's runs it touches (8-way:
		// a run [a, b) touches [c, d) when c <= b and d >= a).
		p := prev0
		for i := cur0; i < cur1; i++ {
			a, b := runs[i].x0, runs[i].x1
			for p < prev1 && runs[p].x1 < a {
				p++
			}
			for q := p; q < prev1 && runs[q].x0 <= b; q++ {
				ri, rq := s.find(int32(i)), s.find(int32(q))
				if ri != rq {
					if ri < rq {
						runs[rq].parent = ri
					} else {
						runs[ri].parent = rq
					}
				}
			}
		}
		prev0, prev1 = cur0, cur1
	}
	s.runs = runs
	// Components: gather each root's area, box and first block.
	bw := int32((w + 1) / 2)
	if cap(s.ids) < len(runs) {
		s.ids = make([]int32, len(runs))
	}
	ids := s.ids[:len(runs)]
	roots := s.roots[:0]
	for i := range runs {
		rt := s.find(int32(i))
		rn := runs[i]
		key := (rn.y/2)*bw + rn.x0/2
		if rt == int32(i) {
			ids[i] = int32(len(roots))
			roots = append(roots, cclRoot{run: rt, key: key, area: rn.x1 - rn.x0, full: rn.full, x0: rn.x0, y0: rn.y, x1: rn.x1, y1: rn.y + 1})
			continue
		}
		// The root is an earlier run (unions keep the lower index), so
		// it is already in roots.
		c := &roots[ids[rt]]
		ids[i] = ids[rt]
		c.area += rn.x1 - rn.x0
		c.full += rn.full
		c.key = min(c.key, key)
		c.x0 = min(c.x0, rn.x0)
		c.x1 = max(c.x1, rn.x1)
		c.y1 = rn.y + 1
	}
	s.roots = roots
	// Number the components by their first block.
	order := make([]int32, len(roots))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return int(roots[a].key - roots[b].key) })
	n := len(roots) + 1
	if cap(*stats) < 5*n {
		*stats = make([]int32, 5*n)
	}
	st := (*stats)[:5*n]
	*stats = st
	clear(st[:5])
	if cap(*full) < n {
		*full = make([]int32, n)
	}
	fu := (*full)[:n]
	*full = fu
	fu[0] = 0
	label := make([]int32, len(roots))
	for k, ri := range order {
		c := roots[ri]
		label[ri] = int32(k + 1)
		o := 5 * (k + 1)
		st[o], st[o+1], st[o+2], st[o+3], st[o+4] = c.x0, c.y0, c.x1-c.x0, c.y1-c.y0, c.area
		fu[k+1] = c.full
	}
	for i, rn := range runs {
		l := label[ids[i]]
		seg := lab[int(rn.y)*w+int(rn.x0) : int(rn.y)*w+int(rn.x1)]
		for j := range seg {
			seg[j] = l
		}
	}
	s.labOK, s.labAt, s.labLen, s.labW = true, &lab[0], len(lab), w
	return n
}

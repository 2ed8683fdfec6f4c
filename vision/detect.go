package vision

import (
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/color"
	"math"
	"sort"
	"unsafe"

	"gocv.io/x/gocv"
)

// errBadMat reports a working Mat without the expected data.
var errBadMat = errors.New("vision: working mat has unexpected layout")

// candidate is one die found by segmentation, before its pips are read.
// The rectangle is centred at (cx, cy), with side w along the direction
// angle (radians) and side h across it.
type candidate struct {
	cx, cy    float64
	w, h      float64
	angle     float64
	edge      float64
	flatness  float64
	sizeRatio float64
	// weak: found only as a die-sized part of a larger region; kept only
	// when its face reads as a value.
	weak bool
	// guess: a die-sized part of a wall found without a known die size;
	// weak, and left out of the image's typical die size.
	guess bool
	// cut: it and its region reach the frame's edge (see typicalEdge).
	cut bool
	// over: found without a known die size, far larger than the
	// image's typical die; weak, and read only when no die of the
	// typical size reads (see Reader.ReadRegion).
	over bool
	// large: found with a known die size and pip spread, 1.6 to
	// largeMax expected edges and with no die-sized cells (a die on
	// another with both their shadows, or a die's long shadow); kept
	// only when its pips measure a die's face (see Reader.largeRead),
	// and then as size evidence only, unread (largeEvidence).
	large bool
	// cells: for a part of a cluster too large for one die (kept weak),
	// the die-sized cells the region covers (see Reader.ReadRegion).
	cells []candidate
	// pipsOnly: found by its pips alone (see pipGroups); its footprint
	// is a guess.
	pipsOnly bool
	// unsure: a part of a region where nothing read (see restCands).
	unsure bool
	// nPips: found as a group of this many pip spots (see
	// pipClusterCands); kept only when it reads as that many.
	nPips int
	// firstLook: only a first look's value can count for it, so the
	// later looks (capped at a second look's confidence) are not taken.
	firstLook bool
}

// guessMax is the largest edge, in typical die edges, of a die-sized
// part of a wall found without a known die size (a guess, kept only when
// it reads): dice of several sizes lie together, and a die against a
// wall takes in its shadow and the side faces the wall's slope shows.
const guessMax = 1.8

// toFrame scales a candidate found at detection scale sc to frame pixels.
func (c *candidate) toFrame(sc float64) {
	c.cx = (c.cx+0.5)/sc - 0.5
	c.cy = (c.cy+0.5)/sc - 0.5
	c.w /= sc
	c.h /= sc
	c.edge /= sc
}

// box is the axis-aligned bounding box of the candidate's rectangle.
func (c candidate) box() image.Rectangle {
	co, si := math.Abs(math.Cos(c.angle)), math.Abs(math.Sin(c.angle))
	hx := (c.w*co + c.h*si) / 2
	hy := (c.w*si + c.h*co) / 2
	return image.Rect(int(math.Floor(c.cx-hx)), int(math.Floor(c.cy-hy)),
		int(math.Ceil(c.cx+hx)), int(math.Ceil(c.cy+hy)))
}

// bgrImage is a view of a continuous 8-bit BGR Mat's bytes.
type bgrImage struct {
	pix  []uint8
	w, h int
}

// expectedAt is the expected die edge at a frame position, or 0.
func (r *Reader) expectedAt(x, y float64) float64 {
	if r.opts.ExpectedEdgePx != nil {
		return r.opts.ExpectedEdgePx(x, y)
	}
	return r.opts.DiePx
}

// detect segments the die bodies in r.frame and returns one candidate per
// die. off is the frame's offset in the whole image (for ExpectedEdgePx).
func (r *Reader) detect(off image.Point) ([]candidate, error) {
	// Segment at a resolution where a die is about detectPx across (or a
	// large uncalibrated frame at 640 px); pips are read at full size.
	const detectPx = 18
	r.rest, r.detEdge, r.pipCands = r.rest[:0], 0, r.pipCands[:0]
	fw, fh := r.frame.Cols(), r.frame.Rows()
	sFull := r.expectedAt(float64(off.X)+float64(fw)/2, float64(off.Y)+float64(fh)/2)
	sc := 1.0
	switch {
	case sFull > detectPx:
		sc = detectPx / sFull
	case sFull <= 0 && min(fw, fh) > 800:
		sc = 640 / float64(min(fw, fh))
	}
	src := &r.frame
	if sc < 1 {
		dw, dh := int(math.Round(float64(fw)*sc)), int(math.Round(float64(fh)*sc))
		if dw < 1 || dh < 1 {
			// The expected die is far larger than the frame (a wrong
			// --die-px): no die fits in it. OpenCV's resize to an empty
			// size throws, which aborts the process.
			return nil, nil
		}
		interp := gocv.InterpolationLinear
		if sc < 0.5 {
			interp = gocv.InterpolationArea
		}
		gocv.Resize(r.frame, &r.det, image.Pt(dw, dh), 0, 0, interp)
		src = &r.det
	} else {
		sc = 1
	}
	w, h := src.Cols(), src.Rows()
	s0 := sFull * sc
	minDim := min(w, h)

	// Local background: a median over a window several dice wide, taken
	// at a low resolution and scaled back up.
	win := float64(minDim) / 3
	if s0 > 0 {
		win = math.Max(48, math.Min(7*s0, float64(minDim)/2))
	}
	const k = 7
	f := win / k
	sw, sh := int(math.Max(k, math.Round(float64(w)/f))), int(math.Max(k, math.Round(float64(h)/f)))
	if err := r.area.resizeArea(*src, &r.small, sw, sh); err != nil {
		return nil, fmt.Errorf("vision: background cells: %w", err)
	}
	gocv.MedianBlur(r.small, &r.smed, k)
	gocv.Resize(r.smed, &r.bg, image.Pt(w, h), 0, 0, gocv.InterpolationLinear)

	if r.mask.Rows() != h || r.mask.Cols() != w || r.mask.Type() != gocv.MatTypeCV8U {
		r.mask.Close()
		r.mask = gocv.NewMatWithSize(h, w, gocv.MatTypeCV8U)
	}
	mpix, err := r.mask.DataPtrUint8()
	if err != nil {
		return nil, fmt.Errorf("vision: mask data: %w", err)
	}
	bpix, err := r.bg.DataPtrUint8()
	if err != nil {
		return nil, fmt.Errorf("vision: background data: %w", err)
	}
	fpix, err := src.DataPtrUint8()
	if err != nil {
		return nil, fmt.Errorf("vision: frame data: %w", err)
	}
	if cap(r.gradBuf) < 2*w*h {
		r.gradBuf = make([]uint8, 2*w*h)
	}
	gray := r.gradBuf[:w*h]
	// First look, on every other pixel of every other row: enough to
	// tell the floor from the rest.
	thr := diffSampled(fpix, bpix, w, h, mpix)
	// Second look at the background without the foreground: dice, walls
	// and their neighbourhood tint the median where they are dense (a
	// heap of dice, a tray's dark wall), and the floor there then differs
	// from it. The background is re-estimated from the pixels the first
	// mask left out; cells with too few of them take their neighbours'.
	spix, err := r.small.DataPtrUint8()
	if err != nil || len(spix) < 3*sw*sh {
		return nil, fmt.Errorf("vision: background cells: %w", errBadMat)
	}
	if refineBackground(fpix, mpix, thr, w, h, spix, sw, sh, &r.cellBuf, &r.colBuf) {
		// The cells are already clean: a small median only drops the
		// odd cell left tinted.
		gocv.MedianBlur(r.small, &r.smed, 3)
		gocv.Resize(r.smed, &r.bg, image.Pt(w, h), 0, 0, gocv.InterpolationLinear)
		if bpix, err = r.bg.DataPtrUint8(); err != nil {
			return nil, fmt.Errorf("vision: background data: %w", err)
		}
	}
	thr = diffMask(fpix, bpix, mpix, gray)
	// In place: 255 above thr, else 0.
	gocv.Threshold(r.mask, &r.mask, float32(thr), 255, gocv.ThresholdBinary)

	// Close small gaps (pips, glare) and fill holes, then drop specks.
	ck := 5
	if s0 > 0 {
		ck = int(math.Max(3, math.Round(s0/6))) | 1
	}
	if ck != r.closeKs {
		if r.closeKs > 0 {
			r.closeK.Close()
		}
		r.closeK = gocv.GetStructuringElement(gocv.MorphEllipse, image.Pt(ck, ck))
		r.closeKs = ck
	}
	gocv.MorphologyEx(r.mask, &r.tmp, gocv.MorphClose, r.closeK)
	holeMax := float64(minDim*minDim) / 100
	if s0 > 0 {
		holeMax = s0 * s0
	}
	if err := fillMatHoles(&r.tmp, &r.hier, int(holeMax)); err != nil {
		return nil, err
	}
	minArea := 60
	if s0 > 0 {
		minArea = int(0.2 * s0 * s0)
	}
	if err := r.addOutlined(gray, w, h, int(holeMax), minArea); err != nil {
		return nil, err
	}
	gocv.MorphologyEx(r.tmp, &r.mask, gocv.MorphOpen, r.openK)

	if r.lab.Rows() != h || r.lab.Cols() != w || r.lab.Type() != gocv.MatTypeCV32S {
		r.lab.Close()
		r.lab = gocv.NewMatWithSize(h, w, gocv.MatTypeCV32S)
		r.ccl.labOK = false
	}
	if cap(r.distBuf) < w*h {
		r.distBuf = make([]float32, w*h)
	}
	dist := r.distBuf[:w*h]
	lb, err := r.lab.DataPtrUint8()
	if err != nil || len(lb) < 4*w*h {
		return nil, fmt.Errorf("vision: label data: %w", errBadMat)
	}
	// Labels are CV_32S; view the bytes as int32 (native byte order).
	lab := unsafe.Slice((*int32)(unsafe.Pointer(&lb[0])), w*h)
	mk, err := r.mask.DataPtrUint8()
	if err != nil || len(mk) < w*h {
		return nil, fmt.Errorf("vision: mask data: %w", errBadMat)
	}
	mk = mk[:w*h]
	// As gocv.ConnectedComponentsWithStats (see labelComponents).
	n := labelComponents(mk, w, h, lab, &r.statBuf, &r.colourBuf, &r.ccl)
	stats := r.statBuf[:5*n]
	// Each component's pixels that differ from the background in colour
	// or brightness (255; 128 marks the regions added by their outline),
	// counted by labelComponents.
	colour := r.colourBuf[:n]
	var cands []candidate
	type comp struct {
		id    int32
		bb    image.Rectangle
		c0    int // its candidates are cands[c0:c1]
		c1    int
		big   bool
		split bool // its cores were found at a depth set by its own size
		// edge: found mostly by its outline, not its colour; its
		// candidates are kept only when they read.
		edge bool
	}
	var comps []comp
	seen := r.seen
	defer func() { r.seen = seen }()
	// specks: regions too small or thin for a die (the pips of a die
	// the colour mask did not take in, among others).
	// They and the regions (r.rest) are kept only for ReadRegion's rest
	// pass, which runs without a known die size.
	rest := !r.knownSize()
	specks := r.specks[:0]
	defer func() { r.specks = specks[:0] }()
	for i := 1; i < n; i++ {
		area := int(stats[5*i+4])
		x0, y0 := int(stats[5*i]), int(stats[5*i+1])
		bb := image.Rect(x0, y0, x0+int(stats[5*i+2]), y0+int(stats[5*i+3]))
		if rest && max(bb.Dx(), bb.Dy()) <= minDim/8 {
			specks = append(specks, speck{int32(i), bb, area})
		}
		if area < minArea {
			continue
		}
		if bb.Dx() > minDim/2 || bb.Dy() > minDim/2 {
			// A wall, a rail, a hand, a heap of chips: dice touching it
			// are looked for below, once the die size is known.
			comps = append(comps, comp{id: int32(i), bb: bb, big: true})
			if rest && s0 <= 0 {
				// Without a known die size, a wall's die-sized parts
				// are cut as guesses (see below): what they miss is
				// looked at again with the rest of the clusters.
				r.rest = append(r.rest, restComp{id: int32(i), bb: bb})
			}
			continue
		}
		chamfer(lab, dist, w, bb, int32(i))
		var maxD float32
		for y := bb.Min.Y; y < bb.Max.Y; y++ {
			for x := bb.Min.X; x < bb.Max.X; x++ {
				if lab[y*w+x] == int32(i) && dist[y*w+x] > maxD {
					maxD = dist[y*w+x]
				}
			}
		}
		if maxD < 4 {
			continue
		}
		t := 0.5 * float64(maxD)
		if s0 > 0 && t > 0.3*s0 {
			t = 0.3 * s0
		}
		cm := comp{id: int32(i), bb: bb, c0: len(cands), split: s0 <= 0, edge: float64(colour[i]) < 0.5*float64(area)}
		cores := findCores(lab, dist, w, bb, int32(i), float32(t), &seen)
		for _, core := range cores {
			c := rectOf(core)
			c.w += 2 * t
			c.h += 2 * t
			fill := 1.0
			if len(cores) == 1 {
				fill = float64(area) / (c.w * c.h)
			}
			cands = append(cands, splitLong(c, fill)...)
		}
		cm.c1 = len(cands)
		cut := atFrameEdge(bb, w, h)
		for k := cm.c0; k < cm.c1; k++ {
			cands[k].weak = cands[k].weak || cm.edge
			cands[k].cut = cut && atFrameEdge(cands[k].box(), w, h)
		}
		comps = append(comps, cm)
		if rest {
			r.rest = append(r.rest, restComp{id: cm.id, bb: bb})
		}
	}

	// The die size in detection pixels: known, or estimated from the
	// square candidates found so far.
	sd := s0
	if sd <= 0 {
		sd = typicalEdge(cands)
	}
	// Without a known die size, the estimate is trusted to cut a cluster
	// at its dice's centres when several lone, square regions gave it.
	// (With a known size, clusters are cut as before: cutting at the
	// centres did not help on the generated stills.)
	trusted := false
	if s0 <= 0 {
		lone := 0
		for _, cm := range comps {
			if c := cands[cm.c0:cm.c1]; len(c) == 1 && math.Min(c[0].w, c[0].h)/math.Max(c[0].w, c[0].h) > 0.75 {
				lone++
			}
		}
		trusted = lone >= 4
	}
	if sd > 0 {
		// Touching dice and dice touching a large region: in a region
		// too large for one die (a cluster whose core was found at half
		// its own depth, a wall), the parts deeper than 0.3 of a die
		// edge, cut into die-sized squares.
		var more []candidate
		for _, cm := range comps {
			if !cm.big {
				if !cm.split {
					more = append(more, cands[cm.c0:cm.c1]...)
					continue
				}
				over := false
				for _, c := range cands[cm.c0:cm.c1] {
					if c.edge > 1.4*sd || math.Max(c.w, c.h) > 1.6*sd {
						over = true
					}
				}
				if cm.c1-cm.c0 == 1 && cands[cm.c0].flatness >= 0.8 && cands[cm.c0].edge <= 1.6*sd {
					// One square, well-filled region: one die, larger
					// than most (dice of several sizes may lie together).
					over = false
				}
				if !over {
					more = append(more, cands[cm.c0:cm.c1]...)
					continue
				}
			}
			// Without a known die size, a die-sized part of a wall is
			// only a guess: kept when it reads.
			guess := cm.big && s0 <= 0
			t := 0.3 * sd
			if guess {
				// A wall or a rail is long and straight: its pixels lie
				// on a row or column run of the region much longer than
				// a die. Taking them out leaves the dice that touch it
				// on their own.
				stripRuns(lab, w, cm.bb, cm.id, int(math.Ceil(2.5*sd)), int(math.Round(0.7*sd)), &r.runBuf)
			}
			chamfer(lab, dist, w, cm.bb, cm.id)
			var found []candidate
			// Cut at the dice's centres with a trusted size; else only
			// at the depth of 0.3 of a die edge. A die cut at its
			// centre is kept only when it reads: where the cut runs is
			// a guess its pips confirm (on the stills, these cuts found
			// stacked dice too small to flag).
			var parts [][]image.Point
			var areas []int
			split := trusted
			if split {
				parts, areas = clusterParts(lab, dist, w, cm.bb, cm.id, t, sd, &r.ownBuf)
				split = len(parts) > 1
			}
			if !split {
				parts = findCores(lab, dist, w, cm.bb, cm.id, float32(t), &seen)
			}
			for pi, core := range parts {
				c := rectOf(core)
				// A part's fill of its rectangle; a core stands for
				// the whole region.
				var fill float64
				if split {
					fill = float64(areas[pi]) / (c.w * c.h)
				} else {
					c.w += 2 * t
					c.h += 2 * t
					fill = float64(stats[5*cm.id+4]) / (c.w * c.h)
				}
				// Dice pressed in a block (an L, a T: a region that
				// leaves a quarter of its rectangle empty) are cut into a
				// grid of dice, and so are dice by a wall (the wall
				// taken out); dice pressed in a row are cut apart.
				in := func(x, y int) bool {
					return x >= 0 && y >= 0 && x < w && y < h && lab[y*w+x] == cm.id
				}
				var pieces []candidate
				if guess || (!cm.big && fill < 0.75) {
					pieces = gridSplit(c, sd, in)
				}
				switch {
				case pieces != nil:
				case cm.big && !guess:
					// A die by a wall, its size known: one square.
					c.edge = (c.w + c.h) / 2
					c.flatness = flatness(math.Min(c.w, c.h)/math.Max(c.w, c.h), 1)
					pieces = []candidate{c}
				default:
					pieces = splitLong(c, 1)
				}
				for _, d := range pieces {
					aspect := math.Min(d.w, d.h) / math.Max(d.w, d.h)
					lo, hi := 0.75, 1.35
					if guess {
						// A part of a wall must read to be kept (see
						// guessMax).
						lo, hi = 0.7, guessMax
					}
					d.weak, d.guess = guess || split, guess
					d.cut = atFrameEdge(cm.bb, w, h) && atFrameEdge(d.box(), w, h)
					if aspect >= 0.75 && d.edge >= lo*sd && d.edge <= hi*sd {
						found = append(found, d)
						continue
					}
					if d.edge < lo*sd || cm.big {
						continue
					}
					// Too long or too large for one die: one die and
					// the side faces it shows, or dice pressed flat
					// together, which meet without a neck to cut at.
					// The piece is kept, weak, with the die-sized cells
					// the region covers, which stand for it when they
					// read (see ReadRegion).
					for _, e := range gridCells(d, sd, in) {
						ea := math.Min(e.w, e.h) / math.Max(e.w, e.h)
						if ea < 0.75 || e.edge < lo*sd || e.edge > hi*sd {
							continue
						}
						e.weak, e.guess = true, guess
						e.cut = atFrameEdge(cm.bb, w, h) && atFrameEdge(e.box(), w, h)
						d.cells = append(d.cells, e)
					}
					if len(d.cells) > 0 {
						d.weak = true
						found = append(found, d)
					}
				}
			}
			if cm.big || len(found) > 0 {
				if cm.edge {
					for i := range found {
						found[i].weak = true
					}
				}
				more = append(more, found...)
				continue
			}
			// Too large for one die, yet no die-sized part: kept only
			// if it reads.
			for _, c := range cands[cm.c0:cm.c1] {
				c.weak = true
				more = append(more, c)
			}
		}
		cands = more
	}

	// A die as light as the floor may show only its pips: a few like
	// specks close together, apart from the candidates.
	if rest {
		r.pipCands = pipGroups(specks, cands, sd, lab, w, h, r.pipCands[:0])
	}
	for i := range r.pipCands {
		r.pipCands[i].toFrame(sc)
	}
	for i := range cands {
		c := &cands[i]
		c.toFrame(sc)
		for k := range c.cells {
			c.cells[k].toFrame(sc)
		}
	}

	// Without a known size, keep candidates near the typical size (and
	// those far larger, to be read only if none of it reads).
	est := sFull
	if est <= 0 {
		sure := make([]candidate, 0, len(cands))
		for _, c := range cands {
			if !c.guess {
				sure = append(sure, c)
			}
		}
		if est = typicalEdge(sure); est <= 0 {
			return nil, nil
		}
	}
	r.detSc, r.detEdge = sc, est*sc
	out := cands[:0]
	for _, c := range cands {
		e := est
		if sFull > 0 {
			e = r.expectedAt(c.cx+float64(off.X), c.cy+float64(off.Y))
		}
		c.sizeRatio = c.edge / e
		cells := c.cells[:0]
		for _, d := range c.cells {
			if d.sizeRatio = d.edge / e; d.sizeRatio >= 0.6 && d.sizeRatio <= 1.6 && d.edge >= 8 {
				cells = append(cells, d)
			}
		}
		c.cells = cells
		if detTrace != nil {
			detTrace(c.box().Add(off), c.sizeRatio, len(c.cells), c.guess)
		}
		if c.sizeRatio < 0.6 || c.edge < 8 {
			continue
		}
		// Far larger than one die, with no die-sized cells and not a
		// wall's part: dropped with a known size (up to largeMax kept
		// when the dice's pip spread is known, see largeRead); without
		// one, the typical size may be clutter's (a keyboard's keys) and
		// the dice the larger regions, so up to three times it is kept.
		big := c.sizeRatio > 1.6 && len(c.cells) == 0 && !(c.guess && c.sizeRatio <= guessMax)
		if big && sFull > 0 && r.opts.PipSpread > 0 && c.sizeRatio <= largeMax && !largeOff {
			c.large = true
			out = append(out, c)
			continue
		}
		if big && (sFull > 0 || c.sizeRatio > 3) {
			continue
		}
		c.over = big
		c.weak = c.weak || c.over
		out = append(out, c)
	}
	return out, nil
}

// detTrace, when set (tests), sees each of detect's regions with a size
// (its box in the picture, its size over the expected edge, its die-sized
// cells, whether it is a guess) before the size decides whether it is
// kept.
var detTrace func(box image.Rectangle, sizeRatio float64, cells int, guess bool)

// stripRuns clears (to label 0) the pixels of component id, inside bb,
// that belong to a wall: a horizontal or vertical run of the component at
// least minRun pixels long, most of whose pixels are thin across it (a
// run, the other way, under thick pixels). A run through a row of dice is
// thick across and stays; a wall's run goes on under the dice that touch
// it, so they come away. run is scratch.
func stripRuns(lab []int32, w int, bb image.Rectangle, id int32, minRun, thick int, run *[]uint16) {
	bw, bh := bb.Dx(), bb.Dy()
	n := bw * bh
	if cap(*run) < 3*n {
		*run = make([]uint16, 3*n)
	}
	// hr and vr: each pixel's run length along its row and its column;
	// tc: the number of pixels of its column run thin along their row.
	hr, vr, tc := (*run)[:n], (*run)[n:2*n], (*run)[2*n:3*n]
	sat := func(v int) uint16 { return uint16(min(v, 65535)) }
	for y := 0; y < bh; y++ {
		row := lab[(bb.Min.Y+y)*w+bb.Min.X:][:bw]
		h := hr[y*bw:][:bw]
		for x := 0; x < bw; {
			if row[x] != id {
				h[x] = 0
				x++
				continue
			}
			e := x
			for e < bw && row[e] == id {
				e++
			}
			for k := x; k < e; k++ {
				h[k] = sat(e - x)
			}
			x = e
		}
	}
	// Column runs, row by row: counts down the column, then each run's
	// total carried back up it.
	for y := 0; y < bh; y++ {
		row := lab[(bb.Min.Y+y)*w+bb.Min.X:][:bw]
		v, t, h := vr[y*bw:][:bw], tc[y*bw:][:bw], hr[y*bw:][:bw]
		for x := range v {
			if row[x] != id {
				v[x], t[x] = 0, 0
				continue
			}
			var pv, pt uint16
			if y > 0 {
				pv, pt = vr[(y-1)*bw+x], tc[(y-1)*bw+x]
			}
			v[x] = sat(int(pv) + 1)
			t[x] = pt
			if int(h[x]) < thick {
				t[x] = sat(int(pt) + 1)
			}
		}
	}
	for y := bh - 2; y >= 0; y-- {
		v, t := vr[y*bw:][:bw], tc[y*bw:][:bw]
		vn, tn := vr[(y+1)*bw:][:bw], tc[(y+1)*bw:][:bw]
		for x := range v {
			if v[x] != 0 && vn[x] != 0 {
				v[x], t[x] = vn[x], tn[x]
			}
		}
	}
	// A long run, mostly thin across: a wall. The decisions read only
	// the run counts, so the wall is cleared as it is found.
	for y := 0; y < bh; y++ {
		row := lab[(bb.Min.Y+y)*w+bb.Min.X:][:bw]
		h, v, t := hr[y*bw:][:bw], vr[y*bw:][:bw], tc[y*bw:][:bw]
		for x := 0; x < bw; {
			k := int(h[x])
			if k == 0 {
				x++
				continue
			}
			if k >= minRun {
				thin := 0
				for j := x; j < x+k; j++ {
					if int(v[j]) < thick {
						thin++
					}
				}
				if 2*thin >= k {
					for j := x; j < x+k; j++ {
						row[j] = 0
					}
				}
			}
			x += k
		}
		for x := range v {
			if int(v[x]) >= minRun && 2*int(t[x]) >= int(v[x]) {
				row[x] = 0
			}
		}
	}
}

// zeroedInt32s is the first n of the scratch *buf, all zero; *buf is
// made anew when it holds fewer than n.
func zeroedInt32s(buf *[]int32, n int) []int32 {
	if cap(*buf) < n {
		*buf = make([]int32, n)
	}
	s := (*buf)[:n]
	clear(s)
	return s
}

// findCores returns the outline pixels of the connected parts of
// component id (inside bb) whose distance to the background is at least
// t (only the outline matters for the enclosing rectangle).
func findCores(lab []int32, dist []float32, w int, bb image.Rectangle, id int32, t float32, seen *[]int32) [][]image.Point {
	bw, bh := bb.Dx(), bb.Dy()
	s := zeroedInt32s(seen, bw*bh)
	// Pixels in bb's own coordinates; deep tells a pixel of the part.
	deep := func(x, y int) bool {
		i := (y+bb.Min.Y)*w + x + bb.Min.X
		return lab[i] == id && dist[i] >= t
	}
	var cores [][]image.Point
	// Pixels as x | y<<16 (bb is far smaller than 65536 a side).
	var stack, pts []uint32
	for y := 0; y < bh; y++ {
		for x := 0; x < bw; x++ {
			if s[y*bw+x] != 0 || !deep(x, y) {
				continue
			}
			s[y*bw+x] = 1
			stack = append(stack[:0], uint32(x|y<<16))
			pts = pts[:0]
			for len(stack) > 0 {
				p := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				pts = append(pts, p)
				px, py := int(p&0xffff), int(p>>16)
				i := py*bw + px
				if px+1 < bw && s[i+1] == 0 && deep(px+1, py) {
					s[i+1] = 1
					stack = append(stack, p+1)
				}
				if px > 0 && s[i-1] == 0 && deep(px-1, py) {
					s[i-1] = 1
					stack = append(stack, p-1)
				}
				if py+1 < bh && s[i+bw] == 0 && deep(px, py+1) {
					s[i+bw] = 1
					stack = append(stack, p+1<<16)
				}
				if py > 0 && s[i-bw] == 0 && deep(px, py-1) {
					s[i-bw] = 1
					stack = append(stack, p-1<<16)
				}
			}
			if len(pts) < 2 {
				continue
			}
			// The part's outline: pixels with a 4-neighbour outside it
			// (a neighbour seen belongs to this part: parts found
			// before are not connected to it).
			outer := func(p uint32) bool {
				px, py := int(p&0xffff), int(p>>16)
				i := py*bw + px
				return px == 0 || py == 0 || px == bw-1 || py == bh-1 ||
					s[i-1] == 0 || s[i+1] == 0 || s[i-bw] == 0 || s[i+bw] == 0
			}
			n := 0
			for _, p := range pts {
				if outer(p) {
					n++
				}
			}
			edge := make([]image.Point, 0, n)
			for _, p := range pts {
				if outer(p) {
					edge = append(edge, image.Pt(int(p&0xffff)+bb.Min.X, int(p>>16)+bb.Min.Y))
				}
			}
			cores = append(cores, edge)
		}
	}
	return cores
}

// rectOf is the minimum-area rectangle (to 2 degrees) around the pixel
// centres of pts, each pixel counted as a unit square.
func rectOf(pts []image.Point) candidate {
	// Along a row, both projections change monotonically with x (and so
	// does their rounding): a row's extremes in any direction are among
	// its leftmost and rightmost pixels. Only those are projected.
	var buf [2 * rectRows][2]float64
	ext := rowExtremes(pts, buf[:0])
	if len(ext) <= 2*rectRows {
		// Row by row, in order: only the hull's boundary can hold a
		// projection's extreme (see hullBoundary).
		var hb [64][2]float64
		ext = hullBoundary(ext, hb[:0])
	}
	return minRect(ext, 2, rectOfCos[:], rectOfSin[:])
}

// hullBoundary appends to out the points of pts (sorted by y, then x) on
// the boundary of their convex hull, those along its edges included (the
// two chains of Andrew's monotone chain, a point dropped only on a strict
// turn; the half-pixel coordinates' cross products are exact). minRect
// on them is minRect on pts, to the bit: a projection's largest computed
// value over pts is that of a point on the boundary, since a point
// inside the hull falls short of the boundary's extreme by far more than
// rounding (at the turns minRect takes, whole or even degrees, an
// integer step a*cos + b*sin between pixels is either an exact tie,
// at 0 and 45 degrees, along an edge kept here, or at least about 1e-6
// for steps within a frame; TestHullMargins), and ties on the boundary
// give the same value.
func hullBoundary(pts [][2]float64, out [][2]float64) [][2]float64 {
	if len(pts) < 3 {
		return append(out, pts...)
	}
	// cross is the turn o->a->b with y as the first coordinate.
	cross := func(o, a, b [2]float64) float64 {
		return (a[1]-o[1])*(b[0]-o[0]) - (a[0]-o[0])*(b[1]-o[1])
	}
	start := len(out)
	for _, p := range pts {
		for len(out)-start >= 2 && cross(out[len(out)-2], out[len(out)-1], p) < 0 {
			out = out[:len(out)-1]
		}
		out = append(out, p)
	}
	start = len(out)
	for i := len(pts) - 1; i >= 0; i-- {
		p := pts[i]
		for len(out)-start >= 2 && cross(out[len(out)-2], out[len(out)-1], p) < 0 {
			out = out[:len(out)-1]
		}
		out = append(out, p)
	}
	return out
}

// minRect is the minimum-area rectangle, over turns of step degrees from
// 0 up to 90 (cosT and sinT hold each turn's cosine and sine), around the
// pixel centres pts, each pixel counted as a unit square.
func minRect(pts [][2]float64, step int, cosT, sinT []float64) candidate {
	best := candidate{w: math.Inf(1), h: 1}
	for deg := 0; deg < 90; deg += step {
		a := float64(deg) * math.Pi / 180
		co, si := cosT[deg/step], sinT[deg/step]
		u0, u1, v0, v1 := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
		for _, p := range pts {
			u := p[0]*co + p[1]*si
			v := -p[0]*si + p[1]*co
			// Finite values: the same as min and max, without their
			// NaN checks.
			if u < u0 {
				u0 = u
			}
			if u > u1 {
				u1 = u
			}
			if v < v0 {
				v0 = v
			}
			if v > v1 {
				v1 = v
			}
		}
		// A pixel square projects to up to |cos|+|sin| wide.
		pad := math.Abs(co) + math.Abs(si)
		cw, ch := u1-u0+pad, v1-v0+pad
		if cw*ch < best.w*best.h {
			uc, vc := (u0+u1)/2, (v0+v1)/2
			best = candidate{cx: uc*co - vc*si, cy: uc*si + vc*co, w: cw, h: ch, angle: a}
		}
	}
	return best
}

// rectRows is the most rows rowExtremes reduces on the stack.
const rectRows = 256

// rowExtremes appends to out the centres of the leftmost and rightmost
// pixel of each row of pts (all of pts when they span more than rectRows
// rows).
func rowExtremes(pts []image.Point, out [][2]float64) [][2]float64 {
	if len(pts) == 0 {
		return out
	}
	y0, y1 := pts[0].Y, pts[0].Y
	for _, p := range pts {
		y0, y1 = min(y0, p.Y), max(y1, p.Y)
	}
	if y1-y0 >= rectRows {
		for _, p := range pts {
			out = append(out, [2]float64{float64(p.X) + 0.5, float64(p.Y) + 0.5})
		}
		return out
	}
	var lo, hi [rectRows]int
	rows := y1 - y0 + 1
	for i := 0; i < rows; i++ {
		lo[i], hi[i] = math.MaxInt, math.MinInt
	}
	for _, p := range pts {
		i := p.Y - y0
		lo[i], hi[i] = min(lo[i], p.X), max(hi[i], p.X)
	}
	for i := 0; i < rows; i++ {
		if lo[i] > hi[i] {
			continue
		}
		y := float64(y0+i) + 0.5
		out = append(out, [2]float64{float64(lo[i]) + 0.5, y})
		if hi[i] != lo[i] {
			out = append(out, [2]float64{float64(hi[i]) + 0.5, y})
		}
	}
	return out
}

// rectOfCos and rectOfSin hold rectOf's angles' cosines and sines.
var rectOfCos, rectOfSin = func() (c, s [45]float64) {
	for deg := 0; deg < 90; deg += 2 {
		a := float64(deg) * math.Pi / 180
		c[deg/2], s[deg/2] = math.Cos(a), math.Sin(a)
	}
	return c, s
}()

// splitLong splits a rectangle that holds several dice in a row into
// squares and sets each one's edge and flatness.
func splitLong(c candidate, fill float64) []candidate {
	long, short := math.Max(c.w, c.h), math.Min(c.w, c.h)
	n := int(math.Round(long / short))
	if long/short < 1.6 || n < 2 {
		c.edge = (c.w + c.h) / 2
		c.flatness = flatness(short/long, fill)
		return []candidate{c}
	}
	if n > 4 {
		n = 4
	}
	ux, uy := math.Cos(c.angle), math.Sin(c.angle)
	if c.h > c.w {
		ux, uy = -uy, ux
	}
	step := long / float64(n)
	out := make([]candidate, 0, n)
	for k := 0; k < n; k++ {
		o := (float64(k) + 0.5 - float64(n)/2) * step
		d := candidate{cx: c.cx + o*ux, cy: c.cy + o*uy, angle: c.angle}
		if c.h > c.w {
			d.w, d.h = short, step
		} else {
			d.w, d.h = step, short
		}
		d.edge = (d.w + d.h) / 2
		d.flatness = flatness(math.Min(d.w, d.h)/math.Max(d.w, d.h), fill)
		out = append(out, d)
	}
	return out
}

// gridSplit cuts a rectangle at least two dice wide both ways (dice
// pressed together in a block, an L or a T) into a grid of die-sized
// cells along its sides, and keeps the cells that in(x, y) (a pixel of
// the region) covers. It returns nil for a rectangle less than two dice
// wide either way.
func gridSplit(c candidate, sd float64, in func(x, y int) bool) []candidate {
	if math.Min(c.w, c.h) < 1.6*sd {
		return nil
	}
	return gridCells(c, sd, in)
}

// gridCells cuts a rectangle into a grid of cells about sd (a die edge)
// across, up to four each way, and keeps the cells that in(x, y) covers.
func gridCells(c candidate, sd float64, in func(x, y int) bool) []candidate {
	nu, nv := max(1, int(math.Round(c.w/sd))), max(1, int(math.Round(c.h/sd)))
	nu, nv = min(nu, 4), min(nv, 4)
	cw, ch := c.w/float64(nu), c.h/float64(nv)
	ux, uy := math.Cos(c.angle), math.Sin(c.angle)
	vx, vy := -uy, ux
	var out []candidate
	for i := 0; i < nu; i++ {
		for j := 0; j < nv; j++ {
			ou := (float64(i) + 0.5 - float64(nu)/2) * cw
			ov := (float64(j) + 0.5 - float64(nv)/2) * ch
			d := candidate{cx: c.cx + ou*ux + ov*vx, cy: c.cy + ou*uy + ov*vy, w: cw, h: ch, angle: c.angle}
			// Coverage on a 6x6 grid over the cell's inner 80%.
			hit := 0
			for a := 0; a < 6; a++ {
				for b := 0; b < 6; b++ {
					su := (float64(a) - 2.5) / 6 * 0.8 * cw
					sv := (float64(b) - 2.5) / 6 * 0.8 * ch
					if in(int(d.cx+su*ux+sv*vx), int(d.cy+su*uy+sv*vy)) {
						hit++
					}
				}
			}
			fill := float64(hit) / 36
			if fill < 0.8 {
				continue
			}
			d.edge = (cw + ch) / 2
			d.flatness = flatness(math.Min(cw, ch)/math.Max(cw, ch), fill)
			out = append(out, d)
		}
	}
	return out
}

// flatness scores how much a footprint looks like a flat die's square top
// face: 1 for a full square, lower for a rectangle or a ragged outline.
func flatness(aspect, fill float64) float64 {
	f := fill / 0.85
	if f > 1 {
		f = 1
	}
	return aspect * f
}

func percentile(hist []int, total int, p float64) int {
	want := int(p * float64(total))
	acc := 0
	for v, c := range hist {
		acc += c
		if acc > want {
			return v
		}
	}
	return len(hist) - 1
}

func clamp(v, lo, hi float64) float64 {
	return math.Max(lo, math.Min(hi, v))
}

// fillMatHoles fills the holes in m's regions smaller than maxArea (pips,
// glare on a die's face) that the closing left open. Larger holes (the
// floor inside a tray's walls) stay open. hierM is scratch.
func fillMatHoles(m, hierM *gocv.Mat, maxArea int) error {
	cs := gocv.FindContoursWithParams(*m, hierM, gocv.RetrievalCComp, gocv.ChainApproxSimple)
	defer cs.Close()
	n := cs.Size()
	if n == 0 {
		return nil
	}
	hb, err := hierM.DataPtrUint8()
	if err != nil || len(hb) < 16*n {
		return fmt.Errorf("vision: contour hierarchy: %w", errBadMat)
	}
	// Each entry is next, previous, first child, parent.
	hier := unsafe.Slice((*int32)(unsafe.Pointer(&hb[0])), 4*n)
	holes := gocv.NewPointsVector()
	defer holes.Close()
	for i := 0; i < n; i++ {
		if hier[4*i+3] < 0 {
			continue // an outer boundary
		}
		if pv := cs.At(i); gocv.ContourArea(pv) < float64(maxArea) {
			holes.Append(pv)
		}
	}
	if holes.Size() > 0 {
		gocv.FillPoly(m, holes, color.RGBA{255, 255, 255, 0})
	}
	return nil
}

// abs32 is |v|, without a branch (noisy data defeats prediction).
func abs32(v int32) int32 {
	s := v >> 31 // all ones when negative
	return (v ^ s) - s
}

// chamfer sets dist, inside bb, to each pixel of component id's distance
// to the nearest pixel outside it (a 3-4 chamfer approximation of the
// Euclidean distance, in pixels).
func chamfer(lab []int32, dist []float32, w int, bb image.Rectangle, id int32) {
	x0, x1, y0, y1 := bb.Min.X, bb.Max.X, bb.Min.Y, bb.Max.Y
	bw := x1 - x0
	if bw <= 0 || y1 <= y0 {
		return
	}
	// Pixels outside bb count as 0. All values are small integers, exact
	// in float32, and a min does not depend on its order; they stay far
	// below any cap, and are never NaN or negative, so plain comparisons
	// give what min does.
	for y := y0; y < y1; y++ {
		lr, dr := lab[y*w+x0:][:bw], dist[y*w+x0:][:bw]
		if y == y0 {
			// Every neighbour above is outside: 3 at most, and at
			// least 3 as the left one is never negative.
			for x, l := range lr {
				dr[x] = 0
				if l == id {
					dr[x] = 3
				}
			}
			continue
		}
		up := dist[(y-1)*w+x0:][:bw]
		for x, l := range lr {
			if l != id {
				dr[x] = 0
				continue
			}
			v := up[x] + 3
			var ur float32
			if x+1 < bw {
				ur = up[x+1]
			}
			if d := ur + 4; d < v {
				v = d
			}
			var lf, ul float32
			if x > 0 {
				lf, ul = dr[x-1], up[x-1]
			}
			if d := lf + 3; d < v {
				v = d
			}
			if d := ul + 4; d < v {
				v = d
			}
			dr[x] = v
		}
	}
	for y := y1 - 1; y >= y0; y-- {
		lr, dr := lab[y*w+x0:][:bw], dist[y*w+x0:][:bw]
		var dn []float32
		if y+1 < y1 {
			dn = dist[(y+1)*w+x0:][:bw]
		}
		for x := bw - 1; x >= 0; x-- {
			if lr[x] != id {
				continue
			}
			v := dr[x]
			var rt, d, dr1, dl float32
			if x+1 < bw {
				rt = dr[x+1]
			}
			if dn != nil {
				d = dn[x]
				if x+1 < bw {
					dr1 = dn[x+1]
				}
				if x > 0 {
					dl = dn[x-1]
				}
			}
			if e := rt + 3; e < v {
				v = e
			}
			if e := d + 3; e < v {
				v = e
			}
			if e := dr1 + 4; e < v {
				v = e
			}
			if e := dl + 4; e < v {
				v = e
			}
			dr[x] = v
		}
	}
	for y := y0; y < y1; y++ {
		row := dist[y*w+x0:][:bw]
		for i := range row {
			row[i] /= 3
		}
	}
}

// topFace trims an oblong footprint to the square top face. Seen from
// above but off-centre, a die shows its top face and the sides that face
// the optical centre (ocx, ocy); the top face, nearer the camera, is the
// end of the footprint away from the centre.
func topFace(c candidate, ocx, ocy float64) candidate {
	if !trimsToTop(c) {
		return c
	}
	long, short := math.Max(c.w, c.h), math.Min(c.w, c.h)
	ux, uy := math.Cos(c.angle), math.Sin(c.angle)
	if c.h > c.w {
		ux, uy = -uy, ux
	}
	if (c.cx-ocx)*ux+(c.cy-ocy)*uy < 0 {
		ux, uy = -ux, -uy
	}
	shift := (long - short) / 2
	c.cx += shift * ux
	c.cy += shift * uy
	c.w, c.h = short, short
	c.edge = short
	return c
}

// trimsToTop reports whether topFace trims c: a footprint oblong as a
// top face and a side face are (short side 0.55 to 0.88 of the long).
// For any other, the point the sides face does not matter.
func trimsToTop(c candidate) bool {
	long, short := math.Max(c.w, c.h), math.Min(c.w, c.h)
	return !(short/long > 0.88 || short/long < 0.55)
}

// medianSquareEdge is the area-weighted median edge of the square-looking
// candidates (so specks of texture do not outvote the dice), or 0 when
// there are none.
func medianSquareEdge(cands []candidate) float64 {
	var edges []float64
	var total float64
	for _, c := range cands {
		if math.Min(c.w, c.h)/math.Max(c.w, c.h) > 0.75 {
			edges = append(edges, c.edge)
			total += c.edge * c.edge
		}
	}
	if len(edges) == 0 {
		return 0
	}
	sort.Float64s(edges)
	var acc float64
	for _, e := range edges {
		acc += e * e
		if acc >= total/2 {
			return e
		}
	}
	return edges[len(edges)-1]
}

// diffMask sets mpix to each pixel's difference from the background
// (0-255) and returns the threshold above which a pixel is foreground.
func diffMask(fpix, bpix, mpix, gray []uint8) uint8 {
	// Four histograms, one per pixel index mod 4: runs of equal values
	// do not wait on each other's increments.
	var hists [4][256]int32
	n := len(mpix)
	fpix, bpix, gray = fpix[:3*n], bpix[:3*n], gray[:n]
	start := 0
	if useSIMD && 3*n >= 32 {
		// diff8 reads 32 bytes for each group of eight pixels' 24: the
		// last group must end its read inside the frame.
		groups := (3*n-32)/24 + 1
		diff8(&fpix[0], &bpix[0], groups, &mpix[0], &gray[0], &brightDiffPad[0])
		start = 8 * groups
		countBytes4(&hists, mpix[:start])
	}
	for i := start; i < n; i++ {
		// pixDiff, written out.
		f, b := fpix[3*i:3*i+3:3*i+3], bpix[3*i:3*i+3:3*i+3]
		pb, pg, pr := int32(f[0]), int32(f[1]), int32(f[2])
		bb, bg, br := int32(b[0]), int32(b[1]), int32(b[2])
		pm, bm := int32(uint32(pb+pg+pr)/3), int32(uint32(bb+bg+br)/3)
		dm := pm - bm
		m := abs32(pb-bb-dm) + abs32(pg-bg-dm) + abs32(pr-br-dm)
		m8 := max(uint8(min(m, 255)), brightDiff[uint16(pm)<<8|uint16(bm)])
		gray[i] = uint8(pm)
		mpix[i] = m8
		hists[i&3][m8]++
	}
	var hist [256]int
	for v := range hist {
		hist[v] = int(hists[0][v]) + int(hists[1][v]) + int(hists[2][v]) + int(hists[3][v])
	}
	return diffThreshold(&hist, n)
}

// countBytes4 counts b's bytes into four histograms, byte i into
// hists[i%4]: runs of equal values do not wait on each other's
// increments. (Only the four histograms' sum is used.)
func countBytes4(hists *[4][256]int32, b []uint8) {
	for len(b) >= 4 {
		hists[0][b[0]]++
		hists[1][b[1]]++
		hists[2][b[2]]++
		hists[3][b[3]]++
		b = b[4:]
	}
	for i, v := range b {
		hists[i][v]++
	}
}

// brightDiff[pm<<8|bm] is pixDiff's brightness term for a pixel of grey
// level pm on a background of grey level bm, capped at 255: a table
// instead of a division per pixel. A brightness change beyond what a
// soft shadow does counts: the ratio q = 256*pm/bm below 150 or above
// 280.
var brightDiff = func() (t [1 << 16]uint8) {
	for pm := int32(0); pm < 256; pm++ {
		for bm := int32(1); bm < 256; bm++ {
			var m int32
			switch a := 256 * pm; {
			case a < 150*bm:
				m = (150 - a/bm) * 2
			case a >= 281*bm:
				m = (a/bm - 280) * 2
			}
			t[pm<<8|bm] = uint8(min(m, 255))
		}
	}
	return t
}()

// brightDiffPad is brightDiff with three bytes after it, for diff8's
// four-byte reads.
var brightDiffPad = func() (t [1<<16 + 3]uint8) {
	copy(t[:], brightDiff[:])
	return t
}()

// diffThreshold is the foreground threshold for a histogram of n pixel
// differences: above the background's own variation.
func diffThreshold(hist *[256]int, n int) uint8 {
	med := percentile(hist[:], n, 0.5)
	return uint8(clamp(float64(med)*3+14, 20, 60))
}

// pixDiff is a BGR pixel's difference from the background's colour
// (0-255), and the pixel's grey level.
func pixDiff(f, b []uint8) (uint8, int32) {
	// A die differs from the local background in colour, or is much
	// darker or brighter than it (brightDiff); a shadow is only
	// moderately darker and keeps the background's colour.
	pb, pg, pr := int32(f[0]), int32(f[1]), int32(f[2])
	bb, bg, br := int32(b[0]), int32(b[1]), int32(b[2])
	pm, bm := int32(uint32(pb+pg+pr)/3), int32(uint32(bb+bg+br)/3)
	// Per channel, (pixel - its mean) - (background - its mean).
	dm := pm - bm
	m := abs32(pb-bb-dm) + abs32(pg-bg-dm) + abs32(pr-br-dm)
	return max(uint8(min(m, 255)), brightDiff[uint16(pm)<<8|uint16(bm)]), pm
}

// diffSampled is diffMask on the pixels at even x and y only: it stores
// each one's difference at its own index in mpix (the others are left
// as they are) and returns the threshold.
func diffSampled(fpix, bpix []uint8, w, h int, mpix []uint8) uint8 {
	// Two histograms, for even and odd samples: runs of equal values do
	// not wait on each other's increments.
	var hists [2][256]int32
	n := 0
	// On AVX2, diff8 works out every pixel of a sampled row into rowM
	// (twice the samples, but several times faster), and the samples are
	// taken from it; groups is how many groups of eight it can read
	// within a row.
	var rowM, rowG []uint8
	groups := 0
	if useSIMD && 3*w >= 32 {
		groups = (3*w-32)/24 + 1
		rowM, rowG = make([]uint8, 8*groups), make([]uint8, 8*groups)
	}
	for y := 0; y < h; y += 2 {
		// Row slices of equal, known lengths: no bounds checks inside.
		f, b, m := fpix[3*y*w:][:3*w], bpix[3*y*w:][:3*w], mpix[y*w:][:w]
		x := 0
		if groups > 0 {
			diff8(&f[0], &b[0], groups, &rowM[0], &rowG[0], &brightDiffPad[0])
			for ; x < 8*groups; x += 2 {
				m8 := rowM[x]
				m[x] = m8
				hists[x>>1&1][m8]++
			}
		}
		for ; x < w; x += 2 {
			// pixDiff, written out.
			pb, pg, pr := int32(f[3*x]), int32(f[3*x+1]), int32(f[3*x+2])
			bb, bg, br := int32(b[3*x]), int32(b[3*x+1]), int32(b[3*x+2])
			pm, bm := int32(uint32(pb+pg+pr)/3), int32(uint32(bb+bg+br)/3)
			dm := pm - bm
			d := abs32(pb-bb-dm) + abs32(pg-bg-dm) + abs32(pr-br-dm)
			m8 := max(uint8(min(d, 255)), brightDiff[uint16(pm)<<8|uint16(bm)])
			m[x] = m8
			hists[x>>1&1][m8]++
		}
		n += (w + 1) / 2
	}
	var hist [256]int
	for v := range hist {
		hist[v] = int(hists[0][v]) + int(hists[1][v])
	}
	return diffThreshold(&hist, n)
}

// refineBackground re-estimates the background cells (spix, sw x sh BGR)
// as the mean of the frame pixels at even x and y whose difference m is
// at most thr.
// A cell with too few such pixels takes the mean of its filled
// neighbours, repeatedly. It reports false (spix untouched) when no cell
// has enough background.
func refineBackground(fpix, mpix []uint8, thr uint8, w, h int, spix []uint8, sw, sh int, buf, colBuf *[]int32) bool {
	n := sw * sh
	acc := zeroedInt32s(buf, 4*n)
	// Each sampled column's cell column, worked out once rather than
	// divided per pixel.
	if cap(*colBuf) < w {
		*colBuf = make([]int32, w)
	}
	col := (*colBuf)[:w]
	for x := 0; x < w; x += 2 {
		col[x] = int32(x * sw / w)
	}
	for y := 0; y < h; y += 2 {
		row := y * sh / h * sw
		m := mpix[y*w:][:w]
		f := fpix[3*y*w:][:3*w]
		// A run of samples in one cell is summed in registers and
		// added to the cell once (integer sums: the order does not
		// matter).
		for x := 0; x < w; {
			cc := col[x]
			var sb, sg, sr, k int32
			for ; x < w && col[x] == cc; x += 2 {
				if m[x] > thr {
					continue
				}
				p := f[3*x : 3*x+3 : 3*x+3]
				sb += int32(p[0])
				sg += int32(p[1])
				sr += int32(p[2])
				k++
			}
			c := 4 * (row + int(cc))
			acc[c] += sb
			acc[c+1] += sg
			acc[c+2] += sr
			acc[c+3] += k
		}
	}
	// Enough: a quarter of the cell's pixels sampled.
	need := int32(max(1, w*h/n/16))
	filled := 0
	for c := 0; c < n; c++ {
		if k := acc[4*c+3]; k >= need {
			spix[3*c] = uint8(acc[4*c] / k)
			spix[3*c+1] = uint8(acc[4*c+1] / k)
			spix[3*c+2] = uint8(acc[4*c+2] / k)
			acc[4*c+3] = 1
			filled++
		} else {
			acc[4*c+3] = 0
		}
	}
	if filled == 0 {
		return false
	}
	for filled < n {
		var next []int
		for cy := 0; cy < sh; cy++ {
			for cx := 0; cx < sw; cx++ {
				c := cy*sw + cx
				if acc[4*c+3] != 0 {
					continue
				}
				var sb, sg, sr, k int
				for dy := -1; dy <= 1; dy++ {
					for dx := -1; dx <= 1; dx++ {
						x, y := cx+dx, cy+dy
						if x < 0 || y < 0 || x >= sw || y >= sh || acc[4*(y*sw+x)+3] != 1 {
							continue
						}
						d := 3 * (y*sw + x)
						sb += int(spix[d])
						sg += int(spix[d+1])
						sr += int(spix[d+2])
						k++
					}
				}
				if k > 0 {
					spix[3*c] = uint8(sb / k)
					spix[3*c+1] = uint8(sg / k)
					spix[3*c+2] = uint8(sr / k)
					next = append(next, c)
				}
			}
		}
		for _, c := range next {
			acc[4*c+3] = 1
		}
		filled += len(next)
	}
	return true
}

// addOutlined adds to r.tmp (the closed colour mask, 0 or 255), with
// value 128, the regions found only by their outline: a die whose colour
// and brightness are too close to the floor's (white on white) still
// shows its edges and its pips. The colour mask plus the brightness
// edges is closed and filled like the colour mask; each of its regions
// that is large enough and less than 80% colour (a die whose colour mask
// is only its pips and some shading) is added. A region that ends up
// mostly outline (less than half colour) is kept only if it reads.
func (r *Reader) addOutlined(gray []uint8, w, h, holeMax, minArea int) error {
	r.tmp.CopyTo(&r.gmask)
	gpix, err := r.gmask.DataPtrUint8()
	if err != nil || len(gpix) < w*h {
		return fmt.Errorf("vision: outline mask: %w", errBadMat)
	}
	gradMask(gray, gpix, w, h, r.gradBuf[w*h:2*w*h])
	gocv.MorphologyEx(r.gmask, &r.gtmp, gocv.MorphClose, r.closeK)
	if err := fillMatHoles(&r.gtmp, &r.hier, holeMax); err != nil {
		return err
	}
	fillOpenOutlines(&r.gtmp, minArea, min(w, h)/8)
	gocv.MorphologyEx(r.gtmp, &r.gmask, gocv.MorphOpen, r.openK)
	tpix, err := r.tmp.DataPtrUint8()
	if err != nil || len(tpix) < w*h {
		return fmt.Errorf("vision: mask data: %w", errBadMat)
	}
	gpix, err = r.gmask.DataPtrUint8()
	if err != nil || len(gpix) < w*h {
		return fmt.Errorf("vision: outline mask: %w", errBadMat)
	}
	// Only a region (8-connected) of the outline mask with a pixel
	// outside the colour mask can add anything: each such region is
	// flooded from that pixel, its size, box and colour counted, and its
	// pixels outside the colour mask marked when it qualifies. Flooded
	// pixels are cleared in gpix, so each region is visited once.
	md := min(w, h) / 2
	if w >= 1<<15 || h >= 1<<15 {
		return fmt.Errorf("vision: outline mask %dx%d too large", w, h)
	}
	// pts holds each flooded pixel as y<<16 | x.
	pts := r.seen[:0]
	defer func() { r.seen = pts }()
	for s := 0; s < w*h; s++ {
		// Most of the outline mask is empty: eight zero bytes at a time.
		if s&7 == 0 && s+8 <= w*h && binary.NativeEndian.Uint64(gpix[s:]) == 0 {
			s += 7
			continue
		}
		if gpix[s] == 0 || tpix[s] != 0 {
			continue
		}
		gpix[s] = 0
		pts = append(pts[:0], int32(s/w)<<16|int32(s%w))
		x0, x1, y0, y1 := w, -1, h, -1
		var colour int
		for q := 0; q < len(pts); q++ {
			y, x := int(pts[q]>>16), int(pts[q]&0xffff)
			p := y*w + x
			x0, x1, y0, y1 = min(x0, x), max(x1, x), min(y0, y), max(y1, y)
			if tpix[p] != 0 {
				colour++
			}
			if x > 0 && y > 0 && x < w-1 && y < h-1 {
				// Inside the frame: all eight neighbours exist.
				for k, o := range [8]int{p - w - 1, p - w, p - w + 1, p - 1, p + 1, p + w - 1, p + w, p + w + 1} {
					if gpix[o] != 0 {
						gpix[o] = 0
						pts = append(pts, pts[q]+floodStep[k])
					}
				}
				continue
			}
			for dy := -1; dy <= 1; dy++ {
				ny := y + dy
				if ny < 0 || ny >= h {
					continue
				}
				for dx := -1; dx <= 1; dx++ {
					nx := x + dx
					if nx < 0 || nx >= w {
						continue
					}
					if o := ny*w + nx; gpix[o] != 0 {
						gpix[o] = 0
						pts = append(pts, int32(ny)<<16|int32(nx))
					}
				}
			}
		}
		area := len(pts)
		if area < minArea || x1-x0+1 > md || y1-y0+1 > md || 5*colour >= 4*area {
			continue
		}
		for _, pk := range pts {
			if p := int(pk>>16)*w + int(pk&0xffff); tpix[p] == 0 {
				tpix[p] = 128
			}
		}
	}
	return nil
}

// fillOpenOutlines fills the convex hull of each region of m (0 or 255)
// that is an open outline: a thin line around a square, die-sized hull it
// covers less than half of. A white die on a light floor shows a strong
// edge on its shadowed side and hardly any on its lit side, so its
// outline is a C that closing does not shut; a die's top face is convex,
// so the hull is its face. Only an outline alone on the floor is filled. The hull's side must be at most maxSide and
// its area at least minArea.
func fillOpenOutlines(m *gocv.Mat, minArea, maxSide int) {
	cs := gocv.FindContours(*m, gocv.RetrievalExternal, gocv.ChainApproxSimple)
	defer cs.Close()
	var fill [][]image.Point
	for i := 0; i < cs.Size(); i++ {
		pv := cs.At(i)
		// The box of the contour's pixels, in one call: most regions
		// fail on it, and their points need not be fetched one by one.
		bb := gocv.BoundingRect(pv)
		long, short := max(bb.Dx(), bb.Dy()), min(bb.Dx(), bb.Dy())
		if long > maxSide || 10*short < 7*long || short*short < minArea {
			continue
		}
		hull := convexHull(pv.ToPoints())
		ha := polyArea(hull)
		if ha < float64(minArea) || gocv.ContourArea(pv) >= 0.5*ha {
			continue
		}
		// A square, not a round hole or ring: the hull fills most of
		// its smallest rectangle (a disc fills pi/4 of it).
		if rc := rectOf(hull); ha < squareFill*(rc.w-1)*(rc.h-1) {
			continue
		}
		// Alone on the floor: the box around it, a little larger, is
		// mostly empty. (Filled, an outline that touches another region
		// would join it.)
		nb := bb.Inset(-2).Intersect(image.Rect(0, 0, m.Cols(), m.Rows()))
		sub := m.Region(nb)
		on := gocv.CountNonZero(sub)
		sub.Close()
		if float64(on) >= 0.5*ha {
			continue
		}
		fill = append(fill, hull)
	}
	if len(fill) == 0 {
		return
	}
	pvs := gocv.NewPointsVectorFromPoints(fill)
	defer pvs.Close()
	gocv.FillPoly(m, pvs, color.RGBA{255, 255, 255, 0})
}

// squareFill is the least share of its smallest rectangle an open
// outline's hull fills to be filled as a die's face.
const squareFill = 0.85

// convexHull is the convex hull of pts (monotone chain), counter-clockwise
// in image coordinates' sense of turning; pts is reordered.
func convexHull(pts []image.Point) []image.Point {
	sort.Slice(pts, func(a, b int) bool {
		if pts[a].X != pts[b].X {
			return pts[a].X < pts[b].X
		}
		return pts[a].Y < pts[b].Y
	})
	cross := func(o, a, b image.Point) int {
		return (a.X-o.X)*(b.Y-o.Y) - (a.Y-o.Y)*(b.X-o.X)
	}
	if len(pts) < 3 {
		return append([]image.Point(nil), pts...)
	}
	h := make([]image.Point, 0, 2*len(pts))
	for _, p := range pts {
		for len(h) >= 2 && cross(h[len(h)-2], h[len(h)-1], p) <= 0 {
			h = h[:len(h)-1]
		}
		h = append(h, p)
	}
	lower := len(h) + 1
	for i := len(pts) - 2; i >= 0; i-- {
		p := pts[i]
		for len(h) >= lower && cross(h[len(h)-2], h[len(h)-1], p) <= 0 {
			h = h[:len(h)-1]
		}
		h = append(h, p)
	}
	return h[:len(h)-1]
}

// polyArea is the area of a simple polygon.
func polyArea(p []image.Point) float64 {
	var a int
	for i := range p {
		j := (i + 1) % len(p)
		a += p[i].X*p[j].Y - p[j].X*p[i].Y
	}
	return math.Abs(float64(a)) / 2
}

// floodStep is, in addOutlined's y<<16 | x form, the step to each of a
// pixel's eight neighbours, in the order up-left to down-right.
var floodStep = [8]int32{-1<<16 - 1, -1 << 16, -1<<16 + 1, -1, 1, 1<<16 - 1, 1 << 16, 1<<16 + 1}

// gradMask adds to mpix the pixels on a marked brightness edge: the
// outline of a die whose colour is too close to the floor's.
func gradMask(g, mpix []uint8, w, h int, gr []uint8) {
	var hist [256]int
	var hists [4][256]int32
	for y := 1; y < h-1; y++ {
		row := g[y*w : (y+1)*w]
		// Equal lengths let the compiler drop the bounds checks.
		up, dn, out := g[(y-1)*w:][:len(row)], g[(y+1)*w:][:len(row)], gr[y*w:][:len(row)]
		x := 1
		if groups := (len(row) - 2) / 32; useSIMD && groups > 0 {
			grad32(&row[0], &row[2], &up[1], &dn[1], &out[1], groups)
			x += 32 * groups
			// Four histograms: runs of equal values (most of a floor)
			// do not wait on each other's increments.
			countBytes4(&hists, out[1:x])
		}
		for ; x < len(row)-1; x++ {
			d := abs32(int32(row[x+1])-int32(row[x-1])) + abs32(int32(dn[x])-int32(up[x]))
			d = min(d, 255)
			out[x] = uint8(d)
			hist[uint8(d)]++
		}
	}
	for v := range hist {
		hist[v] += int(hists[0][v]) + int(hists[1][v]) + int(hists[2][v]) + int(hists[3][v])
	}
	med := percentile(hist[:], (w-2)*(h-2), 0.5)
	thr := uint8(clamp(float64(med)*3+30, 12, 80))
	for y := 1; y < h-1; y++ {
		out := gr[y*w : (y+1)*w]
		m := mpix[y*w:][:len(out)]
		x := 1
		if groups := (len(out) - 2) / 32; useSIMD && groups > 0 && thr < 255 {
			mark32(&out[1], &m[1], thr, groups)
			x += 32 * groups
		}
		for ; x < len(out)-1; x++ {
			if out[x] > thr {
				m[x] = 255
			}
		}
	}
}

// clusterParts partitions component id (inside bb, dist its chamfer
// distance) into one part per die. The seeds are the component's parts
// deeper than t; a seed whose die (the seed grown on every side by the
// depth it was cut at) is too long or too large for one die (edge sd) is cut again 0.05
// die edges deeper, up to 0.45: dice pressed together meet along a neck,
// shallower than their centres. A piece of under 8 pixels left by a
// cut is a ripple on a ridge, not a die's centre. Each pixel then goes
// to the seed it reaches first through the component. It returns each
// part's outline pixels and its pixel count; own is scratch.
func clusterParts(lab []int32, dist []float32, w int, bb image.Rectangle, id int32, t, sd float64, own *[]int32) ([][]image.Point, []int) {
	bw, bh := bb.Dx(), bb.Dy()
	o := zeroedInt32s(own, bw*bh)
	at := func(p image.Point) int { return (p.Y-bb.Min.Y)*bw + p.X - bb.Min.X }
	inC := func(p image.Point) bool { return p.In(bb) && lab[p.Y*w+p.X] == id }
	nb := func(p image.Point) [4]image.Point {
		return [4]image.Point{{p.X + 1, p.Y}, {p.X - 1, p.Y}, {p.X, p.Y + 1}, {p.X, p.Y - 1}}
	}
	// flood collects the pixels of tag from, deeper than d, connected to
	// p, and tags them to.
	flood := func(p image.Point, from, to int32, d float32) []image.Point {
		pts := []image.Point{p}
		o[at(p)] = to
		for q := 0; q < len(pts); q++ {
			for _, n := range nb(pts[q]) {
				if inC(n) && o[at(n)] == from && dist[n.Y*w+n.X] >= d {
					o[at(n)] = to
					pts = append(pts, n)
				}
			}
		}
		return pts
	}
	type region struct {
		pts []image.Point
		t   float64
	}
	var work []region
	var seeds [][]image.Point
	tag := int32(1)
	for y := bb.Min.Y; y < bb.Max.Y; y++ {
		// Row slices: the floods below tag o through the same memory.
		lr, dr := lab[y*w+bb.Min.X:][:bw], dist[y*w+bb.Min.X:][:bw]
		orow := o[(y-bb.Min.Y)*bw:][:bw]
		for i, l := range lr {
			if l == id && orow[i] == 0 && dr[i] >= float32(t) {
				work = append(work, region{flood(image.Pt(bb.Min.X+i, y), 0, tag, float32(t)), t})
				tag++
			}
		}
	}
	const dt, tMax = 0.05, 0.45
	for len(work) > 0 {
		rg := work[len(work)-1]
		work = work[:len(work)-1]
		c := rectOf(rg.pts)
		cw, ch := c.w+2*rg.t, c.h+2*rg.t
		nt := rg.t + dt*sd
		if (math.Min(cw, ch)/math.Max(cw, ch) >= 0.75 && math.Max(cw, ch) <= 1.35*sd) || nt > tMax*sd {
			seeds = append(seeds, rg.pts)
			continue
		}
		// Cut deeper: the region's pixels are untagged (-1) and the
		// deeper ones flooded into sub-regions.
		own0 := o[at(rg.pts[0])]
		for _, p := range rg.pts {
			o[at(p)] = -1
		}
		var subs [][]image.Point
		for _, p := range rg.pts {
			if o[at(p)] == -1 && dist[p.Y*w+p.X] >= float32(nt) {
				sub := flood(p, -1, tag, float32(nt))
				tag++
				// A die's centre is more than a few pixels; a ripple
				// on a ridge is not.
				if len(sub) >= 8 {
					subs = append(subs, sub)
				} else {
					for _, q := range sub {
						o[at(q)] = -2
					}
				}
			}
		}
		if len(subs) == 0 {
			for _, p := range rg.pts {
				o[at(p)] = own0
			}
			seeds = append(seeds, rg.pts)
			continue
		}
		for _, p := range rg.pts {
			if o[at(p)] < 0 {
				o[at(p)] = 0
			}
		}
		for _, s := range subs {
			work = append(work, region{s, nt})
		}
	}
	// Re-tag the seeds 1..n, then grow them through the component.
	for i := range o {
		o[i] = 0
	}
	var queue []image.Point
	for k, s := range seeds {
		for _, p := range s {
			o[at(p)] = int32(k + 1)
		}
		queue = append(queue, s...)
	}
	for q := 0; q < len(queue); q++ {
		p := queue[q]
		k := o[at(p)]
		for _, n := range nb(p) {
			if inC(n) && o[at(n)] == 0 {
				o[at(n)] = k
				queue = append(queue, n)
			}
		}
	}
	outlines := make([][]image.Point, len(seeds))
	areas := make([]int, len(seeds))
	for y := 0; y < bh; y++ {
		orow := o[y*bw:][:bw]
		for x, k := range orow {
			if k <= 0 {
				continue
			}
			areas[k-1]++
			// A neighbour outside bb or of another part: an outline
			// pixel.
			i := y*bw + x
			if x+1 == bw || x == 0 || y+1 == bh || y == 0 ||
				o[i+1] != k || o[i-1] != k || o[i+bw] != k || o[i-bw] != k {
				outlines[k-1] = append(outlines[k-1], image.Pt(bb.Min.X+x, bb.Min.Y+y))
			}
		}
	}
	return outlines, areas
}

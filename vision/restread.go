package vision

import (
	"fmt"
	"image"
	"math"
	"os"
	"sort"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/calibration"
)

// The at-rest reader reads the dice of a throw in the frame that decides
// it, using what the daemon knows there and a still photo does not: the
// empty table it has been watching (the background), where the tracker saw
// each die come to rest, and the die size the calibration expects. A die is
// whatever differs from the empty table at a tracked place, whatever the
// layout printed under it; its pips are the white marks inside its face.
// Two cues must agree before a value is given: the number of pips, and
// their fit to that number's canonical layout at the face's orientation.

// bgrPatch is a small BGR image copied out of a frame.
type bgrPatch struct {
	w, h int
	pix  []byte // BGR, row-major
	// origin of the patch in the frame
	x0, y0 int
}

func (p *bgrPatch) at(x, y int) (b, g, r byte) {
	i := (y*p.w + x) * 3
	return p.pix[i], p.pix[i+1], p.pix[i+2]
}

func patchOf(m gocv.Mat, r image.Rectangle) (bgrPatch, bool) {
	r = r.Intersect(image.Rect(0, 0, m.Cols(), m.Rows()))
	if r.Dx() < 4 || r.Dy() < 4 || m.Type() != gocv.MatTypeCV8UC3 {
		return bgrPatch{}, false
	}
	reg := m.Region(r)
	c := reg.Clone()
	reg.Close()
	defer c.Close()
	return bgrPatch{w: r.Dx(), h: r.Dy(), pix: c.ToBytes(), x0: r.Min.X, y0: r.Min.Y}, true
}

// restDie is one die found by the at-rest reader, in frame pixels.
type restDie struct {
	cx, cy     float64
	w, h       float64 // face extents along its axes
	angle      float64 // radians
	area       int     // pixels that differ from the background
	value      int
	pips       [][2]float64 // where the counted pips are, in frame pixels (when value != 0)
	confidence float64
	flatness   float64
	// placed: a face that stood out from the empty table only at its pips
	// (a die on print of its own colour), placed by the expected die size
	// on its pips; its area and outline are not the die's, so neither
	// measures its flatness or size (see regrow).
	placed bool
	// regrown: read on regrow's second look, as a square of the die's
	// size moved onto its pips; its outline is not the die's.
	regrown bool
	// sideOut: for a face the first pass found but could not read, how
	// much of what stands out clearly lies past a square of the expected
	// die size placed on it, in die areas (see fitSquare and restFlat).
	sideOut float64
	// spread: the read pips' spread in die edges (see pipSpread).
	spread float64
	// span: for a face the first pass found, the longer side of its
	// outline's smallest rectangle, in die edges (0 for a square placed
	// by regrow or raisedRead, whose outline is not the die's). No cut
	// uses it (see TestRestCueMargins): on rendered frames it parts flat
	// dice (1.176 at most) from cocked ones (1.230 and up), but flat dice
	// in frames through the video's JPEG measured up to 1.251.
	span float64
	// sideMarks: for a face the first pass read, how many marks stand
	// out from the empty table just beyond its outline, joined to it
	// only through shade (see sideMarks and restFlat).
	sideMarks int
	// filled: for a one read on the first pass, the side of its area
	// with the print of its colour that its outline's hull bridges taken
	// in, in die edges (see printFilled).
	filled float64
}

// readRest finds and reads the dice in one region of a frame against the
// empty-table background. edge is the expected die edge in pixels there.
func readRest(fr, bg bgrPatch, edge float64) []restDie {
	w, h := fr.w, fr.h
	// dist is each pixel's largest channel difference from the empty
	// table, 0 where the difference is shadow.
	dist := make([]uint8, w*h)
	diff := make([]bool, w*h)
	shade := make([]bool, w*h) // darker than the table as a shadow is
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			b1, g1, r1 := fr.at(x, y)
			b2, g2, r2 := bg.at(x, y)
			d := max(absDiff(b1, b2), absDiff(g1, g2), absDiff(r1, r2))
			if isShadow(b1, g1, r1, b2, g2, r2) {
				shade[y*w+x] = d > restWeakDiff
				d = 0
			}
			dist[y*w+x] = uint8(d)
			diff[y*w+x] = d > restStrongDiff
		}
	}
	diff = closeMask(diff, w, h)
	comps := components(diff, w, h)
	dieArea := edge * edge
	var out, partial []restDie
	var left [][]int  // what stood out but was not read: fragments and partial faces
	var marks [][]int // fragments alone
	for _, c := range comps {
		a := float64(len(c))
		if a < 0.35*dieArea {
			if a >= restFragment {
				left = append(left, c)
				marks = append(marks, c)
			}
			continue // noise, a shadow edge, or a die seen only in fragments
		}
		for _, part := range splitBlob(c, w, h, edge) {
			if float64(len(part)) < 0.35*dieArea {
				left = append(left, part)
				continue
			}
			d := fitFace(part, w)
			d.span = max(d.w, d.h) / edge
			d.cx += float64(fr.x0)
			d.cy += float64(fr.y0)
			readPips(&d, fr, edge)
			if d.value == 1 {
				d.filled = printFilled(part, fr, bg) / edge
			}
			if d.value == 0 && (float64(d.area) < restPartialArea*dieArea ||
				float64(d.area) <= restOneDieSize*restOneDieSize*dieArea && (d.flatness < DefaultMinFlatness || min(d.w, d.h) < restNarrowFace*edge || min(d.w, d.h) < restNarrowFace*max(d.w, d.h))) {
				// Seen in part, or one die's area in an outline that is
				// not square: the background hid some of the face.
				partial = append(partial, d)
				left = append(left, part)
				continue
			}
			if d.value != 0 && hiddenInPart(d, edge) {
				// Read, but its outline fails the flatness tests while
				// it covers less than one die: seen in part too (see
				// hiddenInPart). Regrow may read it again; if it does
				// not, it stays as it is, not flat.
				partial = append(partial, d)
				left = append(left, part)
				continue
			}
			if d.value == 0 {
				_, _, d.sideOut = fitSquare(part, dist, w, edge)
			}
			out = append(out, d)
		}
	}
	if len(left) == 0 {
		return out
	}
	grown := regrow(left, dist, out, fr, bg, edge)
	for _, p := range partial {
		covered := false
		for i, g := range grown {
			if math.Hypot(p.cx-g.cx, p.cy-g.cy) < 0.6*edge {
				if p.value != 0 && g.value != p.value {
					// The two reads disagree: neither is given; the
					// first pass's stands, not flat.
					grown = append(grown[:i], grown[i+1:]...)
					break
				}
				covered = true
				break
			}
		}
		if !covered {
			out = append(out, p) // still unreadable, or read but not flat
		}
	}
	out = append(out, grown...)
	markSides(out, marks, dist, shade, fr, edge)
	return out
}

// hiddenInPart reports whether a face the first pass read is seen only
// in part: restFlat would call it not flat (its outline out of square, or
// its pips off the outline's centre), yet what stands out covers no more
// than one die's area and is narrower than a die across (restHidden),
// where a cocked die's top face with its band of side face is at least a
// die across both ways. A red die partly on red print, in a frame through
// the camera's JPEG, is that: its chroma, smeared over 2x2 pixels and
// blocks, stands out from the print in a ragged outline (seed 5 throws 141
// and 224 at quality 80: a 4 and a 6, outlines 1.16 by 0.96 and 1.17 by
// 0.98 die edges, squareness 0.75 and 0.70); on the rendered frames the
// same dice stood out only in fragments and regrow read them. Never-run
// seed 23's throw 1731, a 4 cocked 15.4 degrees against chips
// (TestRestCockedLooseSquare), is one die's area too (0.93) but 1.24 by
// 1.11 across; regrow would read it flat.
func hiddenInPart(d restDie, edge float64) bool {
	size := math.Sqrt(float64(d.area)) / edge
	return size <= restHidden && min(d.w, d.h) < restHidden*edge && !restFlat(d, size, d.pipOffset(edge), DefaultMinFlatness)
}

// restHidden: see hiddenInPart.
const restHidden = 1.0

// markSides counts, for each face the first pass read, the marks that
// stand out from the empty table just beyond its outline (sideMarks). A
// cocked die shows a band of side face beside its top face, turned away
// from the light. Over print of the die's colour that band is the print's
// colour darkened, as a shadow is, and drops out of what stands out; its
// pips do not (a white pip in shade is grey, far from the print's
// colour). A flat die's shadow darkens the table alike, but nothing in it
// stands out. A mark counts when its centre lies outside the face's
// outline (by more than a pixel) and within restSideReach die edges of
// it, is no part of another die found there, and every pixel between it
// and the face differs from the table (stands out, weakly or clearly, or
// is darkened as a shadow is): the band joins it to the face. Which faces
// are looked at is sideMarked's to say.
func markSides(out []restDie, marks [][]int, dist []uint8, shade []bool, fr bgrPatch, edge float64) {
	w := fr.w
	inside := func(d restDie, x, y, margin float64) bool {
		lx, ly := x-(d.cx-float64(fr.x0)), y-(d.cy-float64(fr.y0))
		ca, sa := math.Cos(d.angle), math.Sin(d.angle)
		return math.Abs(lx*ca+ly*sa) <= d.w/2+margin && math.Abs(-lx*sa+ly*ca) <= d.h/2+margin
	}
	// The marks' centres, found at the first face to test and kept for
	// the others.
	var centres [][2]float64
	for i := range out {
		d := &out[i]
		if !sideMarked(*d) {
			continue
		}
		if centres == nil {
			centres = make([][2]float64, len(marks))
			for k, c := range marks {
				centres[k][0], centres[k][1] = compCentre(c, w)
			}
		}
		lx, ly := d.cx-float64(fr.x0), d.cy-float64(fr.y0)
		for _, mc := range centres {
			mx, my := mc[0], mc[1]
			if inside(*d, mx, my, 1) || !inside(*d, mx, my, restSideReach*edge) {
				continue
			}
			other := false
			for j, o := range out {
				if j != i && inside(o, mx, my, 1) {
					other = true
					break
				}
			}
			if other {
				continue
			}
			joined := true
			n := int(math.Ceil(2 * math.Hypot(mx-lx, my-ly)))
			for k := 0; k <= n && joined; k++ {
				t := float64(k) / float64(max(n, 1))
				x, y := mx+(lx-mx)*t, my+(ly-my)*t
				if inside(*d, x, y, 1) {
					break
				}
				p := int(math.Round(y))*w + int(math.Round(x))
				joined = shade[p] || dist[p] > restWeakDiff
			}
			if joined {
				d.sideMarks++
			}
		}
	}
}

// sideMarked reports whether markSides looks for side marks beside a
// face: one read (a value), on the first pass or regrown, but not placed.
// A regrown face is a square of the die's size moved onto its pips, which
// passed regrow's cocked tests (a small move, little standing out past
// it), yet a die leaning on chips over print of its colour can pass them
// too: seed 22 throw 714 die 0, a red 2 cocked 27.4 degrees against a
// chip stack on red print, stood out clearly only where it covers the
// chip and at its pips; its side face, darkened like the print in shade,
// dropped out, so its square sat on the top face alone (flatness 0.81,
// size 0.96) and it was read a flat 2, while that side face's three pips
// stood out just beyond the square, joined to it through the shade. A
// placed face stood out at little more than its pips, so its outline
// says nothing about where a side face would begin; it is left alone.
func sideMarked(d restDie) bool {
	return d.value != 0 && !d.placed
}

// restSideReach: how far beyond a face's outline, in die edges, a mark
// may lie and still be a side face's pip (see markSides): a die cocked
// 35 degrees shows 0.57 die edges of its side face.
const restSideReach = 0.6

// Thresholds of the largest channel difference from the empty table: a
// die is found where it differs by more than restStrongDiff; a face seen
// only in part or in fragments is grown, near them, into pixels that
// differ by more than restWeakDiff (a red die over the layout's red print
// differs from it by only 10 to 40 levels, while camera noise and JPEG
// blocks away from a die stay mostly under 18).
const (
	restStrongDiff = 45
	restWeakDiff   = 18
	// restFragment: smaller strong fragments (pixels) are noise.
	restFragment = 4
)

// Limits of a face read on the second look (see regrow): how far it may
// move onto its pips, in die edges, and how much clear difference may lie
// outside its square, in die areas.
const (
	restRegrowShift   = 0.15
	restRegrowOutside = 0.03
	restPlacedShift   = 0.22
	// restClearOutside: a regrown square with less clear difference
	// than this outside it, in die areas, has nothing beside it.
	restClearOutside = 0.005
)

// restNarrowFace: an unread face of one die's area narrower than this
// many die edges across, or than this share of its length, is seen only
// in part (the rest lies on print of its colour, or print of another
// colour lengthens it) even when its outline is square enough to pass.
const restNarrowFace = 0.9

// restPartialArea: a face covering less than this many die areas is only
// partly seen against the background (see readPips). A regrown region
// down to restPlacedArea die areas, or a square filled down to that, may
// still be read as a face placed on its pips (see regrow).
const (
	restPartialArea = 0.8
	restPlacedArea  = 0.5
)

// regrow reads again what stood out from the empty table only in part or
// in fragments, typically a red die lying partly on red print: pixels
// that differ weakly from the table, within 0.6 die edges of a fragment,
// join it. Pixels of the faces already read (done) stay out. A grown face
// counts only if a square of the die's size placed on it is mostly
// filled, sits on its pips with little standing out beyond it (a flat
// die, not a cocked one), and reads a value on both cues with every white
// mark near it counted; anything else is dropped, and the caller keeps
// what the strict pass saw.
func regrow(left [][]int, dist []uint8, done []restDie, fr, bg bgrPatch, edge float64) []restDie {
	w, h := fr.w, fr.h
	m := make([]bool, w*h)
	pad := int(math.Ceil(0.6 * edge))
	for _, c := range left {
		x0, y0, x1, y1 := w, h, -1, -1
		for _, p := range c {
			m[p] = true
			x, y := p%w, p/w
			x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
		}
		x0, y0, x1, y1 = max(0, x0-pad), max(0, y0-pad), min(w-1, x1+pad), min(h-1, y1+pad)
		for y := y0; y <= y1; y++ {
			for x := x0; x <= x1; x++ {
				if dist[y*w+x] > restWeakDiff {
					m[y*w+x] = true
				}
			}
		}
	}
	// Keep clear of the faces already read: a grown region must not
	// swallow a neighbour.
	for _, d := range done {
		r := math.Max(d.w, d.h)/2 + 1
		lx, ly := d.cx-float64(fr.x0), d.cy-float64(fr.y0)
		for y := max(0, int(ly-r)); y <= min(h-1, int(ly+r)); y++ {
			for x := max(0, int(lx-r)); x <= min(w-1, int(lx+r)); x++ {
				m[y*w+x] = false
			}
		}
	}
	m = fillHoles(closeMask(m, w, h), w, h)
	dieArea := edge * edge
	var out []restDie
	for _, c := range components(m, w, h) {
		a := float64(len(c)) / dieArea
		if a < restAnchorArea || a > 2.2 {
			if debugRead && a > 0.2 {
				fmt.Fprintf(os.Stderr, "restread: regrown region of %.2f die areas dropped\n", a)
			}
			continue // not a die, or more than one
		}
		// The square must be mostly filled (as much as a face the first
		// pass would read: a die on print of its own colour stands out
		// mainly at its dark rim and pips). A die lying wholly on print of
		// its colour may stand out at little more than its pips: it is
		// read as a face placed on its pips (d.placed), on stricter terms
		// below.
		if a >= restPlacedArea {
			d, cover, outside := fitSquare(c, dist, w, edge)
			if debugRead {
				fmt.Fprintf(os.Stderr, "restread: regrown region %.2f die areas, square at %.1f,%.1f covered %.2f, clear outside %.2f\n", a, d.cx, d.cy, cover, outside)
			}
			placed := a < restPartialArea || cover < restPartialArea
			if cover >= restPlacedArea {
				if g, ok := regrownRead(d, placed, outside, fr, bg, dist, edge); ok {
					out = append(out, g)
					continue
				}
			}
			if !placed {
				if outside > restRegrowOutside {
					if g, ok := raisedRead(c, dist, fr, bg, edge); ok {
						out = append(out, g)
					}
				}
				continue
			}
		}
		// Too little stands out for the square to be placed by the region
		// alone: place it by its pips and by where the table shows it is
		// not (see anchorSquare), and read it as a face placed on its pips.
		if d, _, outside, ok := anchorSquare(c, dist, fr, bg, edge); ok {
			if g, ok := regrownRead(d, true, outside, fr, bg, dist, edge); ok {
				out = append(out, g)
			}
		}
	}
	return out
}

// regrownRead reads a square regrow placed (patch-relative) and keeps it
// only as a flat face: placed says it was placed on its pips rather than
// by what stands out, outside is the clear difference of its region past
// the square, in die areas.
func regrownRead(d restDie, placed bool, outside float64, fr, bg bgrPatch, dist []uint8, edge float64) (restDie, bool) {
	d.placed = placed
	shift := centreOnPips(&d, fr, dist, edge)
	d.cx += float64(fr.x0)
	d.cy += float64(fr.y0)
	readPips(&d, fr, edge)
	if debugRead {
		fmt.Fprintf(os.Stderr, "restread: regrown face moved %.2f edges onto its pips, value %d\n", shift/edge, d.value)
	}
	// A cocked die partly hidden by print of its colour grows into
	// its side face too: the square then sits off its pips toward
	// that face, and some of the face stands out past the square.
	// Measured on 2,032 die reads from four generated sessions: flat
	// dice read this way moved at most 0.139 edges onto their pips
	// and had at most 0.023 die areas of clear difference outside;
	// a die cocked 14.5 degrees against chips on red print moved
	// 0.17 to 0.23 with 0.04 to 0.07 outside. Anything past 0.15
	// or 0.03 stays as the first pass saw it. (The move limit also
	// keeps a lone mark from being read as a one just because
	// centring put it in the middle: it may be one pip of a two.)
	// A face placed on its pips was first fitted to little more than
	// them, so its move onto them says less: flat dice read that way
	// on generated sessions (seeds 5 and 8) moved up to 0.20 edges.
	// It may move up to restPlacedShift; nothing may stand out past
	// it, and every white mark near it must be counted (below), which
	// a cocked die's side face would break.
	// A face with nothing clear standing out past its square
	// (restClearOutside) may move as far as a placed face, on a placed
	// face's terms (no white print near): through the camera's JPEG
	// (DICEWATCH_SCENE_JPEG=80, seeds 2, 5 and 10) flat red dice on red
	// print moved 0.17 to 0.21 edges onto their pips with nothing
	// outside, their regions' chroma smeared past the die on one side
	// (the cocked dice above had 0.04 to 0.07 outside).
	maxShift := restRegrowShift
	wide := d.placed || outside < restClearOutside
	if wide {
		maxShift = restPlacedShift
	}
	if shift > maxShift*edge || outside > restRegrowOutside {
		return d, false
	}
	// A face placed on its pips has only them to be placed by: a pip
	// on white print would not stand out from the empty table to be
	// counted among the marks, and a two with one pip there could be
	// read as a one. Such a face is read only with no white print near;
	// so is one moved further than restRegrowShift.
	if (d.placed || shift > restRegrowShift*edge) && whitePrintNear(d, bg, edge) {
		return d, false
	}
	if d.value == 0 || !allMarksCounted(d, fr, bg, dist, edge) {
		return d, false
	}
	d.regrown = true
	return d, true
}

// restRaised are the sizes, against the calibrated die, of the squares
// raisedRead tries: a die resting on another is nearer the camera and
// looks 1.08 to 1.2 times larger.
var restRaised = [...]float64{1.12, 1.18, 1.24}

// raisedRead reads again a regrown region that a square of the calibrated
// die size could not hold: clear difference lay outside it. A die resting
// on another die, lying partly on print of its colour, is that: larger
// than the calibrated die. Squares of the sizes in restRaised are tried,
// smallest first; the first one that holds the region on regrow's terms
// (nothing standing out past it, on its pips, every white mark counted)
// and is mostly filled is read. Its size evidence is what stands out
// inside it (its area, against the calibrated die), and it is kept only
// when that reaches the smallest size tried: otherwise the square was not
// filled as a raised die's would be, and the region stays as the first
// pass saw it.
func raisedRead(c []int, dist []uint8, fr, bg bgrPatch, edge float64) (restDie, bool) {
	for _, s := range restRaised {
		e := s * edge
		d, cover, outside := fitSquare(c, dist, fr.w, e)
		if debugRead {
			fmt.Fprintf(os.Stderr, "restread: raised square %.2f at %.1f,%.1f covered %.2f, clear outside %.2f\n", s, d.cx, d.cy, cover, outside)
		}
		if outside > restRegrowOutside {
			continue
		}
		if cover < restPartialArea {
			return restDie{}, false
		}
		g, ok := regrownRead(d, false, outside, fr, bg, dist, e)
		if !ok || math.Sqrt(float64(g.area))/edge < restRaised[0] {
			if debugRead {
				fmt.Fprintf(os.Stderr, "restread: raised square %.2f read %d (ok %v), size %.2f\n", s, g.value, ok, math.Sqrt(float64(g.area))/edge)
			}
			return restDie{}, false
		}
		g.spread *= s // in calibrated die edges
		// Its size is measured, as a first-pass face's is, by what
		// stands out: sizeByPips may raise it but not lower it (a die
		// cocked on print of its colour, its pips foreshortened, would
		// otherwise lose the evidence), and it is no ruler for others.
		g.regrown = false
		return g, true
	}
	return restDie{}, false
}

// restAnchorArea: a regrown region down to this many die areas may still
// be read as a face placed by anchorSquare.
const restAnchorArea = 0.3

// restHideDiff: print whose colour lies within this many levels (largest
// channel difference) of the die's body as it stands out could hide the
// die's body where it lies on it.
const restHideDiff = 64

// anchorSquare places a square of the expected die edge on a die of which
// too little stands out from the empty table for its region alone to place
// it: a red die lying mostly on red print, standing out only where it
// overlaps the felt beside the print, and at its pips. Two things place it:
// every white mark of the region lies inside it, well in from its sides
// (pips lie at most 0.37 edges from the face's centre along either axis),
// and it covers as much of what stands out as it can while it covers as
// little as it can of the table that would have shown the die had it lain
// there (table unchanged whose colour is far from the die's body, such as
// the felt). Table of about the die's colour says nothing either way.
// It returns the square as a face (patch-relative), the share of it that
// stands out or lies on such print, and the clear difference of the
// region outside it in die areas (as fitSquare); ok is false when the
// region has no white mark or too little body to tell the die's colour
// by, or the square must take in unchanged table that would show the die.
func anchorSquare(c []int, dist []uint8, fr, bg bgrPatch, edge float64) (restDie, float64, float64, bool) {
	w, h := fr.w, fr.h
	var marks [][2]float64
	var bodyB, bodyG, bodyR []int
	for _, p := range c {
		if dist[p] <= restStrongDiff {
			continue
		}
		x, y := p%w, p/w
		b, g, r := fr.at(x, y)
		if min(b, g, r) >= restWhite {
			marks = append(marks, [2]float64{float64(x), float64(y)})
		} else {
			bodyB, bodyG, bodyR = append(bodyB, int(b)), append(bodyG, int(g)), append(bodyR, int(r))
		}
	}
	dieArea := edge * edge
	if len(marks) == 0 || float64(len(bodyB)) < 0.1*dieArea {
		return restDie{}, 0, 0, false
	}
	med := func(v []int) int {
		sort.Ints(v)
		return v[len(v)/2]
	}
	col := [3]int{med(bodyB), med(bodyG), med(bodyR)}
	var mx, my float64
	for _, q := range marks {
		mx += q[0]
		my += q[1]
	}
	mx /= float64(len(marks))
	my /= float64(len(marks))
	// The window the squares can reach, and each pixel's weight there:
	// what stands out in the region counts for the square, the unchanged
	// table that would have shown the die against it.
	reach := math.Ceil(0.3 * edge)
	rad := int(math.Ceil(reach + 0.75*edge))
	x0, y0 := max(0, int(mx)-rad), max(0, int(my)-rad)
	x1, y1 := min(w-1, int(mx)+rad), min(h-1, int(my)+rad)
	inC := make([]bool, w*h)
	for _, p := range c {
		inC[p] = true
	}
	type px struct {
		x, y float64
		wt   int
		hid  bool // on print that could hide the die
		in   bool // in the region
	}
	var pxs, weighed []px // every pixel of the window; those that weigh
	for y := y0; y <= y1; y++ {
		for x := x0; x <= x1; x++ {
			p := y*w + x
			q := px{x: float64(x), y: float64(y), in: inC[p]}
			b, g, r := bg.at(x, y)
			q.hid = max(absDiff(b, byte(col[0])), absDiff(g, byte(col[1])), absDiff(r, byte(col[2]))) <= restHideDiff
			switch {
			case q.in && dist[p] > restStrongDiff:
				q.wt = 5
			case q.in:
				q.wt = 1
			case dist[p] <= restWeakDiff && !q.hid:
				q.wt = -5
			}
			pxs = append(pxs, q)
			if q.wt != 0 {
				weighed = append(weighed, q)
			}
		}
	}
	half := edge / 2
	markHalf := 0.42 * edge
	best, bestScore := restDie{}, math.MinInt
	ir := int(reach)
	for deg := 0; deg < 90; deg += 3 {
		a := float64(deg) * math.Pi / 180
		ca, sa := math.Cos(a), math.Sin(a)
		for dy := -ir; dy <= ir; dy++ {
			for dx := -ir; dx <= ir; dx++ {
				cx, cy := mx+float64(dx), my+float64(dy)
				fits := true
				for _, q := range marks {
					u, v := q[0]-cx, q[1]-cy
					if math.Abs(u*ca+v*sa) > markHalf || math.Abs(-u*sa+v*ca) > markHalf {
						fits = false
						break
					}
				}
				if !fits {
					continue
				}
				score := 0
				for _, q := range weighed {
					u, v := q.x-cx, q.y-cy
					if math.Abs(u*ca+v*sa) <= half && math.Abs(-u*sa+v*ca) <= half {
						score += q.wt
					}
				}
				if score > bestScore {
					bestScore = score
					best = restDie{cx: cx, cy: cy, w: edge, h: edge, angle: a}
				}
			}
		}
	}
	if bestScore == math.MinInt {
		return restDie{}, 0, 0, false
	}
	ca, sa := math.Cos(best.angle), math.Sin(best.angle)
	seen, empty := 0, 0
	for _, q := range pxs {
		u, v := q.x-best.cx, q.y-best.cy
		if math.Abs(u*ca+v*sa) <= half && math.Abs(-u*sa+v*ca) <= half {
			if q.wt < 0 {
				empty++
			} else if q.in || q.hid {
				seen++
			}
		}
	}
	out := 0
	for _, p := range c {
		u, v := float64(p%w)-best.cx, float64(p/w)-best.cy
		if dist[p] > restStrongDiff && (math.Abs(u*ca+v*sa) > half+1 || math.Abs(-u*sa+v*ca) > half+1) {
			out++
		}
	}
	best.area = seen
	best.flatness = math.Min(1, float64(seen)/dieArea)
	if debugRead {
		fmt.Fprintf(os.Stderr, "restread: anchored square at %.1f,%.1f turned %.0f: %.2f die areas seen or hidden, %.2f unchanged table, clear outside %.2f\n",
			best.cx, best.cy, best.angle*180/math.Pi, float64(seen)/dieArea, float64(empty)/dieArea, float64(out)/dieArea)
	}
	if float64(empty) > restAnchorEmpty*dieArea {
		return restDie{}, 0, 0, false
	}
	return best, float64(seen) / dieArea, float64(out) / dieArea, true
}

// restAnchorEmpty: the most unchanged table that would have shown the
// die an anchored square may take in, in die areas (its blurred rim).
const restAnchorEmpty = 0.1

// allMarksCounted checks a regrown read against the picture: every white
// mark that stands out from the empty table within 0.75 die edges of the
// face's centre must be one of the pips counted. A face fitted at the
// wrong turn samples only some of them (the middle pip of a three read
// as a one).
func allMarksCounted(d restDie, fr, bg bgrPatch, dist []uint8, edge float64) bool {
	lx, ly := d.cx-float64(fr.x0), d.cy-float64(fr.y0)
	r := 0.75 * edge
	x0, y0 := max(0, int(lx-r)), max(0, int(ly-r))
	x1, y1 := min(fr.w-1, int(lx+r)), min(fr.h-1, int(ly+r))
	w, h := x1-x0+1, y1-y0+1
	if w <= 0 || h <= 0 {
		return false
	}
	// white: a pip's pixel as the rendered frame shows it; pink: one
	// whose colour JPEG smeared (see markWhite).
	white := make([]bool, w*h)
	pink := make([]bool, w*h)
	for y := y0; y <= y1; y++ {
		for x := x0; x <= x1; x++ {
			b, g, rr := fr.at(x, y)
			i := (y-y0)*w + x - x0
			strong := dist[y*fr.w+x] > restStrongDiff
			white[i] = min(b, g, rr) >= restWhite && strong
			// Over white print, pink is the print with the die's
			// colour smeared into it, not a pip.
			bb, bg2, br := bg.at(x, y)
			pink[i] = white[i] || markWhite(b, g, rr) && strong && min(bb, bg2, br) < restWhite
		}
	}
	counted := func(c []int) bool {
		var sx, sy float64
		for _, p := range c {
			sx += float64(p%w + x0)
			sy += float64(p/w + y0)
		}
		mx, my := sx/float64(len(c))+float64(fr.x0), sy/float64(len(c))+float64(fr.y0)
		for _, p := range d.pips {
			if math.Hypot(p[0]-mx, p[1]-my) <= 0.25*edge {
				return true
			}
		}
		if debugRead {
			fmt.Fprintf(os.Stderr, "restread: white mark at %.0f,%.0f (%d px) not among the %d pips counted\n", mx, my, len(c), d.value)
		}
		return false
	}
	// A mark is two or more white pixels joined...
	inMark := make([]bool, w*h)
	for _, c := range components(white, w, h) {
		if len(c) < 2 {
			continue
		}
		for _, p := range c {
			inMark[p] = true
		}
		if !counted(c) {
			return false
		}
	}
	// ...or, where only one pixel of it stayed white, that pixel with the
	// pink ones joined to it: a small pip through JPEG (see markWhite).
	for _, c := range components(pink, w, h) {
		lone, old := false, false
		for _, p := range c {
			lone = lone || white[p]
			old = old || inMark[p]
		}
		if len(c) < 2 || !lone || old {
			continue
		}
		if !counted(c) {
			return false
		}
	}
	return true
}

// markWhite reports a pixel that may belong to a pip in a frame through
// the camera's JPEG: its least channel reaches restWhite, or it is that
// bright in luma with every channel at least restPinkWhite. JPEG keeps a
// pip's brightness at full resolution but its colour only over 2x2 pixels
// and blocks, so a small pip on a red die turns pink and may keep a
// single white pixel. Seed 26 throw 1288 at quality 80, a red 2 cocked 29
// degrees against a chip: regrow's square took in both faces and read a
// flat 2, while the side face's pip, just past the square, kept one white
// pixel (255,184,185) among pink ones (243,131,129 and 245,116,120 beside
// it), too few to be a mark (TestRestCockedPinkPip). allMarksCounted
// takes such a pixel with its pink neighbours as a mark, but not pink
// without a white pixel, nor pink over white print (the print with the
// die's red smeared into it): counting every pink component cost flat red
// dice their regrown read (seed 26 throws 758 and 1046, two-pixel marks;
// seed 808's one on the layout's lettering, TestRestReadHardCrops). Red
// body, red print and felt stay well under restWhite in luma; a yellow or
// orange chip's blue is far under restPinkWhite.
func markWhite(b, g, r byte) bool {
	if min(b, g, r) >= restWhite {
		return true
	}
	luma := 0.299*float64(r) + 0.587*float64(g) + 0.114*float64(b)
	return luma >= restWhite && min(b, g, r) >= restPinkWhite
}

// restPinkWhite: see markWhite.
const restPinkWhite = 100

// whitePrintNear reports whether the empty table has white (print as
// bright as a pip) within 0.75 die edges of a face's centre.
func whitePrintNear(d restDie, bg bgrPatch, edge float64) bool {
	lx, ly := d.cx-float64(bg.x0), d.cy-float64(bg.y0)
	r := 0.75 * edge
	for y := max(0, int(ly-r)); y <= min(bg.h-1, int(ly+r)); y++ {
		for x := max(0, int(lx-r)); x <= min(bg.w-1, int(lx+r)); x++ {
			if b, g, rr := bg.at(x, y); min(b, g, rr) >= restWhite {
				return true
			}
		}
	}
	return false
}

// restWhite: a white mark's least channel reaches it. The pip cores of the
// generated casino dice measured about 195 to 255 in their least channel,
// their red body and the felt and red print under 60.
const restWhite = 150

// fillHoles sets the pixels of a mask that the mask encloses: a die on
// print of nearly its colour stands out at its dark rim and its pips more
// than in between.
func fillHoles(m []bool, w, h int) []bool {
	out := make([]bool, len(m))
	gaps := make([]bool, len(m))
	for i, v := range m {
		out[i], gaps[i] = v, !v
	}
	// A gap that reaches the patch's border is outside; any other is a hole.
	for _, c := range components(gaps, w, h) {
		inside := true
		for _, p := range c {
			if x, y := p%w, p/w; x == 0 || y == 0 || x == w-1 || y == h-1 {
				inside = false
				break
			}
		}
		if inside {
			for _, p := range c {
				out[p] = true
			}
		}
	}
	return out
}

// centreOnPips moves a face fitted to a rough region onto the middle of
// its white marks (among what differs clearly from the empty table, so
// not white print around it): every pip layout is symmetric about the
// face's centre.
// The move, returned, is at most a quarter of the die edge; d is
// patch-relative.
func centreOnPips(d *restDie, fr bgrPatch, dist []uint8, edge float64) float64 {
	ca, sa := math.Cos(d.angle), math.Sin(d.angle)
	half := 0.55 * edge
	lo, hi := 255.0, 0.0
	type px struct{ x, y, v float64 }
	var in []px
	for y := max(0, int(d.cy-edge)); y <= min(fr.h-1, int(d.cy+edge)); y++ {
		for x := max(0, int(d.cx-edge)); x <= min(fr.w-1, int(d.cx+edge)); x++ {
			u, v := float64(x)-d.cx, float64(y)-d.cy
			if math.Abs(u*ca+v*sa) > half || math.Abs(-u*sa+v*ca) > half {
				continue
			}
			if dist[y*fr.w+x] <= restStrongDiff {
				continue // the table as it was (white print), not the die
			}
			b, g, r := fr.at(x, y)
			wv := float64(min(b, g, r))
			in = append(in, px{float64(x), float64(y), wv})
			lo, hi = math.Min(lo, wv), math.Max(hi, wv)
		}
	}
	th := lo + 0.5*(hi-lo)
	var sx, sy, n float64
	for _, p := range in {
		if p.v > th {
			sx += p.x
			sy += p.y
			n++
		}
	}
	if n == 0 {
		return 0
	}
	mx, my := sx/n-d.cx, sy/n-d.cy
	if l := math.Hypot(mx, my); l > 0.25*edge {
		mx, my = mx*0.25*edge/l, my*0.25*edge/l
	}
	d.cx += mx
	d.cy += my
	return math.Hypot(mx, my)
}

// compCentre is the mean position of a component's pixels (indices into
// a patch w pixels wide).
func compCentre(c []int, w int) (float64, float64) {
	var mx, my float64
	for _, p := range c {
		mx += float64(p % w)
		my += float64(p / w)
	}
	n := float64(len(c))
	return mx / n, my / n
}

// fitSquare places a square of the expected die edge on a region where it
// covers most of the region's pixels (over turns of 3 degrees and shifts
// of a pixel around the region's centre; pixels that stand out clearly
// weigh five times those that stand out weakly), and returns it as a face with
// the share of the square the region fills. The grown region has a rim of
// colour bleed and shadow edge around the die that a smallest enclosing
// rectangle would take in; the known die size leaves it out. The third
// result is how much of the region that stands out clearly lies more than
// a pixel outside the square, in die areas.
func fitSquare(c []int, dist []uint8, w int, edge float64) (restDie, float64, float64) {
	mx, my := compCentre(c, w)
	half := edge / 2
	reach := int(math.Ceil(0.35 * edge))
	best, bestN, bestScore := restDie{}, 0, -1
	for deg := 0; deg < 90; deg += 3 {
		a := float64(deg) * math.Pi / 180
		ca, sa := math.Cos(a), math.Sin(a)
		for dy := -reach; dy <= reach; dy++ {
			for dx := -reach; dx <= reach; dx++ {
				cx, cy := mx+float64(dx), my+float64(dy)
				n, score := 0, 0
				for _, p := range c {
					x, y := float64(p%w)-cx, float64(p/w)-cy
					if math.Abs(x*ca+y*sa) <= half && math.Abs(-x*sa+y*ca) <= half {
						n++
						score++
						if dist[p] > restStrongDiff {
							score += 4 // what stands out clearly is die, not rim
						}
					}
				}
				if score > bestScore {
					bestScore, bestN = score, n
					best = restDie{cx: cx, cy: cy, w: edge, h: edge, angle: a}
				}
			}
		}
	}
	cover := float64(bestN) / (edge * edge)
	best.area = bestN
	best.flatness = math.Min(1, cover)
	ca, sa := math.Cos(best.angle), math.Sin(best.angle)
	out := 0
	for _, p := range c {
		x, y := float64(p%w)-best.cx, float64(p/w)-best.cy
		if dist[p] > restStrongDiff && (math.Abs(x*ca+y*sa) > half+1 || math.Abs(-x*sa+y*ca) > half+1) {
			out++
		}
	}
	return best, cover, float64(out) / (edge * edge)
}

// isShadow reports a pixel that is darker than the background in every
// channel: the die's shadow, not the die. A die is brighter than the table
// in at least one channel (a red die's red, a white die's all, the white
// pips of a dark die).
//
// A shadow dims the table's colour without changing its hue: every
// channel falls by about the same fraction. A red die over white or pale
// print is darker in every channel too, but its green and blue fall far
// more than its red: that is the die, not a shadow.
func isShadow(b1, g1, r1, b2, g2, r2 byte) bool {
	if !(b1 <= b2+6 && g1 <= g2+6 && r1 <= r2+6) {
		return false
	}
	ratio := func(a, b byte) float64 { return (float64(a) + 8) / (float64(b) + 8) }
	rb, rg, rr := ratio(b1, b2), ratio(g1, g2), ratio(r1, r2)
	// Dark red over white (a red die's side face on the layout's white
	// line) keeps about a third of the white's red and under a tenth of
	// its green and blue: through JPEG those three can come within 0.3
	// of each other, but its red keeps twice the others' fraction, as no
	// shadow's does (never-run seed 34 throw 147: TestRestCockedSideOnWhite).
	if rr > 2*max(rb, rg) {
		return false
	}
	return max(rb, rg, rr)-min(rb, rg, rr) < 0.3
}

func absDiff(a, b byte) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}

// closeMask fills one-pixel holes and gaps (a dilation then an erosion with
// a 3x3 square).
func closeMask(m []bool, w, h int) []bool {
	dil := make([]bool, len(m))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := false
			for dy := -1; dy <= 1 && !v; dy++ {
				for dx := -1; dx <= 1; dx++ {
					xx, yy := x+dx, y+dy
					if xx >= 0 && yy >= 0 && xx < w && yy < h && m[yy*w+xx] {
						v = true
						break
					}
				}
			}
			dil[y*w+x] = v
		}
	}
	out := make([]bool, len(m))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := true
			for dy := -1; dy <= 1 && v; dy++ {
				for dx := -1; dx <= 1; dx++ {
					xx, yy := x+dx, y+dy
					if xx >= 0 && yy >= 0 && xx < w && yy < h && !dil[yy*w+xx] {
						v = false
						break
					}
				}
			}
			out[y*w+x] = v
		}
	}
	return out
}

// openMask removes threads and specks up to 2r samples wide: an erosion
// then a dilation with a (2r+1)-square.
func openMask(m []bool, w, h, r int) []bool {
	ero := make([]bool, len(m))
	for y := r; y < h-r; y++ {
		for x := r; x < w-r; x++ {
			v := true
			for dy := -r; dy <= r && v; dy++ {
				for dx := -r; dx <= r && v; dx++ {
					v = m[(y+dy)*w+x+dx]
				}
			}
			ero[y*w+x] = v
		}
	}
	out := make([]bool, len(m))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := false
			for dy := -r; dy <= r && !v; dy++ {
				for dx := -r; dx <= r && !v; dx++ {
					xx, yy := x+dx, y+dy
					v = xx >= 0 && yy >= 0 && xx < w && yy < h && ero[yy*w+xx]
				}
			}
			out[y*w+x] = v
		}
	}
	return out
}

// components labels 4-connected regions of a mask; each is a list of pixel
// indexes.
func components(m []bool, w, h int) [][]int {
	seen := make([]bool, len(m))
	var out [][]int
	stack := []int{}
	for i, v := range m {
		if !v || seen[i] {
			continue
		}
		var comp []int
		stack = append(stack[:0], i)
		seen[i] = true
		for len(stack) > 0 {
			p := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			comp = append(comp, p)
			x, y := p%w, p/w
			for _, q := range [4][2]int{{x - 1, y}, {x + 1, y}, {x, y - 1}, {x, y + 1}} {
				if q[0] < 0 || q[1] < 0 || q[0] >= w || q[1] >= h {
					continue
				}
				j := q[1]*w + q[0]
				if m[j] && !seen[j] {
					seen[j] = true
					stack = append(stack, j)
				}
			}
		}
		out = append(out, comp)
	}
	return out
}

// splitBlob separates dice that touch: pixels far from the blob's edge (a
// chamfer distance of at least 0.3 die edges) form one core per die, and
// every pixel goes to the nearest core. A blob with one core is one die.
func splitBlob(c []int, w, h int, edge float64) [][]int {
	if float64(len(c)) < 1.6*edge*edge {
		return [][]int{c}
	}
	in := make([]bool, w*h)
	for _, p := range c {
		in[p] = true
	}
	const inf = 1 << 20
	dist := make([]int, w*h)
	for i := range dist {
		if in[i] {
			dist[i] = inf
		}
	}
	// Two-pass 3-4 chamfer distance to the nearest outside pixel.
	get := func(x, y int) int {
		if x < 0 || y < 0 || x >= w || y >= h {
			return 0
		}
		return dist[y*w+x]
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := y*w + x
			if !in[i] {
				continue
			}
			dist[i] = min(dist[i], get(x-1, y)+3, get(x, y-1)+3, get(x-1, y-1)+4, get(x+1, y-1)+4)
		}
	}
	for y := h - 1; y >= 0; y-- {
		for x := w - 1; x >= 0; x-- {
			i := y*w + x
			if !in[i] {
				continue
			}
			dist[i] = min(dist[i], get(x+1, y)+3, get(x, y+1)+3, get(x+1, y+1)+4, get(x-1, y+1)+4)
		}
	}
	core := make([]bool, w*h)
	th := int(0.3 * edge * 3)
	for _, p := range c {
		core[p] = dist[p] >= th
	}
	cores := components(core, w, h)
	var big [][]int
	for _, k := range cores {
		if float64(len(k)) >= 0.02*edge*edge {
			big = append(big, k)
		}
	}
	if len(big) <= 1 {
		return [][]int{c}
	}
	cx := make([]float64, len(big))
	cy := make([]float64, len(big))
	for i, k := range big {
		for _, p := range k {
			cx[i] += float64(p % w)
			cy[i] += float64(p / w)
		}
		cx[i] /= float64(len(k))
		cy[i] /= float64(len(k))
	}
	parts := make([][]int, len(big))
	for _, p := range c {
		x, y := float64(p%w), float64(p/w)
		best, bd := 0, math.Inf(1)
		for i := range big {
			if d := math.Hypot(x-cx[i], y-cy[i]); d < bd {
				best, bd = i, d
			}
		}
		parts[best] = append(parts[best], p)
	}
	return parts
}

// fitFace finds the smallest rectangle around a blob over rotations of
// one degree; coordinates stay patch-relative.
func fitFace(c []int, w int) restDie {
	xs := make([]float64, len(c))
	ys := make([]float64, len(c))
	for i, p := range c {
		xs[i], ys[i] = float64(p%w), float64(p/w)
	}
	best := restDie{area: len(c)}
	bestArea := math.Inf(1)
	for deg := 0; deg < 90; deg++ {
		a := float64(deg) * math.Pi / 180
		ca, sa := math.Cos(a), math.Sin(a)
		u0, u1, v0, v1 := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
		for i := range xs {
			u := xs[i]*ca + ys[i]*sa
			v := -xs[i]*sa + ys[i]*ca
			u0, u1, v0, v1 = min(u0, u), max(u1, u), min(v0, v), max(v1, v)
		}
		du, dv := u1-u0+1, v1-v0+1
		if du*dv < bestArea {
			bestArea = du * dv
			uc, vc := (u0+u1)/2, (v0+v1)/2
			best.cx = uc*ca - vc*sa
			best.cy = uc*sa + vc*ca
			best.w, best.h, best.angle = du, dv, a
		}
	}
	ratio := min(best.w, best.h) / max(best.w, best.h)
	fill := float64(len(c)) / bestArea
	best.flatness = ratio * min(1, fill/0.85)
	return best
}

// sample is the frame's colour at a fractional position (bilinear), as
// the smallest of the three channels: white pips are bright in all three,
// the die body and the felt are not.
func (p *bgrPatch) whiteness(x, y float64) float64 {
	x0, y0 := int(math.Floor(x)), int(math.Floor(y))
	if x0 < 0 || y0 < 0 || x0+1 >= p.w || y0+1 >= p.h {
		return 0
	}
	fx, fy := x-float64(x0), y-float64(y0)
	v := func(x, y int) float64 {
		b, g, r := p.at(x, y)
		return float64(min(b, g, r))
	}
	return v(x0, y0)*(1-fx)*(1-fy) + v(x0+1, y0)*fx*(1-fy) + v(x0, y0+1)*(1-fx)*fy + v(x0+1, y0+1)*fx*fy
}

// debugRead prints each at-rest read to stderr (DICEWATCH_DEBUG_READ=1).
var debugRead = os.Getenv("DICEWATCH_DEBUG_READ") == "1"

var debugGrid = os.Getenv("DICEWATCH_DEBUG_GRID") == "1"

const faceGrid = 48 // samples across the rectified face

// readPips rectifies the die's face into a faceGrid square, finds the
// white pips, and gives a value only when their count and their layout
// agree.
func readPips(d *restDie, fr bgrPatch, edge float64) {
	const span = 0.8 // fraction of the half-face sampled (pips reach 0.7; stay off the rim and what lies beyond)
	ca, sa := math.Cos(d.angle), math.Sin(d.angle)
	lx, ly := d.cx-float64(fr.x0), d.cy-float64(fr.y0)
	g := make([]float64, faceGrid*faceGrid)
	for i := range g {
		g[i] = -1 // not sampled
	}
	for j := 0; j < faceGrid; j++ {
		for i := 0; i < faceGrid; i++ {
			u := (float64(i)+0.5)/faceGrid*2 - 1
			v := (float64(j)+0.5)/faceGrid*2 - 1
			if math.Max(math.Abs(u), math.Abs(v))*span > 0.72 {
				continue // the rim and rounded corners: pips never reach here
			}
			du, dv := u*span*d.w/2, v*span*d.h/2
			g[j*faceGrid+i] = fr.whiteness(lx+du*ca-dv*sa, ly+du*sa+dv*ca)
		}
	}
	th, contrast := restOtsu(g)
	// Otsu splits the face from its bright marks, but a translucent die's
	// specular highlight (pink: its red channel high, the others half
	// way) and the soft edges of pips a few pixels across sit between
	// the two. A pip is white: keep only what is brighter than half way
	// from the face's body to the brightest pips. This drops highlights
	// and separates pips that blur into each other.
	body, top := restLevels(g, th)
	th = max(th, body+0.5*(top-body))
	mask := make([]bool, len(g))
	for i, v := range g {
		mask[i] = v > th
	}
	// Pips a few pixels across, sampled up (a pip is about ten samples
	// wide), can touch by a thread a few samples wide; an opening breaks
	// the thread and keeps the pips.
	mask = openMask(mask, faceGrid, faceGrid, 2)
	if debugGrid {
		for j := 0; j < faceGrid; j += 2 {
			for i := 0; i < faceGrid; i += 2 {
				c := byte(' ')
				switch {
				case mask[j*faceGrid+i]:
					c = '#'
				case g[j*faceGrid+i] > th/2:
					c = '.'
				}
				fmt.Fprintf(os.Stderr, "%c", c)
			}
			fmt.Fprintln(os.Stderr)
		}
	}
	// Expected pip: about 0.18 of the face edge across.
	unit := float64(faceGrid) / (2 * span) // grid pixels per half-face unit
	pipArea := math.Pi * math.Pow(0.18*unit, 2)
	var us, vs []float64
	var odd bool
	big := 0
	for _, c := range components(mask, faceGrid, faceGrid) {
		a := float64(len(c))
		if a < 0.2*pipArea {
			continue // noise, glare speck
		}
		if a > 2.2*pipArea {
			// A one is often one large pip; anything else this big is pips
			// run together or a face edge: not a clean read.
			if a <= 5*pipArea {
				big++
			} else {
				odd = true
			}
			if a > 5*pipArea {
				continue
			}
		}
		var sx, sy float64
		for _, p := range c {
			sx += float64(p % faceGrid)
			sy += float64(p / faceGrid)
		}
		n := float64(len(c))
		us = append(us, ((sx/n+0.5)/faceGrid*2-1)*span)
		vs = append(vs, ((sy/n+0.5)/faceGrid*2-1)*span)
	}
	n := len(us)
	if big > 0 && n != 1 {
		odd = true // a large blob is only a one's pip
	}
	if debugRead {
		fmt.Fprintf(os.Stderr, "restread: at %.0f,%.0f size %.2fx%.2f edges area %.2f pips=%d big=%d odd=%v contrast=%.0f", d.cx, d.cy, d.w/edge, d.h/edge, float64(d.area)/(edge*edge), n, big, odd, contrast)
	}
	// A face that covers clearly less than a die's area is only partly
	// seen against the background (a pale die part over pale print, a die
	// at a chip's edge): the pips found may be some of them, so a one could
	// be half a two. Right reads on generated sessions cover 0.89 to 1.2
	// die areas; cut at 0.8.
	partial := !d.placed && float64(d.area) < restPartialArea*edge*edge
	if n < 1 || n > 6 || contrast < 40 || odd || partial {
		if debugRead {
			fmt.Fprintln(os.Stderr)
		}
		return
	}
	res := layoutResidual(us, vs)
	if debugRead {
		fmt.Fprintf(os.Stderr, " residual=%.3f\n", res)
	}
	// Measured on generated sessions: right reads fit their layout within
	// about 0.1 face units; a glare speck taken for a pip (a 2 read as a 3)
	// fits no better than 0.116. Above 0.1 the die is unreadable.
	limit := 0.1
	if n == 1 {
		limit = 0.25 // a lone pip must sit in the middle of the face
	}
	if res > limit {
		return
	}
	d.value = n
	d.pips = d.pips[:0]
	for k := range us {
		du, dv := us[k]*d.w/2, vs[k]*d.h/2
		d.pips = append(d.pips, [2]float64{d.cx + du*ca - dv*sa, d.cy + du*sa + dv*ca})
	}
	d.confidence = math.Max(0, math.Min(1, 1-res/(5*limit))) * math.Min(1, contrast/80)
	d.spread = pipSpread(d.pips, fr, th, edge)
}

// pipSpread measures how far a face's pips lie from their centre, in die
// edges, as the offset along a side of a canonical layout's corner pips
// (0 for fewer than two pips). Each pip is first re-centred on the
// frame's whiteness above th within 0.15 die edges of where the face's
// grid found it: the grid samples only the middle of the face it was
// fitted to, and cuts off the outer side of the pips of a die larger than
// that face (one nearer the camera).
func pipSpread(pips [][2]float64, fr bgrPatch, th, edge float64) float64 {
	n := len(pips)
	if n < 2 || n >= len(canonSpread) || edge <= 0 {
		return 0
	}
	r := 0.15 * edge
	fine := make([][2]float64, n)
	for k, p := range pips {
		cx, cy := p[0]-float64(fr.x0), p[1]-float64(fr.y0)
		for it := 0; it < 2; it++ {
			var sx, sy, sw float64
			for y := max(0, int(cy-r)); y <= min(fr.h-1, int(math.Ceil(cy+r))); y++ {
				for x := max(0, int(cx-r)); x <= min(fr.w-1, int(math.Ceil(cx+r))); x++ {
					if math.Hypot(float64(x)-cx, float64(y)-cy) > r {
						continue
					}
					b, g, rr := fr.at(x, y)
					if w := float64(min(b, g, rr)) - th; w > 0 {
						sx += w * float64(x)
						sy += w * float64(y)
						sw += w
					}
				}
			}
			if sw == 0 {
				break
			}
			cx, cy = sx/sw, sy/sw
		}
		fine[k] = [2]float64{cx, cy}
	}
	var mx, my float64
	for _, p := range fine {
		mx += p[0]
		my += p[1]
	}
	mx /= float64(n)
	my /= float64(n)
	var sd float64
	for _, p := range fine {
		sd += math.Hypot(p[0]-mx, p[1]-my)
	}
	return sd / float64(n) / canonSpread[n] / edge
}

// restLevels returns the mean of the samples at or below th (the face's
// body) and the mean of the brightest 2% of the samples (the pips' cores).
func restLevels(g []float64, th float64) (body, top float64) {
	var hist [256]int
	var sum float64
	var n int
	for _, v := range g {
		if v < 0 {
			continue // not sampled
		}
		hist[int(math.Min(255, v))]++
		if v <= th {
			sum += v
			n++
		}
	}
	if n > 0 {
		body = sum / float64(n)
	}
	want := 0
	for _, k := range hist {
		want += k
	}
	want = max(1, want/50)
	got := 0
	sum = 0
	for v := 255; v >= 0 && got < want; v-- {
		k := min(hist[v], want-got)
		sum += float64(v * k)
		got += k
	}
	return body, sum / float64(got)
}

// restOtsu returns the threshold that best splits values in two classes, and
// the difference between the two class means.
func restOtsu(vals []float64) (float64, float64) {
	var hist [256]float64
	var total float64
	for _, v := range vals {
		if v < 0 {
			continue // not sampled
		}
		hist[int(math.Min(255, v))]++
		total++
	}
	var sum float64
	for i, c := range hist {
		sum += float64(i) * c
	}
	var wB, sumB, best, th, m0, m1 float64
	for t := 0; t < 256; t++ {
		wB += hist[t]
		if wB == 0 {
			continue
		}
		wF := total - wB
		if wF == 0 {
			break
		}
		sumB += float64(t) * hist[t]
		mB, mF := sumB/wB, (sum-sumB)/wF
		if between := wB * wF * (mB - mF) * (mB - mF); between > best {
			best, th, m0, m1 = between, float64(t), mB, mF
		}
	}
	return th, m1 - m0
}

// canonical pip layouts in face units (the face spans -1..1), each with its
// variants under a quarter turn.
var canonical = func() map[int][][][2]float64 {
	q := 0.5
	return map[int][][][2]float64{
		1: {{{0, 0}}},
		2: {{{-q, -q}, {q, q}}, {{-q, q}, {q, -q}}},
		3: {{{-q, -q}, {0, 0}, {q, q}}, {{-q, q}, {0, 0}, {q, -q}}},
		4: {{{-q, -q}, {q, -q}, {-q, q}, {q, q}}},
		5: {{{-q, -q}, {q, -q}, {0, 0}, {-q, q}, {q, q}}},
		6: {{{-q, -q}, {-q, 0}, {-q, q}, {q, -q}, {q, 0}, {q, q}}, {{-q, -q}, {0, -q}, {q, -q}, {-q, q}, {0, q}, {q, q}}},
	}
}()

// layoutResidual is the mean distance, in face units, between the pips
// found and the best-fitting canonical layout of that count, over its
// quarter-turn variants, a pip spacing of 0.4 to 0.65, a small turn (the
// face's angle is measured from a few pixels) and a shift (its centre
// too). A lone pip has no layout to fit: its residual is its distance from
// the face's centre.
func layoutResidual(us, vs []float64) float64 {
	n := len(us)
	if n == 1 {
		return math.Hypot(us[0], vs[0])
	}
	best := math.Inf(1)
	perm := make([]int, n)
	for _, variant := range canonical[n] {
		for _, scale := range []float64{0.8, 0.9, 1.0, 1.1, 1.2, 1.3} {
			for turn := -15.0; turn <= 15; turn += 5 {
				ca, sa := math.Cos(turn*math.Pi/180), math.Sin(turn*math.Pi/180)
				cu := make([]float64, n)
				cv := make([]float64, n)
				for k := range variant {
					x, y := variant[k][0]*scale, variant[k][1]*scale
					cu[k], cv[k] = x*ca-y*sa, x*sa+y*ca
				}
				for i := range perm {
					perm[i] = i
				}
				permute(perm, 0, func(p []int) {
					var mx, my float64
					for i, k := range p {
						mx += us[i] - cu[k]
						my += vs[i] - cv[k]
					}
					mx /= float64(n)
					my /= float64(n)
					var s float64
					for i, k := range p {
						s += math.Hypot(us[i]-cu[k]-mx, vs[i]-cv[k]-my)
					}
					// A shift is allowed, but not a large one: the
					// layout must still sit on the face.
					s = s/float64(n) + 0.5*math.Max(0, math.Hypot(mx, my)-0.15)
					best = math.Min(best, s)
				})
			}
		}
	}
	return best
}

func permute(a []int, k int, f func([]int)) {
	if k == len(a) {
		f(a)
		return
	}
	for i := k; i < len(a); i++ {
		a[k], a[i] = a[i], a[k]
		permute(a, k+1, f)
		a[k], a[i] = a[i], a[k]
	}
}

// toDetection converts an at-rest die to the reader's output form.
func (d restDie) toDetection(edge, minFlat float64) Detection {
	half := max(d.w, d.h) / 2
	box := image.Rect(int(d.cx-half), int(d.cy-half), int(math.Ceil(d.cx+half)), int(math.Ceil(d.cy+half)))
	// The face's size is measured by its area, which thin protrusions (an
	// anti-aliased rim, a shadow's tinted edge) barely change; the
	// rectangle's sides would.
	size := math.Sqrt(float64(d.area))
	off := d.pipOffset(edge)
	// A one's print-filled area may say it is larger than its area does
	// (see oneSize);
	// its flatness is judged by its area, as before.
	r, px := d.oneSize(size/edge), size
	if r != size/edge {
		px = r * edge
	}
	return Detection{
		Box: box, CX: d.cx, CY: d.cy, Value: d.value, Confidence: d.confidence,
		Flat: restFlat(d, size/edge, off, minFlat), Flatness: d.flatness, SizeRatio: r, EdgePx: px,
		pipOff: off, sideOut: d.sideOut, sideMarks: d.sideMarks, placed: d.placed,
		regrown: d.regrown, pipScale: d.pipScale(edge), span: d.span, filled: d.filled,
	}
}

// pipOffset is how far the counted pips' centre lies from the face's
// centre, in die edges; 0 when no value was read. Every layout is
// symmetric about the face's centre, so on a flat die the two agree to
// within the outline's noise. A cocked die's outline takes in the band of
// side face it shows as well, and its centre moves off the top face's pips
// towards that band.
func (d restDie) pipOffset(edge float64) float64 {
	if d.value == 0 || len(d.pips) == 0 || edge <= 0 {
		return 0
	}
	var sx, sy float64
	for _, p := range d.pips {
		sx += p[0]
		sy += p[1]
	}
	n := float64(len(d.pips))
	return math.Hypot(sx/n-d.cx, sy/n-d.cy) / edge
}

// Flatness evidence at a die edge of about 16 pixels. Measured on three
// generated sessions (389 flat dice, 82 cocked, 24 stacked pairs, each read
// 8 frames after rest): a flat die's outline is noisy at that size (its
// squareness ran from 0.65 up, 13 below the usual 0.8 cut), but its area is
// one die's (size ratio 0.91 to 1.085); a cocked die shows part of a side
// face as well and is nearer the camera, and measured 1.14 to 1.36 (its
// squareness anywhere from 0.53 to 0.96).
//
// restLooseFlatness was 0.65 until session 18. On never-run seed 23 a 4
// cocked 15.4 degrees against chips, its pips centred on its outline
// (0.044 edges off), read with squareness 0.71 and size 1.00 (0.96 in
// its test crop), so it was called flat and left a valid roll. Over
// seeds 15, 17 and 19 to 22 (2,000 throws each) and the first 247 throws
// of seed 18, every flat die under 0.85 squareness logged by
// DICEWATCH_SCENE_NEAR, no read flat die whose face was not placed by
// its pips fell under 0.74; the lower ones were all placed, and placed
// faces are flat by restFlat's first test, before this cut.
const (
	restLooseFlatness = 0.72 // squareness a face of one die's area may fall to
	restOneDieSize    = 1.09 // size ratio up to which a face is one die's top
	// restPipOffset: a read face whose pips' centre lies further than
	// this many die edges from its outline's centre is not flat. Measured
	// on two 2,000-throw sessions (seeds 9 and 10, 6,600 flat dice): flat
	// dice read 0.072 at most, cocked dice (tilted 14 to 35 degrees)
	// 0.107 and up.
	restPipOffset = 0.09
	// restSideOut: an unread face with more than this many die areas of
	// clear difference lying past a square of the die's size placed on it
	// (more than a pixel beyond its sides; see fitSquare) is not flat. A
	// flat die's outline is its top face with a blurred rim a pixel wide
	// all round, which the square's one-pixel margin takes in; a cocked
	// die's outline takes in a band of side face along one side as well.
	// Measured on generated sessions (seeds 5 and 9, 2,000 throws each):
	// flat dice 0.004 at most (every die measured on seed 9), unread
	// cocked dice tilted 17 to 35 degrees 0.12 and up.
	restSideOut = 0.04
)

// restFlat reports whether an at-rest face is flat: square enough, or a
// little out of square while it is one die's area and its pips fit their
// layout (a read value).
func restFlat(d restDie, size, pipOff, minFlat float64) bool {
	if d.placed && d.value != 0 {
		// Its outline is not seen; it passed regrow's cocked tests (on
		// its pips, nothing standing out past its square).
		return true
	}
	if pipOff > restPipOffset && !d.regrown {
		// Its pips sit off the middle of what stands out: a side face
		// shows beside the top face, however square the two look
		// together. (A regrown face's square was moved onto its pips and
		// passed regrow's own cocked tests; its outline says nothing
		// here.)
		return false
	}
	if d.sideMarks > 0 {
		// Marks stand out beside its outline, joined to it through
		// shade: the pips of a side face that the print of the die's
		// colour hides in shadow (see markSides).
		return false
	}
	if d.value == 0 && d.sideOut > restSideOut {
		// Unread, so no pips to place its top face by; but what stands
		// out runs past a square of the die's size on one side: a side
		// face beside the top face, however square the two look together.
		return false
	}
	if d.flatness >= minFlat {
		return true
	}
	return d.value != 0 && d.flatness >= restLooseFlatness && size <= restOneDieSize
}

// canonSpread is the mean distance of each value's canonical pips from
// the face's centre, for corner pips one unit off it along each side.
var canonSpread = [7]float64{0, 0, math.Sqrt2, 2 * math.Sqrt2 / 3, math.Sqrt2, 4 * math.Sqrt2 / 5, (4*math.Sqrt2 + 2) / 6}

// pipScale is the pip layout's size against the expected die edge (see
// pipSpread); 0 when no value of two pips or more was read.
func (d restDie) pipScale(edge float64) float64 {
	if d.value < 2 {
		return 0
	}
	return d.spread
}

// sizeByPips sets size evidence from the pips, the ruler the at-rest
// reader has where the outline is not the die's. A face read on the
// second look (regrown: a square of the expected die size placed on the
// pips of a die that hardly stands out from print of its colour) measured
// its square's area, one die's at most, so a die resting on another could
// never carry stacked evidence; a face read on the first pass over such
// print may stand out only in part, its area short of the die's too.
// The pips' spread (pipSpread) measures the die's size against that of
// the other dice read in the same frame (the same set of dice): those read
// on the first pass, flat, whose outline measures one die's top (size
// ratio restOneDieSize at most). A regrown face's size ratio is its
// spread over the median of theirs; a first-pass face's is the larger of
// that and its outline's. A face with no other such die beside it, or a
// one (a lone pip has no spread), keeps the size it had.
func sizeByPips(ds []Detection) { sizeByPipsLearned(ds, 0) }

// sizeByPipsLearned is sizeByPips with a ruler learned over earlier
// frames (learned: a flat die's spread in calibrated edges, see pipRuler;
// 0 when none): a face with no ruler beside it in its frame (alone, or
// beside only ones or regrown faces) is measured against that instead.
func sizeByPipsLearned(ds []Detection, learned float64) {
	// The rulers, chosen before any size is changed.
	ruler := make([]bool, len(ds))
	for i, o := range ds {
		ruler[i] = isPipRuler(o)
	}
	var ref []float64
	for i := range ds {
		d := &ds[i]
		if d.pipScale <= 0 {
			continue
		}
		ref = ref[:0]
		for j, o := range ds {
			if j != i && ruler[j] {
				ref = append(ref, o.pipScale)
			}
		}
		var r float64
		switch {
		case len(ref) > 0:
			r = d.pipScale / sortedMedian(ref)
		case learned > 0:
			r = d.pipScale / learned
		default:
			continue
		}
		if !d.regrown && r <= d.SizeRatio {
			continue
		}
		if d.SizeRatio > 0 {
			e := d.EdgePx / d.SizeRatio // the expected edge
			d.EdgePx = r * e
		}
		d.SizeRatio = r
	}
}

// isPipRuler: a die whose pips' spread can serve as a ruler: read on the
// first pass, flat, its outline one die's top, two pips or more.
func isPipRuler(d Detection) bool {
	return !d.regrown && d.Flat && d.pipScale > 0 && d.SizeRatio <= restOneDieSize
}

// pipRulerKeep is how many flat dice's spreads pipRuler keeps (the last
// ones seen), pipRulerMin how many it needs before it gives a ruler.
const (
	pipRulerKeep = 63
	pipRulerMin  = 15
)

// pipRuler is a ruler that outlives the frame: the pips' spread of a flat
// die, in calibrated die edges, is a property of the dice set, which the
// daemon sees on every throw. It keeps the spreads of the last
// pipRulerKeep dice that served as rulers (isPipRuler) and that, once
// sized by their pips, still measured one die's top (outline and pips
// agree), and gives their median once pipRulerMin have been seen. A die
// with no ruler beside it in its frame (a lone die) is sized against it
// (sizeByPipsLearned). The calibration sets what an edge is: the caller
// names the calibration in force before each frame (forCalibration), and
// a new one starts a new ruler.
type pipRuler struct {
	spreads [pipRulerKeep]float64
	n, next int
	scratch []float64
	cal     *calibration.Calibration
}

// reset forgets every spread seen.
func (p *pipRuler) reset() { p.n, p.next = 0, 0 }

// forCalibration keeps the ruler while c is the calibration it learned
// under and resets it when c is another (a reload, even of the same
// file, may move the camera's mm to px).
func (p *pipRuler) forCalibration(c *calibration.Calibration) {
	if c != p.cal {
		p.cal = c
		p.reset()
	}
}

// scale is the median spread of the dice seen, 0 until pipRulerMin have
// been.
func (p *pipRuler) scale() float64 {
	if p == nil || p.n < pipRulerMin {
		return 0
	}
	p.scratch = append(p.scratch[:0], p.spreads[:p.n]...)
	return sortedMedian(p.scratch)
}

// size sizes a frame's detections by their pips (sizeByPipsLearned, with
// the ruler as it stood before the frame) and then learns from the
// frame's rulers that still measure one die's top.
func (p *pipRuler) size(ds []Detection) {
	if p == nil {
		sizeByPips(ds)
		return
	}
	ruler := make([]bool, len(ds))
	for i, d := range ds {
		ruler[i] = isPipRuler(d)
	}
	sizeByPipsLearned(ds, p.scale())
	for i, d := range ds {
		if !ruler[i] || d.SizeRatio > restOneDieSize {
			continue
		}
		p.spreads[p.next] = d.pipScale
		p.next = (p.next + 1) % pipRulerKeep
		p.n = min(p.n+1, pipRulerKeep)
	}
}

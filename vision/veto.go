package vision

import "math"

// The value veto.
//
// The pip reader gives a value when its two cues agree. On generated
// stills the cues sometimes agree on the wrong face: the face rectangle
// holds only part of the top face (a dark die on a dark cloth, a face
// partly hidden by a die on top, a face cut short by the rectangle's
// fit), and both cues see the same subset of its pips. Such a subset
// reads as a low value: most wrong values on the stills are a 1 or a 2
// read from a 3, 4, 5 or 6. veto looks at an accepted 1 or 2 once more, on
// the face rectangle grown by vetoGrow (about a sixth of an edge more on
// each side, less than the distance from a die's edge to the nearest pip
// of a die touching it), and withholds the value (unreadable) when the
// marks there contradict it:
//
//   - a 1 with vetoPeaksOne or more pip-map peaks around it: a lone pip
//     has no company on its face;
//   - a 2 whose blobs there fit a canonical layout of more pips (score
//     at least vetoLayoutScore): the 2 was two pips of a larger face.
//     Only a canonical layout counts, not the number of marks: a
//     neighbour's pips or a side face's, common on real photos, add marks
//     that seldom complete a face with the 2's pips.
//
// Higher values are not withheld: they are rarely wrong on the stills.
// A 3 or a 4 with a larger face's layout around it is doubted instead
// (its confidence capped, see doubtCap).
//
// Tried and left out: a 2's pip radius over its pip offset (a corner and
// the centre pip of a larger face have half a 2's offset, so twice the
// ratio) separates the stills' wrong 2s well, but real dice have larger
// pips closer together (byler_d6 and matteo_webcam 2s: radius over
// offset 0.33..0.62 against about 0.33 on the generator's dice), so a
// fixed cut withheld most real 2s; one relative to the frame's dice of 4
// or more caught few wrong stills for its cost on byler_d6. More blobs
// than the value around a 2 (not a layout) cost byler_d6 and
// matteo_webcam over their unreadable ceilings.

// vetoGrow is how much larger the rectangle is on which the marks around
// a 1 or a 2 are looked at.
const vetoGrow = 1.35

// vetoPeaksOne is the number of pip-map peaks around a 1 that withholds
// it; vetoLayoutScore the layout score (matchLayout) from which a larger
// face around a 2 withholds it.
const (
	vetoPeaksOne    = 3
	vetoLayoutScore = 0.5
)

// vetoInfo is what the veto measured on one accepted value.
type vetoInfo struct {
	value int
	conf  float64
	// On the rectangle grown by vetoGrow: blobs (the pip reader's first
	// pip finder) and the layout they fit, and pip-map peaks (its second).
	blobs, peaks int
	lv           int
	ls           float64
	// glare: the peaks around a 1 not counted as pips (glarePeaks).
	glare  int
	reason string // why the value was withheld ("" when kept)
}

// vetoTrace, when set (tests), is called with every accepted value the
// veto looked at. vetoOff (tests) turns the veto off, for before-and-after
// figures.
var (
	vetoTrace func(d *Detection, vi vetoInfo)
	vetoOff   bool
)

// vetoGrownBlobs samples the face rectangle c grown by vetoGrow into s
// and gives the pip blobs found there and the peaks on the difference of
// blurs the blobs left (veto's look around a low value).
func (s *faceScratch) vetoGrownBlobs(fr bgrImage, c candidate) (blobs, peaks [][2]float64) {
	c.w *= vetoGrow
	c.h *= vetoGrow
	c.edge *= vetoGrow
	s.sample(fr, c)
	s.pipMap()
	blobs, _ = s.blobs()
	return blobs, s.peaks()
}

// veto reports whether the value fv gives for the detection d must be
// withheld. It reuses the reader's face scratch (the read is done).
func (r *Reader) veto(fr bgrImage, fv faceValue, d *Detection) bool {
	r.lastLarger, r.lastVetoLarger2 = false, false
	if fv.value > 4 {
		return false
	}
	vi := vetoInfo{value: fv.value, conf: fv.conf}
	s := &r.face
	b, pk := s.vetoGrownBlobs(fr, fv.c)
	vi.blobs = len(b)
	vi.lv, vi.ls, _ = matchLayout(b)
	vi.peaks = len(pk)
	if fv.value == 1 && vi.peaks >= vetoPeaksOne && !r.knownSize() && !oneGlareOff {
		vi.glare = s.glarePeaks(pk)
	}
	if fv.value > 2 {
		// A 3 or a 4 is not withheld for a larger face around it, only
		// doubted (see doubtCap).
		r.lastLarger = vi.lv > fv.value && vi.ls >= vetoLayoutScore
		return false
	}
	switch {
	case fv.value == 1 && vi.peaks >= vetoPeaksOne && vi.glare < vi.peaks-1:
		// Not when every peak but the 1's pip is glare (glarePeaks).
		// Peaks, not blobs: the thresholded blobs drop the weaker pips
		// beside a strong one.
		vi.reason = "pips around a 1"
	case fv.value == 2 && vi.lv > 2 && vi.ls >= vetoLayoutScore && !r.vetoNetTwo:
		vi.reason = "a larger face around a 2"
		r.lastVetoLarger2 = true
	}
	if vetoTrace != nil {
		vetoTrace(d, vi)
	}
	return vi.reason != "" && !vetoOff
}

// oneGlareOff (tests) counts every peak around a 1, glare too.
var oneGlareOff bool

// oneGlarePipRel is how near the patch's centre (units of the grown
// patch's side) the peak must be that glarePeaks takes for a 1's pip;
// glareGrey the most a glare mark's channels may spread, over its
// brightest channel.
const (
	oneGlarePipRel = 0.12
	glareGrey      = 0.15
)

// glarePeaks counts the peaks pk of the veto's grown patch (sampled, its
// pip map made) that are not of a 1's paint: glare and the glints of a
// translucent body. "Pips around a 1" does not withhold a 1 whose every
// other peak is such a mark; one mark of the pip's paint beside it is
// enough for the usual count (generated still 2174, uncalibrated: a box
// between an ivory 4 and a blue die read 1 on one of the 4's pips, with
// one more of its pips and the blue die's white pip around it). Every
// pip of a face is of one paint (see the check's maxColSpread), so a
// larger face whose centre pip the 1 is shows its other pips in that
// paint. Without a known die size only (byler_d6: 1s on dark and marbled
// bodies whose glints around the pip withheld them). The 1's pip is the
// peak nearest the centre, within oneGlarePipRel (else none is counted
// as glare). Another peak is glare when it is lighter than the body, its
// colour off the pip's by more than maxColSpread of the pip's contrast
// with the body (the check's measure), and either the pip is darker than
// the body (a mark of the opposite contrast is not that paint) or the
// peak is grey (white glare) and the pip is not. Each colour is the mean
// of the 3x3 patch pixels at the peak, as the check's.
func (s *faceScratch) glarePeaks(pk [][2]float64) int {
	col := func(p [2]float64) [3]float64 { return s.patchColour(p[0], p[1]) }
	dist := func(a, b [3]float64) float64 {
		return math.Abs(a[0]-b[0]) + math.Abs(a[1]-b[1]) + math.Abs(a[2]-b[2])
	}
	lum := func(a [3]float64) float64 { return a[0] + a[1] + a[2] }
	grey := func(a [3]float64) bool {
		hi, lo := max(a[0], a[1], a[2]), min(a[0], a[1], a[2])
		return hi > 0 && hi-lo <= glareGrey*hi
	}
	pi, pd := -1, oneGlarePipRel
	for i, p := range pk {
		if d := math.Hypot(p[0], p[1]); d <= pd {
			pi, pd = i, d
		}
	}
	if pi < 0 {
		return 0
	}
	pip := col(pk[pi])
	contrast := dist(pip, s.med)
	if contrast <= 0 {
		return 0
	}
	darkPip := lum(pip) < lum(s.med)
	n := 0
	for i, p := range pk {
		if i == pi {
			continue
		}
		c := col(p)
		if lum(c) > lum(s.med) && dist(c, pip) > maxColSpread*contrast && (darkPip || grey(c) && !grey(pip)) {
			n++
		}
	}
	return n
}

// The consistency check.
//
// A value both cues agree on can still contradict what else the reader
// knows of the die (found with the still harness's dump of every wrong
// value, TestStillWrongDump):
//
//   - The pips of a face sit at one offset from its centre, the same for
//     every face of a set of dice: 0.27 of the edge on the generated
//     dice, about 0.2 (0.19..0.21 of the face edge read, median) on the
//     byler_d6 and matteo_webcam dice. Two or three marks at half that
//     offset are a corner and the centre pip of a larger face whose
//     other pips the rectangle left out (a face partly hidden by a die
//     leaning over it, a rectangle off the face or cut short). Such a
//     value is withheld when its layout's offset is under minPipRel of
//     the expected die edge (with a calibration; below any die's own
//     offset, above half the generator's), or under minFramePipRel of
//     the median offset of the frame's values when three or more dice
//     give one (each over the expected edge at its place when known):
//     half the offset is 0.5, and the cut leaves room for a tilted
//     camera's change of scale across the picture.
//   - With a known die size, a 2 or a 3 whose layout offset is under
//     minFrameRowRel of that median (over the expected edge at each
//     place) is withheld too: two neighbouring pips of a larger face's
//     square (a 4's side, a 6's corner and middle pip) are a 2 at 1/sqrt2
//     of the face's own offset, and a 6's row of three a 3 at the same
//     1/sqrt2 (about 0.71). On 2,000 generated stills read calibrated,
//     every wrong 2 or 3 the frame could measure sat at 0.67..0.74 and
//     the right ones at 0.88 and up for 99% of them. Not without a known
//     size: byler_d6's photos mix dice of several sizes and pip spacings
//     in one frame, and a tenth of their right 2s and 3s measure under
//     0.78 of their frame's median. With a known size, a value whose
//     layout the check does not find again (read on another pip map)
//     enters the frame's median with its read's own layout offset.
//   - Every pip of a face is of one paint: a mark of another colour (a
//     neighbour's pip, a chip's pattern) completing the layout withholds
//     the value (maxColSpread).
//   - With a known die size, the layout's lattice must fit a face of that
//     size: not over maxLatRel of the edge, and a 2 or a 3 the check
//     does not find again not under maxUnfoundRel; and the footprint must
//     be at least minValueFlatness square (see those constants).
//   - A die the reader calls not flat shows a foreshortened top face or a
//     side face beside it, and the face read may be that side face (on the
//     stills, most wrong values of cocked dice are a side face read whole
//     and with full confidence). Its value is kept but never confident:
//     capped at notFlatMaxConf.
//
// Tried and left out: with a calibration, a second pip-map peak in the
// die-sized square centred on a 1 (the 1 one pip of a larger face) cost 8
// of 481 right 1s on 1,200 stills for 2 wrong ones caught; the roundness
// of the pips in the rectified patch (a side face's are foreshortened)
// caught none of the stills' wrong values.

// minPipRel is the least offset, over the expected die edge, of the pips
// of a value's layout from its centre; notFlatMaxConf the most
// confidence a value of a die that is not flat keeps.
const (
	minPipRel      = 0.15
	notFlatMaxConf = secondLookMaxConf
)

// maxColSpread is the most a pip's colour may be off the other pips' (as
// a share of their contrast with the body): every pip of a face is of one
// paint, so a mark of another colour is a neighbour's pip, a chip's
// pattern or glare, and the layout it completes is not this face's.
const maxColSpread = 0.6

// maxCentreOff is the most a 3's middle pip's colour may be off its two
// corner pips' (centrePipOff, as a share of their contrast with the
// body). On a marbled die a light vein across the face's middle can take
// the place of a 2's missing centre pip, and the three then fit a 3's
// layout and template; its colour is the vein's. When the check finds
// the layout again colSpread sees it too, but these measure 0.53..0.57
// there, under maxColSpread, and some are not found again (colSpread 0).
// On the generated stills (calibrated; tuning seeds 0..1999 and training
// seeds 20000..21999) the right 3s kept measure at most 0.37 and the
// wrong ones (marbled blue 2s and a 1) 0.55 and up. Only with a known die
// size: without one, the reader's 3s include right ones whose middle pip
// measures over 1 (uncalibrated stills 604 and 994 of 0..999; 2850 on the
// held-out 2000..2999), where the layout is not found again.
const maxCentreOff = 0.45

// centreOffOff (tests) turns that cut off, for before-and-after figures.
var centreOffOff bool

// minFrameDice is the number of read dice a frame needs for their median
// layout size to stand for the dice's own (see framePipCheck).
const minFrameDice = 3

// minFramePipRel is the least a value's layout offset may be of the
// median of the frame's values (each over the expected edge at its place
// when known).
const minFramePipRel = 0.55

// minFrameRowRel is the least a 2's or a 3's layout offset may be of
// the median of the frame's values, with a known die size (see check):
// between a larger face's neighbouring pips (1/sqrt2, 0.71) and the right
// values' spread under it.
const minFrameRowRel = 0.78

// rowCutOff (tests) turns the cut of minFrameRowRel off, for
// before-and-after figures.
var rowCutOff bool

// With a known die size, a layout of two pips or more is withheld when it
// is small for the die (its lattice scale under maxPipsRowRel of the
// expected edge there) and small for its own pips as well (under
// minLayoutRadii of their mean radius): a far die seen aslant is smaller
// everywhere, its pips too, while a row of a 6 taken for a 3, or a 5's
// centre and two corners taken for a 4, keeps a whole face's pips at a
// part of its spread. On the generated stills (seeds 0..1999, calibrated,
// values given on every group) the lattice scale is 0.267 of the edge at
// the median and the layout spans 2.7 to 4 pip radii; the pair of cuts
// fits 7 wrong values (3 clean: 340 die 0 and 1457 die 6, a 6's row read
// 3; 1577 die 3, a 5 read 4) and 2 right ones; held-out 2000..2599 3
// wrong and none right. Without a known size the spread of real dice's
// pips against their layout varies too much (byler_d6's 2s: radius over
// offset 0.33..0.62) for a cut on the pips alone.
const (
	maxPipsRowRel  = 0.215
	minLayoutRadii = 2.5
)

// Such a layout is a part of the die's face, and so is what a later look
// reads on it (still 34598 die 5, a 4, once read as a 1 by a later look):
// the check marks the die (pipsRow) and the later looks leave it unread.
// On stills 0..1999 read calibrated that costs two right values readAway
// gave after the cut (1457 die 6, 1577 die 3, each at 0.85; clean wrong
// values 8 either way), and changes nothing on 0..599 and 2000..2599's
// wrong values or on the photos (read without a known size).
//
// pipsRowOff (tests) turns that cut off, for before-and-after figures.
var pipsRowOff bool

// layoutRadii is the scale of the lattice fv's value fitted over the mean
// radius of the pips it was read from (0 when there is no lattice or no
// pip radius).
func layoutRadii(fv faceValue) float64 {
	if fv.value < 2 || fv.lat.scale <= 0 {
		return 0
	}
	n, sum := 0, 0.0
	for _, p := range fv.pips {
		if p[2] > 0 {
			n++
			sum += p[2]
		}
	}
	if n == 0 || sum <= 0 {
		return 0
	}
	return fv.lat.scale / (sum / float64(n))
}

// A face's pips lie on the face's own axes: the lattice of a 4, 5 or 6
// runs along its sides, and a 2's or a 3's diagonal along its diagonal,
// so the face the fitted layout implies is square to the die's outline
// (the silhouette, found where the die stands alone), whatever the value.
// Pips that make a layout only at a slant to the outline are not one
// face's: on the generated stills they were a 1's pip and a neighbouring
// die's two pips taken together as a 3 (still 2183 die 0, calibrated).
// Measured on stills 0..599 and 2000..2599 read calibrated (every group;
// the 1,407 values of two pips or more whose outline was found): read1
// turns the patch to the pips, so what is left is the fit's own noise,
// under 5 degrees for 1,354 of the 1,404 right values and under 15 for
// all but 5, the most 25.6 (a stacked die, whose outline is the stack's);
// that 3 turned 43 (45 is the most there is). The cut lies between, at
// maxSilTurn. The measure needs no known size, but the cut runs only with
// one: without, on stills 0..1999, it moved no clean figure and
// dropped weak candidates whose value it withheld (one cocked
// die less caught, 317 -> 316 of 887, and one stacked die, 206 -> 205);
// on byler_d6 and matteo_webcam it changed nothing.
const maxSilTurn = 30 * math.Pi / 180

// silTurnOff (tests) turns the outline-turn cut off, for before-and-after
// figures.
var silTurnOff bool

// layoutSilTurn is how far (radians, 0..pi/4) the face fv's layout implies
// turns from the die's outline: 0 when the outline was not found or no
// layout of two pips or more gave the value.
func layoutSilTurn(fv faceValue) float64 {
	if fv.silEdge <= 0 || fv.value < 2 || fv.lv != fv.value {
		return 0
	}
	return layoutTurn(fv, fv.silAngle)
}

// layoutTurn is how far (radians, 0..pi/4) the face fv's layout implies
// turns from an outline turned silAngle.
func layoutTurn(fv faceValue, silAngle float64) float64 {
	return math.Abs(math.Remainder(fv.c.angle+fv.rot-silAngle, math.Pi/2))
}

// A 2 or a 3 read from part of a face keeps that part's spacing: two
// neighbouring pips of a larger face, or a 1's pip and a side face's pip
// under a tilted camera, sit closer than a whole face's corner pips. Such
// reads are often fragile as well: the check's own look at the face
// rectangle (pipLayout, on the colour-distance map) does not find the
// layout again. With a known die size, a 2 or a 3 that the check does not
// find again and whose lattice is under maxUnfoundRel of the expected
// edge is withheld once the frame's looks are done (unfoundLook), so the
// die keeps the place and flat call its read gave it: withheld in the
// check, the die's centre moved to its footprint's top face, where the
// cocked nets called a cocked die flat (still 13 die 3), and a neighbour
// read before was left unread (still 1393 die 1). Found on stills 0..1999
// read calibrated (TestStillWrongDump's given.tsv; see
// TestLatticeSizeStills for the dice): every such value under 0.22 was
// wrong there (a 1 read 2 three times, a 6 read 3), the nearest right one
// at 0.222.
//
// The three cuts below (maxUnfoundRel, maxLatRel, minValueFlatness), set
// on stills 0..1999 read calibrated, withheld there 8 wrong values (3 on
// clean dice) and no right one; on the held-out stills 2000..3999 (read
// calibrated, before and after) 8 wrong values (4 clean) and no right
// one; on both, every other value and confidence the same.
const maxUnfoundRel = 0.22

// With a known die size, no face's pips spread wider than a die's face
// allows: on stills 0..1999 read calibrated, the lattice of every value
// of two pips or more read right is at most 0.327 of the expected edge
// (0.267 at the median; the highest are dice on a die, nearer the camera),
// while a layout taken across two dice or a die and its side face spreads
// wider (a 2 read 3 at 0.48, a 4 read 2 at 0.36, a 1 read 5 at 0.42). A
// value whose lattice is over maxLatRel of the expected edge (1.3 times
// the median face's) is withheld, and the die marked (pipsRow) as for a
// layout small for its pips: on still 865 a later look read the die
// (a 2) as a 1 once its 3 was withheld.
const maxLatRel = 0.35

// largeLatOff (tests) turns that cut off, for before-and-after figures.
var largeLatOff bool

// With a known die size, a value is given only on a footprint at least
// minValueFlatness square (its aspect times its fill; the flat cut is
// DefaultMinFlatness, 0.8). On stills 0..1999 read calibrated every value
// read right, cocked dice's included, has a footprint of 0.527 or more;
// the one under 0.5 was a black 2 on dark cloth read as a 1 from one pip,
// its body not found (still 1629, 0.46).
const minValueFlatness = 0.5

// thinOff (tests) turns that cut off, for before-and-after figures.
var thinOff bool

// With a known die size, a 1 read on a face rectangle over
// minOneSplitSize of the expected edge is withheld when the rectangle's
// two halves differ in brightness by more than maxOneSplit of the
// brighter half's (faceHalfSplit): a rectangle that large takes in the
// top face and the shaded side face beside it, and the one pip near its
// centre need not be a 1's (still 1177 die 0, a 2 whose lower pip sat at
// the centre of a rectangle 1.35 edges wide, half in its red side face;
// split 0.468). Set on stills 0..1999 read calibrated: the right 1s on
// rectangles over 1.25 edges split at most 0.348 (1261 die 3, a stacked
// marbled die), and on the split alone a right red 1 measures 0.40 on a
// rectangle of 1.15 edges (928 die 4), which the size keeps; the cut lies
// midway between 0.348 and 1177's 0.468. The die is marked (pipsRow) as
// for the other cuts of a rectangle that is not one face: a later look
// would read on the same two faces.
const (
	maxOneSplit     = 0.41
	minOneSplitSize = 1.25
)

// halfSplitOff (tests) turns that cut off, for before-and-after figures.
var halfSplitOff bool

// smallRefitOff (tests) turns the maxUnfoundRel cut (unfoundLook) off, for
// before-and-after figures.
var smallRefitOff bool

// unfoundLook withholds the values check marked unfound.
func unfoundLook(dets []Detection) {
	withholdWhere(dets, func(d *Detection) bool { return d.unfound })
}

// smallUnfound reports whether fv's value is a 2 or a 3 whose layout the
// check did not find again (pipOff 0) and whose lattice is under
// maxUnfoundRel of the expected edge e.
func smallUnfound(fv faceValue, pipOff, e float64) bool {
	return (fv.value == 2 || fv.value == 3) && pipOff == 0 && fv.lat.scale > 0 && fv.lat.scale < maxUnfoundRel*e
}

// latOffOff (tests) leaves out the read's own layout offset where the
// check found none (see readCandidate).
var latOffOff bool

// checkRec is what the check kept of one value for framePipCheck: the
// layout offset it measured (0: none) and whether the candidate was weak.
type checkRec struct {
	off  float64
	weak bool
	// What doubtCap needs of the read: the face read much smaller than
	// its region (see readCandidate), and either cue short of a full
	// score.
	shrunk, weakCue bool
	// larger: a 3 or a 4 with a larger face's layout around it.
	larger bool
	// colSpread: the check's pip colour spread (0 when not measured).
	colSpread float64
	// noRefit: a value of two pips or more whose layout the check did
	// not find again on the face's colour-distance map (see doubts).
	noRefit bool
	// face: the face rectangle read (its centre, sides and angle only),
	// for doubtCap's fold measure (see fold.go); zero sides when none.
	face candidate
}

// framePipCheck caps the confidence of the values of dice not flat, and
// withholds the values whose layout is much smaller than
// the other dice's in the frame: the pips of one set of dice sit at one
// offset from their faces' centres, and a layout of half that offset is a
// corner and the centre pip of a larger face (see check). It finds each
// value's layout offset in r.checked, and drops a weak candidate whose
// value it withholds (as ReadRegion does). It returns dets, shortened.
func (r *Reader) framePipCheck(dets []Detection) []Detection {
	if checkOff {
		return dets
	}
	for i := range dets {
		// The not-flat cap (see check), on the dice's last flatness
		// (a region's may stand in for a face read in it).
		if d := &dets[i]; d.Value > 0 && !d.Flat && d.Confidence > notFlatMaxConf {
			d.Confidence = notFlatMaxConf
		}
	}
	rel := make([]float64, len(dets))
	var ms []float64
	for i, d := range dets {
		rec := r.checked[[2]float64{d.CX, d.CY}]
		if d.Value < 2 || rec.off <= 0 {
			continue
		}
		rel[i] = rec.off
		if e := r.expectedAt(d.CX, d.CY); e > 0 {
			rel[i] = rec.off / e
		}
		ms = append(ms, rel[i])
	}
	if len(ms) < minFrameDice {
		return dets
	}
	med := sortedMedian(ms)
	kept := dets[:0]
	for i, d := range dets {
		if rel[i] > 0 {
			rec := r.checked[[2]float64{d.CX, d.CY}]
			ci := checkInfo{pipOff: rec.off, pipRel: rel[i] / med, reason: "frame: ok"}
			switch {
			case rel[i] < minFramePipRel*med:
				ci.reason = "layout smaller than the frame's dice'"
				d.Value = 0
			case r.knownSize() && !rowCutOff && d.Value <= 3 && rel[i] < minFrameRowRel*med:
				ci.reason = "a 2 or 3 at a side's spacing of the frame's dice'"
				d.Value = 0
			}
			if checkTrace != nil {
				checkTrace(&d, ci)
			}
			if d.Value == 0 && rec.weak {
				continue
			}
		}
		kept = append(kept, d)
	}
	return kept
}

// checkInfo is what the consistency check measured on one accepted value.
type checkInfo struct {
	// sizeRel: the face read's edge over the expected die edge there (0
	// without an expected size). pipRel: the offset of the value's
	// layout (centre to corner pip) over the expected edge (0 when not
	// measured).
	sizeRel, pipRel float64
	// colSpread: how far the pips' colours spread, over their contrast
	// with the body (the most off pip; 0 when not measured).
	colSpread float64
	// pipOff: the layout's offset in pixels (0 when not measured).
	pipOff float64
	// foldStep, foldSep: foldSplit's measures (0 when not measured).
	foldStep, foldSep float64
	// enclosed: the mean share of the body's colour on a ring round each
	// pip of the value; enclosedPips: the share of its pips whose ring is
	// at least half body (pipEnclosure; 1 when no pip was placed).
	enclosed, enclosedPips float64
	// outlined: the share of rays from the face that cross a thin stroke
	// of the pips' colour into the body's colour again (printedOutline).
	outlined float64
	// open, openN: the share of the value's pips open to the outside
	// and how many pipsOpen counted.
	open  float64
	openN int
	// centreOff: for a 3, how far its middle pip's colour is from its
	// corner pips' (centrePipOff; 0 when not measured).
	centreOff float64
	// halfSplit: with a known die size, how far the face rectangle's two
	// halves differ in brightness (faceHalfSplit; 0 when not measured).
	halfSplit float64
	reason    string
}

// checkTrace, when set (tests), is called with every value checked.
// checkOff (tests) turns the check off, for before-and-after figures.
var (
	checkTrace func(d *Detection, ci checkInfo)
	checkOff   bool
)

// check looks at an accepted value against what the reader knows of the
// die: its size when the expected die edge is known, and its pips'
// colours. It withholds the value (returns false) when the evidence is
// inconsistent. (framePipCheck caps the confidence of a die not flat.)
func (r *Reader) check(fr bgrImage, fv faceValue, d *Detection) bool {
	if checkOff {
		return true
	}
	var ci checkInfo
	e := r.expectedAt(d.CX, d.CY)
	if e > 0 {
		ci.sizeRel = fv.c.edge / e
	}
	if fv.value >= 2 {
		off, spread := r.pipLayout(fr, fv)
		ci.pipOff = off
		if e > 0 {
			ci.pipRel = off / e
		}
		ci.colSpread = spread
	}
	if checkTrace != nil {
		// For the trace only: doubtCap measures the fold where it
		// decides the cap (see fold.go).
		ci.foldStep, ci.foldSep = r.face.foldSplit(fr, fv.c)
	}
	r.lastPipOff, r.lastColSpread = ci.pipOff, ci.colSpread
	ci.enclosed, ci.enclosedPips = pipEnclosure(fr, fv)
	if !r.knownSize() {
		// Used only without a known size (printedLook).
		ci.outlined = printedOutline(fr, fv)
	}
	ci.open, ci.openN = pipsOpen(fr, fv)
	ci.centreOff = centrePipOff(fr, fv)
	if e > 0 && fv.value == 1 && ci.sizeRel > minOneSplitSize {
		ci.halfSplit = r.face.faceHalfSplit(fr, fv.c)
	}
	switch {
	case ci.pipRel > 0 && ci.pipRel < minPipRel:
		ci.reason = "layout smaller than the die's"
	case ci.colSpread > maxColSpread:
		ci.reason = "pips of different colours"
	case e > 0 && !centreOffOff && ci.centreOff > maxCentreOff:
		ci.reason = "middle pip of another colour"
	case e > 0 && !pipsRowOff && fv.lat.scale < maxPipsRowRel*e && layoutRadii(fv) > 0 && layoutRadii(fv) < minLayoutRadii:
		ci.reason = "layout small for the die and for its pips"
		d.pipsRow = true
	case !enclosureOff && ci.enclosedPips < minPipsEnclosed:
		ci.reason = "pips not enclosed by the body"
	case e > 0 && !silTurnOff && layoutSilTurn(fv) > maxSilTurn:
		ci.reason = "layout turned from the die's outline"
	case e > 0 && !largeLatOff && fv.value >= 2 && fv.lat.scale > maxLatRel*e:
		ci.reason = "layout larger than the die's face"
		d.pipsRow = true
	case e > 0 && !thinOff && d.Flatness > 0 && d.Flatness < minValueFlatness:
		ci.reason = "footprint too far from a square"
	case e > 0 && !halfSplitOff && ci.sizeRel > minOneSplitSize && ci.halfSplit > maxOneSplit:
		ci.reason = "a 1 on a face of two shades"
		d.pipsRow = true
	case e > 0 && !rowThreeOff && betweenTwoPips(fr, fv, e):
		ci.reason = "a 1 between two pips of its colour"
	}
	if checkTrace != nil {
		checkTrace(d, ci)
	}
	if ci.reason == "" {
		// Kept for printedLook, which withholds the value once the
		// frame's other looks are done.
		d.outlined = ci.outlined
		d.open = 0
		if ci.openN >= minOpenCounted {
			d.open = ci.open
		}
		d.soft = 0
		if w := pipSoftness(fr, fv); w >= maxSoftRel*fv.c.edge {
			d.soft = w
		}
		// Withheld after the frame's looks (unfoundLook), so that the
		// die keeps the place and flat call its read gave it.
		d.unfound = e > 0 && !smallRefitOff && smallUnfound(fv, ci.pipOff, e)
	}
	return ci.reason == ""
}

// pipLayout finds again, on the face rectangle fv read, the pips of the
// layout of fv's value, and returns the offset in pixels from the face
// centre to a corner pip of that layout and the spread of the pips'
// colours: the most any pip's colour is off the pips' median colour, over
// that median's distance from the body's colour (0, 0 when neither pip
// finder fits that layout). It reuses the reader's face scratch (the read
// is done).
func (r *Reader) pipLayout(fr bgrImage, fv faceValue) (float64, float64) {
	s := &r.face
	c := fv.c
	s.sample(fr, c)
	s.pipMap()
	e := (c.w + c.h) / 2
	kx, ky := c.w/e, c.h/e
	fit := func(centres [][2]float64) (int, layoutFit) {
		for i := range centres {
			centres[i][0] *= kx
			centres[i][1] *= ky
		}
		lv, _, f := matchLayout(centres)
		return lv, f
	}
	b, _ := s.blobs()
	lv, f := fit(b)
	if lv != fv.value {
		lv, f = fit(s.peaks())
	}
	if lv != fv.value || len(s.kept) < 2 {
		return 0, 0
	}
	const shrink = 0.94 // as in sample
	off := math.Hypot(f.a, f.b) * shrink * e
	// Each pip's colour: the mean over the 3x3 patch pixels at its
	// centre.
	cols := make([][3]float64, 0, len(s.kept))
	for _, p := range s.kept {
		cols = append(cols, s.patchColour(p.x, p.y))
	}
	var med [3]float64
	var contrast float64
	for ch := 0; ch < 3; ch++ {
		v := make([]float64, len(cols))
		for i := range cols {
			v[i] = cols[i][ch]
		}
		med[ch] = sortedMedian(v)
		contrast += math.Abs(med[ch] - s.med[ch])
	}
	if contrast <= 0 {
		return off, 0
	}
	spread := 0.0
	for _, col := range cols {
		dd := math.Abs(col[0]-med[0]) + math.Abs(col[1]-med[1]) + math.Abs(col[2]-med[2])
		spread = max(spread, dd/contrast)
	}
	return off, spread
}

// patchColour is the mean colour of the 3x3 patch pixels at (x, y), in
// the patch's centred units (-0.5..0.5), clamped inside its border.
func (s *faceScratch) patchColour(x, y float64) [3]float64 {
	px := min(max(int((x+0.5)*faceN), 1), faceN-2)
	py := min(max(int((y+0.5)*faceN), 1), faceN-2)
	var c [3]float64
	for dy := -1; dy <= 1; dy++ {
		for dx := -1; dx <= 1; dx++ {
			o := ((py+dy)*faceN + px + dx) * 3
			for ch := 0; ch < 3; ch++ {
				c[ch] += s.patch[o+ch] / 9
			}
		}
	}
	return c
}

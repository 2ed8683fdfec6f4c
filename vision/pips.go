package vision

import (
	"image"
	"math"
	"sort"
	"sync"
)

// faceN is the side in pixels of the rectified, upright top-face patch.
const faceN = 32

// faceMargin is the border (in patch pixels) left out of pip analysis: the
// die's rounded edges and shading live there.
const faceMargin = 2

// faceValue is what the pip reader concluded about one face.
type faceValue struct {
	value int       // 1..6 when both cues agree, else 0
	conf  float64   // 0..1
	blobs int       // cue 1: pip blobs counted
	tmpl  int       // cue 2: best template
	c     candidate // the candidate, its rectangle refined to the face
	// pipBox bounds the pips cue 1 counted, in frame pixels (empty when
	// it found none).
	pipBox image.Rectangle
	// rot is the turn (radians, within a quarter turn) from the patch's
	// axes to the fitted pip layout's.
	rot float64
	// lv is cue 1's value (0: no layout fits).
	lv int
	// The parts of conf (cues sets them when a layout fits): the layout
	// score, the template score, a large non-pip blob on the face, and
	// a rectangle square enough to read. The redness look re-weighs them.
	lscore, nccScore float64
	junk, sq         bool
	// empty is the emptySpots ratio of the layout cue 1 fitted (0: none).
	empty float64
	// silEdge is the edge of the die's outline (silhouette), 0 when it
	// was not a die's alone; silAngle is the outline's turn (radians).
	silEdge, silAngle float64
	// pips are the centres (frame pixels, region coordinates) and radii
	// of the pips the value was read from (at most six; radius 0 past
	// the last), pipRing their count; body is the body's median colour
	// (BGR) on the patch they were found on.
	pips    [6][3]float64
	pipRing int
	body    [3]float64
	// lat is the shape of the pip lattice the value's layout fitted
	// (zero when none fitted or the layout has one pip).
	lat lattice
}

// faceScratch holds the per-face buffers a Reader reuses.
type faceScratch struct {
	patch    [faceN * faceN * 3]float64
	d        [faceN * faceN]float64
	bin      [faceN * faceN]bool
	lab      [faceN * faceN]int16
	stack    []int
	found    []pipBlob
	kept     []pipBlob // the blobs components returned
	keptSave []pipBlob
	med      [3]float64 // the body's colour (BGR), from pipMap
	// noChroma leaves out readAt's looks on other maps (darkness, hue,
	// redness).
	noChroma bool
	// keepRect has readAt read the rectangle as given, without refine.
	keepRect bool
	// localThr has blobs threshold each pixel against its own
	// neighbourhood's strongest response (localBin).
	localThr bool
	// small is the first 1 or 2 a later look of readLooks read (with
	// retryBelow or more) but could not give; smallN counts the later
	// looks' values at that confidence (see smallface.go).
	small  faceValue
	smallN int
	// smallSil: the read's die outline was found, turned smallSilAngle.
	smallSil      bool
	smallSilAngle float64
	g1            [faceN * faceN]float64
	g2            [faceN * faceN]float64
	tmp           [faceN * faceN]float64
	dog           [faceN * faceN]float64
	cm            [faceN * faceN]float64
	silD          []int32 // silhouette's colour distances from the floor
	silL          []bool  // silhouette's outline (then inside) pixels
	silP          [][2]float64
	silH          [][2]float64 // silP's hull boundary
	silEdge       float64
	// clF and clA are pipClusterMap's colour features and clusters of
	// every other inner pixel each way.
	clF [(faceN - 2*faceMargin) * (faceN - 2*faceMargin) / 4][3]float64
	clA [(faceN - 2*faceMargin) * (faceN - 2*faceMargin) / 4]int8
	clD [faceN * faceN][clusterMaxK]float64 // each pixel's distance from the centres
	// sizeKnown: the Reader reads with a known die size (calibrated), where
	// the cluster look does not run; set by each read (readFrame).
	sizeKnown bool
}

// pipMinContrast is the least pip-map contrast (difference of blurs, sum
// of three channels) a pip must have.
const pipMinContrast = 15

// blurInner is a separable Gaussian blur of a patch with clamped
// borders, computed on the patch's inner part only (faceMargin from each
// edge; the rest of dst is left as it was). Each output pixel sums its
// taps in kernel order, as a direct loop would; seven outputs are summed
// side by side.
func blurInner(src, dst, tmp *[faceN * faceN]float64, sigma float64) {
	const lo, hi = faceMargin, faceN - faceMargin
	// The inner part's width is a multiple of the seven outputs.
	var _ [0]struct{} = [(hi - lo) % 7]struct{}{}
	k := gaussKernel(sigma)
	if useSIMD {
		blurInnerSIMD(src, dst, k)
		return
	}
	rad := len(k) / 2
	// Rows (all of them: the columns pass reads them), each padded with
	// copies of its end pixels.
	var pad [faceN + 2*maxBlurRad]float64
	for y := 0; y < faceN; y++ {
		row := src[y*faceN : (y+1)*faceN]
		for i := 0; i < rad; i++ {
			pad[i] = row[0]
			pad[rad+faceN+i] = row[faceN-1]
		}
		copy(pad[rad:rad+faceN], row)
		out := tmp[y*faceN : (y+1)*faceN]
		for x := lo; x < hi; x += 7 {
			var v0, v1, v2, v3, v4, v5, v6 float64
			for i, kv := range k {
				p := pad[x+i : x+i+7]
				v0 += kv * p[0]
				v1 += kv * p[1]
				v2 += kv * p[2]
				v3 += kv * p[3]
				v4 += kv * p[4]
				v5 += kv * p[5]
				v6 += kv * p[6]
			}
			o := out[x : x+7]
			o[0], o[1], o[2], o[3], o[4], o[5], o[6] = v0, v1, v2, v3, v4, v5, v6
		}
	}
	// Columns, clamping the row index.
	for y := lo; y < hi; y++ {
		for x := lo; x < hi; x += 7 {
			var v0, v1, v2, v3, v4, v5, v6 float64
			for i, kv := range k {
				yy := min(max(y+i-rad, 0), faceN-1)
				p := tmp[yy*faceN+x : yy*faceN+x+7]
				v0 += kv * p[0]
				v1 += kv * p[1]
				v2 += kv * p[2]
				v3 += kv * p[3]
				v4 += kv * p[4]
				v5 += kv * p[5]
				v6 += kv * p[6]
			}
			o := dst[y*faceN+x : y*faceN+x+7]
			o[0], o[1], o[2], o[3], o[4], o[5], o[6] = v0, v1, v2, v3, v4, v5, v6
		}
	}
}

// blurInnerSIMD is blurInner on conv28, 28 outputs a call. The rows pass
// writes into a buffer with rad rows above and below, copies of the first
// and last, so that the columns pass reads every tap at a fixed stride.
func blurInnerSIMD(src, dst *[faceN * faceN]float64, k []float64) {
	const lo, hi = faceMargin, faceN - faceMargin
	// conv28 computes exactly the inner part's width.
	var _ [0]struct{} = [hi - lo - 28]struct{}{}
	rad := len(k) / 2
	var pad [faceN + 2*maxBlurRad]float64
	var rows [(faceN + 2*maxBlurRad) * faceN]float64
	for y := 0; y < faceN; y++ {
		row := src[y*faceN : (y+1)*faceN]
		for i := 0; i < rad; i++ {
			pad[i] = row[0]
			pad[rad+faceN+i] = row[faceN-1]
		}
		copy(pad[rad:rad+faceN], row)
		conv28(&pad[lo], 8, &k[0], len(k), &rows[(y+rad)*faceN+lo])
	}
	first := rows[rad*faceN+lo : rad*faceN+hi]
	last := rows[(rad+faceN-1)*faceN+lo : (rad+faceN-1)*faceN+hi]
	for i := 0; i < rad; i++ {
		copy(rows[i*faceN+lo:i*faceN+hi], first)
		o := (rad + faceN + i) * faceN
		copy(rows[o+lo:o+hi], last)
	}
	for y := lo; y < hi; y++ {
		conv28(&rows[y*faceN+lo], faceN*8, &k[0], len(k), &dst[y*faceN+lo])
	}
}

// useSIMD has the pip kernels run on AVX2 (a variable so that a test can
// compare both ways).
var useSIMD = hasAVX2

// maxBlurRad is the largest kernel radius blurInner supports.
const maxBlurRad = 15

// The kernels of the two blurs blobs uses, computed once.
var (
	kernelPip  = makeGaussKernel(1.2)
	kernelBody = makeGaussKernel(4.5)
)

// gaussKernel is blurInner's normalised Gaussian kernel for sigma.
func gaussKernel(sigma float64) []float64 {
	switch sigma {
	case 1.2:
		return kernelPip
	case 4.5:
		return kernelBody
	}
	return makeGaussKernel(sigma)
}

// makeGaussKernel is the normalised Gaussian kernel for sigma, of radius
// ceil(2.5 sigma).
func makeGaussKernel(sigma float64) []float64 {
	rad := int(math.Ceil(2.5 * sigma))
	if rad > maxBlurRad {
		panic("vision: blur sigma too large")
	}
	k := make([]float64, 2*rad+1)
	var sum float64
	for i := -rad; i <= rad; i++ {
		k[i+rad] = math.Exp(-float64(i*i) / (2 * sigma * sigma))
		sum += k[i+rad]
	}
	for i := range k {
		k[i] /= sum
	}
	return k
}

// pipLayout is one canonical pip arrangement in units of the pip offset
// (the distance from the face centre to a corner pip along each axis).
type pipLayout struct {
	value int
	pts   [][2]float64
}

// layouts lists every face with both orientations where the face is not
// symmetric under a quarter turn (2, 3 and 6).
var layouts = []pipLayout{
	{1, [][2]float64{{0, 0}}},
	{2, [][2]float64{{-1, -1}, {1, 1}}},
	{2, [][2]float64{{-1, 1}, {1, -1}}},
	{3, [][2]float64{{-1, -1}, {0, 0}, {1, 1}}},
	{3, [][2]float64{{-1, 1}, {0, 0}, {1, -1}}},
	{4, [][2]float64{{-1, -1}, {1, -1}, {-1, 1}, {1, 1}}},
	{5, [][2]float64{{-1, -1}, {1, -1}, {0, 0}, {-1, 1}, {1, 1}}},
	{6, [][2]float64{{-1, -1}, {-1, 0}, {-1, 1}, {1, -1}, {1, 0}, {1, 1}}},
	{6, [][2]float64{{-1, -1}, {0, -1}, {1, -1}, {-1, 1}, {0, 1}, {1, 1}}},
}

// template is one rendered layout, zero-mean and unit-norm over the inner
// part of the patch.
type template struct {
	value int
	t     [faceN * faceN]float64
}

var (
	templatesOnce sync.Once
	templates     []template
	permsOnce     sync.Once
	perms         [7][][]int
)

func buildTemplates() {
	for _, l := range layouts {
		for _, a := range []float64{0.22, 0.27, 0.32, 0.37} {
			for _, rad := range []float64{0.08, 0.11, 0.14} {
				if (l.value > 1 && rad > 0.12) || (l.value == 1 && rad < 0.1) {
					continue
				}
				var tp template
				tp.value = l.value
				var sum float64
				cnt := 0
				for y := faceMargin; y < faceN-faceMargin; y++ {
					for x := faceMargin; x < faceN-faceMargin; x++ {
						u := (float64(x)+0.5)/faceN - 0.5
						v := (float64(y)+0.5)/faceN - 0.5
						val := 0.0
						for _, p := range l.pts {
							du, dv := u-p[0]*a, v-p[1]*a
							dd := math.Sqrt(du*du+dv*dv) - rad
							// Soft disc edge, one pixel wide.
							val = max(val, clamp(0.5-dd*faceN, 0, 1))
						}
						tp.t[y*faceN+x] = val
						sum += val
						cnt++
					}
				}
				mean := sum / float64(cnt)
				var ss float64
				for y := faceMargin; y < faceN-faceMargin; y++ {
					for x := faceMargin; x < faceN-faceMargin; x++ {
						tp.t[y*faceN+x] -= mean
						ss += tp.t[y*faceN+x] * tp.t[y*faceN+x]
					}
				}
				nrm := math.Sqrt(ss)
				for i := range tp.t {
					tp.t[i] /= nrm
				}
				templates = append(templates, tp)
			}
		}
	}
	if len(templates) != nTemplates {
		panic("vision: template count changed; correlateSIMD needs it")
	}
	// The templates' inner parts interleaved, for correlateSIMD.
	const n = faceN - 2*faceMargin
	templatesT = make([]float64, n*n*nTemplates)
	for m := range templates {
		for y := 0; y < n; y++ {
			for x := 0; x < n; x++ {
				templatesT[(y*n+x)*nTemplates+m] = templates[m].t[(y+faceMargin)*faceN+x+faceMargin]
			}
		}
	}
}

// nTemplates is len(templates): dot36 correlates them 36 at a time.
const nTemplates = 72

// templatesT holds the templates' inner parts position by position, the
// 72 templates' values at each one side by side.
var templatesT []float64

func buildPerms() {
	for k := 1; k <= 6; k++ {
		var rec func(p []int, used int)
		rec = func(p []int, used int) {
			if len(p) == k {
				perms[k] = append(perms[k], append([]int(nil), p...))
				return
			}
			for i := 0; i < k; i++ {
				if used&(1<<i) == 0 {
					rec(append(p, i), used|1<<i)
				}
			}
		}
		rec(nil, 0)
	}
}

// retryBelow is the confidence below which read looks at a face again.
const retryBelow = DefaultMinConfidence

// secondLookMaxConf caps the confidence of a value found only by a second
// look (the hue-only map, a re-centred or a larger rectangle): on the
// byler photos such values were wrong about 3 times in 100, against under
// 1 in 100 for a first look.
const secondLookMaxConf = 0.85

// read rectifies the candidate's top face to an upright square patch and
// reads it with two independent cues: pip blobs whose centres must fit a
// canonical layout, and the best correlation of the continuous pip map
// with rendered layouts. A value is given only when both agree. A face
// that does not read is looked at again: re-centred on the pips found,
// in the rectangle of the die's outline, then in a larger rectangle. A second look must read 3 or more: a face
// whose outer pips are missed reads 1 or 2 most often.
func (s *faceScratch) read(fr bgrImage, c candidate) faceValue {
	fv := s.readLooks(fr, c)
	silEdge, silAngle := s.silEdge, s.smallSilAngle
	// A 4 read on a rectangle clearly longer one way than the other, by
	// any look, may be a 6 whose face rectangle lost a row: the square
	// stretched towards one end finds the 6 (byler_d6: a marbled 6 read
	// as a 4 at 0.85 by a later look, its rectangle 0.80 as wide as long).
	if fv.value == 4 && fv.conf >= retryBelow && !c.firstLook &&
		min(fv.c.w, fv.c.h) < squareFourSides*max(fv.c.w, fv.c.h) {
		if f, ok := s.squareLook(fr, fv.c); ok {
			fv = f
		}
	}
	fv.silEdge, fv.silAngle = silEdge, silAngle
	return fv
}

// readLooks is read without the outline's edge.
func (s *faceScratch) readLooks(fr bgrImage, c candidate) faceValue {
	templatesOnce.Do(buildTemplates)
	permsOnce.Do(buildPerms)
	// The die's own outline, at full size, turns the face better than
	// the gradients do (pips, marbling and glare weigh in those); when it
	// is not a die's alone, the gradients turn it.
	cs, silOK := s.silhouette(fr, c)
	s.silEdge = 0
	s.small, s.smallN = faceValue{}, 0
	s.smallSil, s.smallSilAngle = silOK, cs.angle
	if silOK {
		s.silEdge = cs.edge
		c.angle = cs.angle
	} else {
		c = alignAngle(fr, c)
	}
	fv := s.read1(fr, c)
	if (fv.value > 0 && fv.conf >= retryBelow) || c.firstLook {
		return fv
	}
	// The looks on other maps (hue, darkness, redness) are for the
	// rectangles the pips did not place: the first, the outline's and
	// the larger one. A rectangle re-centred or turned on the pips found
	// is read on the colour distance alone.
	s.noChroma = true
	defer func() { s.noChroma = false }()
	allMaps := func(c candidate) faceValue {
		s.noChroma = false
		f := s.read1(fr, c)
		s.noChroma = true
		return f
	}
	second := func(f faceValue) (faceValue, bool) {
		if lookTrace != nil {
			lookTrace(f)
		}
		s.noteSmall(f)
		f.conf = min(f.conf, secondLookMaxConf)
		return f, f.value > 2 && f.conf >= retryBelow
	}
	cur := fv
	for it := 0; it < 2 && !cur.pipBox.Empty(); it++ {
		// Every face's pips are symmetric about its centre: pips found
		// off the patch's centre show the rectangle off the face (a
		// side face or shadow taken in, or part of the face cut off).
		// Read again centred on them.
		pb := cur.pipBox
		px, py := float64(pb.Min.X+pb.Max.X)/2, float64(pb.Min.Y+pb.Max.Y)/2
		cc := cur.c
		if math.Hypot(px-cc.cx, py-cc.cy) < 0.08*cc.edge {
			break
		}
		cc.cx, cc.cy = px, py
		cur = s.readAt(fr, cc)
		if f, ok := second(cur); ok {
			return f
		}
	}
	// The outline's own rectangle: the segmentation's, found at about 18
	// px a die, may hold shadow or side, or be a few pixels off.
	if silOK {
		if f, ok := second(allMaps(cs)); ok {
			return f
		}
		// Again without refine's trim: the outline bounds the face
		// already, and on a dark or marbled body refine may take rows
		// of the face for floor and cut it short on one side, its pips
		// then off the patch's centre.
		if !c.weak && s.trims(fr, cs) {
			s.keepRect = true
			f := allMaps(cs)
			s.keepRect = false
			if f, ok := second(f); ok {
				return f
			}
		}
	}
	// The rectangle may be too small for the face: read a larger one.
	cb := c
	cb.w *= 1.3
	cb.h *= 1.3
	cb.edge *= 1.3
	if f, ok := second(allMaps(cb)); ok {
		return f
	}
	// A 4 in a rectangle far from square may be a 6 cut short by a row.
	if fv.lv == 4 && fv.tmpl == 4 && !fv.sq {
		if f, ok := s.squareLook(fr, fv.c); ok {
			return f
		}
	}
	// The pips' own row may show the face turned where the outline or
	// the gradients did not.
	for _, ct := range s.pipTurn(fr, fv.c) {
		f1 := s.read1(fr, ct)
		if lookTrace != nil {
			lookTrace(f1)
		}
		s.noteSmall(f1)
		if f, ok := secondTurned(f1); ok {
			return f
		}
	}
	// Pips of uneven contrast across the face (light falling off across
	// it, glare on part of it, a marbled body): blobs thresholded against
	// their own neighbourhood, in the first rectangle, the outline's and
	// the first look's as refine left it (or re-centred on its pips).
	// Only a 5 or a 6 may be given so: a face with pips missed reads as
	// a smaller one (a 5 less two corners is a 3 on the stills, a 6
	// less a row a 4), and no face holds a 5's or a 6's pips and more.
	s.localThr = true
	defer func() { s.localThr = false }()
	for i, cl := range []candidate{c, cs, cur.c} {
		if i == 1 && !silOK {
			continue
		}
		if !s.localHope(fr, cl) {
			continue
		}
		f := allMaps(cl)
		if f, ok := second(f); ok && f.value >= 5 && laterAgrees(fv.value, f.value) {
			return f
		}
	}
	s.localThr = false
	// Last, on a map of the face's own colour clusters (clustermap.go):
	// dark translucent and marbled bodies whose glare and swirls the
	// other maps rank with their red pips. Only a 5 or a 6, as the
	// neighbourhood look; not on a weak candidate (most of what reaches
	// here, rarely a die, and kept only when read), and only where the
	// die's own outline was found: a rectangle that takes in a side face
	// holds that face's pips too (matteo_webcam: a 4 seen aslant read as
	// a clean 6 on this map). Its value must be clearly confident, as
	// the hue map's alone: a 5 or a 6 whose template fits only weakly
	// stands on the floor cues gives such faces (0.5), and so read a
	// cocked die's side face and a blurred red die's pips seen through
	// it on generated stills 628 and 963. Not with a known die size: read
	// calibrated, on never-read stills 18000..19999, it read the side
	// face of two cocked 4s as 6s at 0.85 with every cue agreeing (18416,
	// called flat, and 18664), and no other look gave a wrong value more
	// there; read uncalibrated it gave none (as frameSizeLook and spotLook,
	// which also run only without a known size).
	if clusterLook && !c.weak && silOK && !s.sizeKnown {
		for _, cl := range []candidate{c, cs, cur.c} {
			f := s.clusterRead(fr, cl)
			if clusterTrace != nil {
				clusterTrace(f)
			}
			if f, ok := second(f); ok && f.value >= clusterMinValue && f.conf >= chromaMinConf && laterAgrees(fv.value, f.value) {
				return f
			}
		}
	}
	return fv
}

// localHope reports whether blobs thresholded against their own
// neighbourhood (s.localThr set) number five or six on the colour
// distance, the hue or the redness map of the rectangle as it is: the
// neighbourhood look gives only a 5 or a 6, and this is far cheaper than
// the look. (On byler_d6 every face the look read passed on one of
// these three maps; the darkness and body-to-pip colour maps passed
// faces it did not read.)
func (s *faceScratch) localHope(fr bgrImage, c candidate) bool {
	return s.blobHope(fr, c, 5, 6)
}

// blobHope reports whether the blobs found in the candidate's rectangle
// as it is number lo to hi on the colour-distance, the hue or the
// redness map: a far cheaper probe than a read.
func (s *faceScratch) blobHope(fr bgrImage, c candidate, lo, hi int) bool {
	s.sample(fr, c)
	s.pipMap()
	in := func() bool {
		b, _ := s.blobs()
		return len(b) >= lo && len(b) <= hi
	}
	if in() {
		return true
	}
	s.pipChromaMap()
	if in() {
		return true
	}
	return s.pipRedMap() && in()
}

// trims reports whether refine changes the candidate's rectangle (when it
// does not, a look without it reads the same).
func (s *faceScratch) trims(fr bgrImage, c candidate) bool {
	s.sample(fr, c)
	s.pipMap()
	_, ok := s.refine(c)
	return ok
}

// read1 reads the face in the candidate's rectangle, again a little larger
// when no layout fits, and again turned to the pips' layout when they show
// the face turned.
func (s *faceScratch) read1(fr bgrImage, c candidate) faceValue {
	fv := s.readAt(fr, c)
	if fv.value == 0 && fv.lv == 0 {
		// No layout fits: the rectangle may have cut off the face's
		// outer pips. Try it a little larger.
		cb := fv.c
		cb.w *= 1.15
		cb.h *= 1.15
		cb.edge *= 1.15
		if fb := s.readAt(fr, cb); fb.value > 0 {
			fb.c = fv.c
			return fb
		}
	}
	if fv.lv == 0 || math.Abs(fv.rot) < 0.15 {
		return fv
	}
	// The pips' layout shows the face turned from the patch: read again
	// with the patch turned to the pips, both cues afresh.
	c2 := fv.c
	c2.angle += fv.rot
	fv2 := s.readAt(fr, c2)
	switch {
	case fv2.value == 0 && fv.value > 0:
		return fv
	case fv2.value > 0 && fv.value > 0 && fv2.value != fv.value:
		fv2.value, fv2.conf = 0, 0
	}
	return fv2
}

// sampleRefined samples the candidate's rectangle and makes its pip map,
// again on the rectangle refine fits to the pips found (unless keepRect),
// and returns the rectangle the map is of.
func (s *faceScratch) sampleRefined(fr bgrImage, c candidate) candidate {
	s.sample(fr, c)
	s.pipMap()
	if rc, ok := s.refine(c); ok && !s.keepRect {
		c = rc
		s.sample(fr, c)
		s.pipMap()
	}
	return c
}

// readAt reads the face in the candidate's rectangle as it is turned.
func (s *faceScratch) readAt(fr bgrImage, c candidate) faceValue {
	c = s.sampleRefined(fr, c)
	fv := s.cues(c)
	if fv.conf < 0.9 && s.pipColourMap() {
		// Again on a map that keeps only the change from the body's
		// colour towards the pips' (marbling and glare of other hues
		// fade). A face read on both maps must read the same.
		fv2 := s.cues(c)
		switch {
		case fv.value > 0 && fv2.lv > 0 && fv2.lv != fv.value:
			fv.value, fv.conf = 0, 0
		case fv2.value > 0 && fv2.conf > fv.conf && (fv.value == 0 || fv.value == fv2.value):
			return fv2
		}
	}
	if fv.value > 0 && fv.conf >= retryBelow {
		return fv
	}
	if !s.noChroma && s.pipDarkMap() {
		// Again on the map of darkness alone, on a light body: the
		// colour distance counts a brass or ivory body's highlights,
		// brighter than it, as much as its dark pips. A value from this
		// look must be clearly confident and not contradict the first.
		if fvd := s.cues(c); fvd.value > 0 && fvd.conf >= chromaMinConf && laterAgrees(fv.value, fvd.value) {
			fvd.conf = min(fvd.conf, secondLookMaxConf)
			return fvd
		}
	}
	if !s.noChroma {
		// Again on the pip map of hue alone: translucent dark dice
		// carry bright, colourless glare arcs that outshine dark
		// coloured pips in the colour distance. A value from this look
		// alone must be clearly confident, unless it breaks a tie: it
		// reads what one of the first look's two cues read.
		s.pipChromaMap()
		if fv3 := s.cues(c); fv3.value > 0 && (fv3.conf >= chromaMinConf ||
			(fv3.conf >= retryBelow && fv.lv > 0 && fv.tmpl > 0 && (fv3.value == fv.lv || fv3.value == fv.tmpl))) {
			fv3.conf = min(fv3.conf, secondLookMaxConf)
			return fv3
		}
	}
	// Again on a map of redness alone: red pips on a dark, blue or green
	// body keep little contrast in colour distance or in hue against
	// marbling, but no such body is red. A value read by the first look
	// (below the usual confidence) must not be contradicted (laterAgrees:
	// a face holding the first look's pips does not contradict it).
	if !s.noChroma && s.pipRedMap() {
		fv4 := s.cues(c)
		if fv4.value >= 3 && fv4.junk && fv4.sq && fv4.blobs == fv4.value {
			// Every pip of the face found and fitting its layout, with
			// the template agreeing: on a redness map the large blob
			// beside them is a red neighbour or fused pips, not a sign
			// of pips missed.
			fv4.conf = min(fv4.lscore, fv4.nccScore)
		}
		if fv4.value > 0 && fv4.conf >= retryBelow && laterAgrees(fv.value, fv4.value) {
			fv4.conf = min(fv4.conf, secondLookMaxConf)
			return fv4
		}
	}
	return fv
}

// lookTrace, when set (tests), is called with every second look's value
// in readLooks before its cap and its rule on values.
var lookTrace func(f faceValue)

// laterAgrees reports whether a later look's value v may stand beside
// the first look's value first (read below the usual confidence): none,
// the same, or a face whose pips hold the first's. Pips are missed far
// more often than made up (a 5 on a dark body whose outer pips fade reads
// as its centre, a 1), so a first look that saw part of the later look's
// face does not contradict it.
func laterAgrees(first, v int) bool {
	return first == 0 || first == v || pipSubset(first, v)
}

// pipSubset reports whether every pip of face a's canonical layout is a
// pip of face b's (in one of b's orientations), a != b.
func pipSubset(a, b int) bool {
	switch a {
	case 1:
		return b == 3 || b == 5
	case 2:
		return b >= 3
	case 3:
		return b == 5
	case 4:
		return b == 5 || b == 6
	}
	return false
}

// pipRedMap sets d to how much redder than the body (red less the mean of
// green and blue, over its median) each pixel is. It reports false,
// leaving d, when the body itself is reddish (a red, pink or orange die:
// its pips are not redder).
func (s *faceScratch) pipRedMap() bool {
	var hist [512]int
	n := 0
	for y := faceMargin; y < faceN-faceMargin; y++ {
		for x := faceMargin; x < faceN-faceMargin; x++ {
			i := y*faceN + x
			v := int(s.patch[3*i+2]-(s.patch[3*i]+s.patch[3*i+1])/2) + 256
			hist[min(max(v, 0), 511)]++
			n++
		}
	}
	mr := float64(percentile(hist[:], n, 0.5) - 256)
	if mr > redBodyMax {
		return false
	}
	for i := 0; i < faceN*faceN; i++ {
		v := s.patch[3*i+2] - (s.patch[3*i]+s.patch[3*i+1])/2
		s.d[i] = chromaGain * max(v-mr, 0)
	}
	return true
}

// redBodyMax is the most a body's redness (red less the mean of green and
// blue) may be for pipRedMap to look for pips redder than it.
const redBodyMax = 30

// pipChromaMap sets d to each pixel's distance from the body's colour in
// the two opponent axes (red-green, yellow-blue), leaving brightness out.
func (s *faceScratch) pipChromaMap() {
	var hist [2][512]int
	n := 0
	opp := func(i int) (int, int) {
		b, g, r := s.patch[3*i], s.patch[3*i+1], s.patch[3*i+2]
		return int(r-g) + 256, int((r+g)/2-b) + 256
	}
	for y := faceMargin; y < faceN-faceMargin; y++ {
		for x := faceMargin; x < faceN-faceMargin; x++ {
			a, b := opp(y*faceN + x)
			hist[0][min(max(a, 0), 511)]++
			hist[1][min(max(b, 0), 511)]++
			n++
		}
	}
	ma := float64(percentile(hist[0][:], n, 0.5) - 256)
	mb := float64(percentile(hist[1][:], n, 0.5) - 256)
	for i := 0; i < faceN*faceN; i++ {
		b, g, r := s.patch[3*i], s.patch[3*i+1], s.patch[3*i+2]
		s.d[i] = chromaGain * (math.Abs(r-g-ma) + math.Abs((r+g)/2-b-mb))
	}
}

// chromaGain scales the hue-only map to about the colour distance's
// contrast (it leaves one channel's worth of difference out).
const chromaGain = 1.5

// chromaMinConf is the confidence a value read on the hue-only map alone
// must reach.
const chromaMinConf = 0.8

// pipColourMap replaces the pip map by each pixel's change from the
// body's colour along the direction to the pips' colour (the median
// colour at the strongest pip-map maxima), scaled as the colour distance
// is. It reports false, leaving the map, when the pips' colour is not
// clearly apart from the body's.
func (s *faceScratch) pipColourMap() bool {
	s.peaks()
	if len(s.kept) == 0 {
		return false
	}
	var pc [3][]float64
	for _, b := range s.kept {
		px := min(max(int((b.x+0.5)*faceN), 0), faceN-1)
		py := min(max(int((b.y+0.5)*faceN), 0), faceN-1)
		for ch := 0; ch < 3; ch++ {
			pc[ch] = append(pc[ch], s.patch[(py*faceN+px)*3+ch])
		}
	}
	var dir [3]float64
	var l1, l2 float64
	for ch := 0; ch < 3; ch++ {
		sort.Float64s(pc[ch])
		dir[ch] = pc[ch][len(pc[ch])/2] - s.med[ch]
		l1 += math.Abs(dir[ch])
		l2 += dir[ch] * dir[ch]
	}
	if l1 < 60 {
		return false
	}
	l2 = math.Sqrt(l2)
	k := l1 / (l2 * l2) // projection, scaled to the colour distance
	for i := 0; i < faceN*faceN; i++ {
		v := (s.patch[3*i]-s.med[0])*dir[0] + (s.patch[3*i+1]-s.med[1])*dir[1] + (s.patch[3*i+2]-s.med[2])*dir[2]
		s.d[i] = max(v*k, 0)
	}
	return true
}

// cues reads the pip map with both cues.
func (s *faceScratch) cues(c candidate) faceValue {
	// Cue 1: pip blobs and their layout.
	centres, junk := s.blobs()
	kept := append(s.keptSave[:0], s.kept...)
	s.keptSave = kept

	// The patch stretches the rectangle to a square; fit the layout in
	// the face's own proportions, so that a face cut short on one side
	// (a 6 missing a row) does not pass for a square layout (a 4).
	e := (c.w + c.h) / 2
	kx, ky := c.w/e, c.h/e
	var empty, empty2 float64
	var lat, lat2 lattice
	layoutCue := func(centres [][2]float64, es, raw *float64, lt *lattice) (int, float64, float64) {
		for i := range centres {
			centres[i][0] *= kx
			centres[i][1] *= ky
		}
		lv, lscore, fit := matchLayout(centres)
		fit.kx, fit.ky = kx, ky
		*raw = lscore
		if lv > 0 {
			*lt = latticeShape(centres, fit, e*sampleShrink)
			u, v := fit.tx*e*sampleShrink, fit.ty*e*sampleShrink
			co, si := math.Cos(c.angle), math.Sin(c.angle)
			lt.cx, lt.cy = c.cx+u*co-v*si, c.cy+u*si+v*co
			// A pip-like response where the layout has no pip: a pip
			// was missed (a 6 read as a 4, a 3 as a 1).
			*es = s.emptySpots(fit)
			lscore = min(lscore, clamp((0.55-*es)/0.25, 0, 1))
		}
		return lv, lscore, math.Remainder(math.Atan2(fit.b, fit.a), math.Pi/2)
	}
	nBlobs := len(centres)
	var raw, raw2 float64
	lv, lscore, rot := layoutCue(centres, &empty, &raw, &lat)
	pipBox := s.pipBox(c, kept)
	// The same cue from a second pip finder: the pip map's local maxima,
	// which do not fragment or merge uneven pips. It is asked when the
	// blobs' layout differs from the template's (below), or at once when
	// no layout fits them: if the maxima fit none either, no value can
	// be given and the template is not needed.
	var pc [][2]float64
	lv2, ls2, r2, peaked := 0, 0.0, 0.0, false
	peakCue := func() {
		if !peaked {
			peaked = true
			pc = s.peaks()
			lv2, ls2, r2 = layoutCue(pc, &empty2, &raw2, &lat2)
		}
	}
	if lv == 0 {
		if peakCue(); lv2 == 0 {
			return faceValue{pipBox: pipBox, blobs: nBlobs, c: c}
		}
	}

	// Cue 2: template correlation on the continuous map.
	bestPer := s.templateCue()
	tv, second := 0, -1.0
	for v := 1; v <= 6; v++ {
		if tv == 0 || bestPer[v] > bestPer[tv] {
			tv = v
		}
	}
	for v := 1; v <= 6; v++ {
		if v != tv && bestPer[v] > second {
			second = bestPer[v]
		}
	}

	if lv != tv {
		if peakCue(); lv2 == tv && lv2 > 0 {
			lv, lscore, nBlobs, rot, empty, lat, raw = lv2, ls2, len(pc), r2, empty2, lat2, raw2
			pipBox = s.pipBox(c, s.kept)
			kept = s.kept
		}
	}

	out := faceValue{rot: rot, pipBox: pipBox, blobs: nBlobs, tmpl: tv, c: c, lv: lv, empty: empty, lat: lat}
	out.pipRing = s.pipPlaces(c, kept, &out.pips)
	out.body = s.med
	nccScore := min(clamp((bestPer[tv]-0.25)/0.25, 0, 1), clamp((bestPer[tv]-second)/0.05, 0, 1))
	if lv == 5 && tv == 5 && nBlobs == 5 && nccScore >= fiveNCCMin {
		// Five pips fitting a 5, the template agreeing: no face holds a
		// 5's pips and more, so a pip-like response at a 5's empty
		// places (midway between two corner pips, where large or
		// blurred pips meet) is not a missed pip. The template must
		// fit well on its own: a 4 with a mark at its centre (glare, a
		// neighbour's pip in a rectangle too large) fits a 5's blobs.
		lscore = max(lscore, min(raw, clamp((fiveEmptyMax-empty)/0.25, 0, 1)))
	}
	if lscore >= 0.95 && bestPer[tv] >= 0.2 && bestPer[tv]-second >= 0.03 {
		// Every pip at its canonical place and nothing pip-like at the
		// empty ones: the template need only pick the same face by a
		// clear margin.
		nccScore = max(nccScore, 0.5)
	}
	if lv == tv && (lv == 5 || lv == 6) && nBlobs == lv && lscore >= 0.5 {
		// Five or six pips found, fitting the layout, and the template
		// picks the same face: no face with more pips exists, so this
		// is not a face with pips missed, the risk that the template's
		// own level guards against. Its level may then be low (pips
		// larger or farther out than the templates').
		nccScore = max(nccScore, 0.5)
	}
	score := min(nccScore, lscore)
	out.lscore, out.junk, out.nccScore = lscore, junk, nccScore
	out.sq = min(c.w, c.h) >= 0.8*max(c.w, c.h)
	// Five or six pips found, fitting their layout, with the template
	// agreeing: no face with more pips holds a 5 or a 6 among them (a 6
	// less a row is a 4, a 5 less one a triangle of 3), so the signs of
	// pips missed below do not apply.
	allPips := lv == tv && lv >= 5 && nBlobs == lv && lscore >= 0.5
	if junk && !allPips {
		score *= 0.5
	}
	if min(c.w, c.h) < 0.8*max(c.w, c.h) && !allPips {
		// Far from square: part of the face is hidden or cut off, and a
		// face missing a row of pips can pass for another (unless every
		// pip is found: the face is then only seen aslant).
		score = min(score, 0.4)
	}
	if lv == tv && lv > 0 {
		out.value = lv
		out.conf = score
	} else {
		out.conf = 0.4 * score
	}
	return out
}

// templateCue correlates the pip map's difference of blurs (s.dog, as
// blobs left it) with the rendered layouts: the best normalised
// correlation of each value's templates (-1: none). A grey-level opening
// (3x3 min, then max) removes glare arcs and edges thinner than a pip
// before the correlation.
func (s *faceScratch) templateCue() (bestPer [7]float64) {
	open3(&s.dog, &s.cm, &s.tmp)
	var mean, cnt float64
	for y := faceMargin; y < faceN-faceMargin; y++ {
		for x := faceMargin; x < faceN-faceMargin; x++ {
			mean += s.cm[y*faceN+x]
			cnt++
		}
	}
	mean /= cnt
	var ss float64
	for y := faceMargin; y < faceN-faceMargin; y++ {
		for x := faceMargin; x < faceN-faceMargin; x++ {
			v := s.cm[y*faceN+x] - mean
			ss += v * v
		}
	}
	for i := range bestPer {
		bestPer[i] = -1
	}
	if ss > 0 {
		nrm := math.Sqrt(ss)
		sx, sy := s.massShift(mean)
		// The map shifted by (sx, sy) and less its mean, zero where the
		// shift leaves the inner part.
		sh := &s.tmp
		for i := range sh {
			sh[i] = 0
		}
		for y := faceMargin; y < faceN-faceMargin; y++ {
			yy := y + sy
			if yy < faceMargin || yy >= faceN-faceMargin {
				continue
			}
			for x := faceMargin; x < faceN-faceMargin; x++ {
				if xx := x + sx; xx >= faceMargin && xx < faceN-faceMargin {
					sh[y*faceN+x] = s.cm[yy*faceN+xx] - mean
				}
			}
		}
		correlate(sh, nrm, &bestPer)
	}
	return bestPer
}

// open3 is a grey-level opening of src with a 3x3 square (clamped
// borders), negative values of the erosion set to 0: dst is the 3x3 max
// of max(3x3 min, 0). tmp is scratch. Both filters are separable, and a
// min or max is exact in any order.
func open3(src, dst, tmp *[faceN * faceN]float64) {
	var row [faceN]float64
	for y := 0; y < faceN; y++ {
		// 3x1 min down the column, then 1x3 min along the row.
		a := src[max(y-1, 0)*faceN:][:faceN]
		b := src[y*faceN:][:faceN]
		c := src[min(y+1, faceN-1)*faceN:][:faceN]
		for x := range row {
			row[x] = min(a[x], b[x], c[x])
		}
		o := tmp[y*faceN:][:faceN]
		o[0] = max(min(row[0], row[1]), 0)
		for x := 1; x < faceN-1; x++ {
			o[x] = max(min(row[x-1], row[x], row[x+1]), 0)
		}
		o[faceN-1] = max(min(row[faceN-2], row[faceN-1]), 0)
	}
	for y := 0; y < faceN; y++ {
		a := tmp[max(y-1, 0)*faceN:][:faceN]
		b := tmp[y*faceN:][:faceN]
		c := tmp[min(y+1, faceN-1)*faceN:][:faceN]
		for x := range row {
			row[x] = max(a[x], b[x], c[x])
		}
		o := dst[y*faceN:][:faceN]
		o[0] = max(row[0], row[1])
		for x := 1; x < faceN-1; x++ {
			o[x] = max(row[x-1], row[x], row[x+1])
		}
		o[faceN-1] = max(row[faceN-2], row[faceN-1])
	}
}

// correlate raises bestPer[v] to the best normalised correlation (dot
// product over the patch's inner part, over nrm) of sh with the templates
// of value v. Four templates are summed side by side, each in the order
// of a direct loop.
func correlate(sh *[faceN * faceN]float64, nrm float64, bestPer *[7]float64) {
	const n = faceN - 2*faceMargin
	if useSIMD {
		var v [n * n]float64
		for y := 0; y < n; y++ {
			copy(v[y*n:(y+1)*n], sh[(y+faceMargin)*faceN+faceMargin:])
		}
		var dots [nTemplates]float64
		dot36(&v[0], &templatesT[0], n*n, &dots[0])
		dot36(&v[0], &templatesT[36], n*n, &dots[36])
		for m, d := range dots {
			if ncc := d / nrm; ncc > bestPer[templates[m].value] {
				bestPer[templates[m].value] = ncc
			}
		}
		return
	}
	i := 0
	for ; i+4 <= len(templates); i += 4 {
		t0, t1, t2, t3 := &templates[i].t, &templates[i+1].t, &templates[i+2].t, &templates[i+3].t
		var d0, d1, d2, d3 float64
		for y := faceMargin; y < faceN-faceMargin; y++ {
			o := y*faceN + faceMargin
			row := sh[o : o+n]
			r0, r1, r2, r3 := t0[o:o+n], t1[o:o+n], t2[o:o+n], t3[o:o+n]
			for j, v := range row {
				d0 += v * r0[j]
				d1 += v * r1[j]
				d2 += v * r2[j]
				d3 += v * r3[j]
			}
		}
		for k, d := range [4]float64{d0, d1, d2, d3} {
			if ncc := d / nrm; ncc > bestPer[templates[i+k].value] {
				bestPer[templates[i+k].value] = ncc
			}
		}
	}
	for ; i < len(templates); i++ {
		tp := &templates[i]
		var dot float64
		for y := faceMargin; y < faceN-faceMargin; y++ {
			o := y*faceN + faceMargin
			row, trow := sh[o:o+n], tp.t[o:o+n]
			for j, v := range row {
				dot += v * trow[j]
			}
		}
		if ncc := dot / nrm; ncc > bestPer[tp.value] {
			bestPer[tp.value] = ncc
		}
	}
}

// sampleShrink is the share of the face rectangle the patch covers.
const sampleShrink = 0.94

// sample fills the patch with the candidate's rectangle, shrunk a little
// so the die's edges stay out, resampled bilinearly.
func (s *faceScratch) sample(fr bgrImage, c candidate) {
	const shrink = sampleShrink
	co, si := math.Cos(c.angle), math.Sin(c.angle)
	var us [faceN]float64
	for i := range us {
		us[i] = ((float64(i)+0.5)/faceN - 0.5) * c.w * shrink
	}
	if useSIMD && sampleInside(fr, c, co, si, shrink) {
		// The products the loop below forms per pixel, formed once.
		var uc, usi [faceN]float64
		for i, u := range us {
			uc[i], usi[i] = u*co, u*si
		}
		for j := 0; j < faceN; j++ {
			v := ((float64(j)+0.5)/faceN - 0.5) * c.h * shrink
			sampleRow(&uc[0], &usi[0], c.cx, c.cy, v*si, v*co, &fr.pix[0], 3*fr.w, &s.patch[j*faceN*3])
		}
		return
	}
	for j := 0; j < faceN; j++ {
		v := ((float64(j)+0.5)/faceN - 0.5) * c.h * shrink
		for i, u := range us {
			x := c.cx + u*co - v*si - 0.5
			y := c.cy + u*si + v*co - 0.5
			x0, y0 := floorInt(x), floorInt(y)
			fx, fy := x-float64(x0), y-float64(y0)
			o := (j*faceN + i) * 3
			// Offsets of the four neighbours, clamped to the frame.
			xa, xb := min(max(x0, 0), fr.w-1), min(max(x0+1, 0), fr.w-1)
			ya, yb := min(max(y0, 0), fr.h-1), min(max(y0+1, 0), fr.h-1)
			o00, o10 := (ya*fr.w+xa)*3, (ya*fr.w+xb)*3
			o01, o11 := (yb*fr.w+xa)*3, (yb*fr.w+xb)*3
			p00, p10 := fr.pix[o00:o00+3:o00+3], fr.pix[o10:o10+3:o10+3]
			p01, p11 := fr.pix[o01:o01+3:o01+3], fr.pix[o11:o11+3:o11+3]
			w00, w10 := (1-fx)*(1-fy), fx*(1-fy)
			w01, w11 := (1-fx)*fy, fx*fy
			out := s.patch[o : o+3 : o+3]
			out[0] = byteFloat[p00[0]]*w00 + byteFloat[p10[0]]*w10 + byteFloat[p01[0]]*w01 + byteFloat[p11[0]]*w11
			out[1] = byteFloat[p00[1]]*w00 + byteFloat[p10[1]]*w10 + byteFloat[p01[1]]*w01 + byteFloat[p11[1]]*w11
			out[2] = byteFloat[p00[2]]*w00 + byteFloat[p10[2]]*w10 + byteFloat[p01[2]]*w01 + byteFloat[p11[2]]*w11
		}
	}
}

// sampleInside reports whether every point sample reads, and its right
// and lower neighbours, lie at least a pixel inside the frame's left and
// top and two inside its right and bottom, so that sampleRow needs no
// clamping and its four-byte reads stay in the frame.
func sampleInside(fr bgrImage, c candidate, co, si, shrink float64) bool {
	if len(fr.pix) < 3*fr.w*fr.h || 3*fr.w*fr.h >= 1<<31 {
		return false
	}
	// A rectangle of no size or a negative one is the Go loop's, which
	// clamps every read (written so that NaN fails too).
	if !(c.w > 0 && c.h > 0) {
		return false
	}
	// Half the sampled extent, and a margin for the half-pixel offset
	// and rounding.
	hw, hh := c.w*shrink/2, c.h*shrink/2
	ex := hw*math.Abs(co) + hh*math.Abs(si) + 2
	ey := hw*math.Abs(si) + hh*math.Abs(co) + 2
	// Written so that NaN fails.
	return c.cx-ex >= 1 && c.cx+ex <= float64(fr.w-3) && c.cy-ey >= 1 && c.cy+ey <= float64(fr.h-3)
}

// byteFloat is float64(b) for each byte b, looked up rather than
// converted.
var byteFloat = func() (t [256]float64) {
	for i := range t {
		t[i] = float64(i)
	}
	return t
}()

// floorInt is int(math.Floor(x)) for x well inside the int range,
// without the call.
func floorInt(x float64) int {
	i := int(x) // towards zero
	if float64(i) > x {
		i--
	}
	return i
}

// pipMap sets d to each pixel's colour distance from the face's body
// colour (the per-channel median over the patch's inner part).
func (s *faceScratch) pipMap() {
	med := &s.med
	var hist [3][256]int
	n := 0
	for y := faceMargin; y < faceN-faceMargin; y++ {
		for x := faceMargin; x < faceN-faceMargin; x++ {
			p := s.patch[(y*faceN+x)*3:][:3]
			hist[0][int(p[0])]++
			hist[1][int(p[1])]++
			hist[2][int(p[2])]++
			n++
		}
	}
	for ch := 0; ch < 3; ch++ {
		med[ch] = float64(percentile(hist[ch][:], n, 0.5))
	}
	for i := 0; i < faceN*faceN; i++ {
		s.d[i] = math.Abs(s.patch[3*i]-med[0]) + math.Abs(s.patch[3*i+1]-med[1]) + math.Abs(s.patch[3*i+2]-med[2])
	}
}

// blobs thresholds the pip map (Otsu, with a floor) and returns the
// centres, in units of the patch side from its centre, of the blobs that
// have a pip's size and shape. junk reports a large non-pip blob.
func (s *faceScratch) blobs() (centres [][2]float64, junk bool) {
	// Pips are compact blobs of about a known size: a difference of
	// blurs keeps them and flattens thin glare arcs, edges and the slow
	// variation of marbled bodies.
	blurInner(&s.d, &s.g1, &s.tmp, 1.2)
	blurInner(&s.d, &s.g2, &s.tmp, 4.5)
	peak := 0.0
	for y := faceMargin; y < faceN-faceMargin; y++ {
		for x := faceMargin; x < faceN-faceMargin; x++ {
			i := y*faceN + x
			d := s.g1[i] - s.g2[i]
			s.dog[i] = d
			// max(peak, d) for finite values (a blur of colour
			// distances), without the builtin's NaN and signed-zero
			// cases: peak starts at +0, and -0 > +0 is false.
			if d > peak {
				peak = d
			}
		}
	}
	thr := max(0.4*peak, pipMinContrast)
	// Two clears, each a memory clear (one loop over both is not).
	clear(s.bin[:])
	clear(s.lab[:])
	if s.localThr {
		s.localBin(peak)
		return s.components()
	}
	for y := faceMargin; y < faceN-faceMargin; y++ {
		for x := faceMargin; x < faceN-faceMargin; x++ {
			s.bin[y*faceN+x] = s.dog[y*faceN+x] > thr
		}
	}
	return s.components()
}

// localReach is the half-width (patch pixels) of the neighbourhood whose
// strongest response a pip is thresholded against in localBin: less
// than the distance between neighbouring pips (about 8.5 at the usual
// reach), more than a pip's radius.
const localReach = 4

// localBin sets s.bin to the inner pixels above half the strongest
// difference of blurs in their own neighbourhood (a square localReach
// each way), and above pipLocalFloor of the face's strongest (peak) and
// pipMinContrast: a pip faded by the light's fall across the face or a
// glare keeps its own shape, where one threshold for the face cuts it
// away (below 0.4 of the strongest pip) or merges the strong ones.
func (s *faceScratch) localBin(peak float64) {
	floor := max(pipLocalFloor*peak, pipMinContrast)
	// Separable max filter over the inner part: rows into tmp, then
	// columns.
	// (Plain comparisons: the values are finite, and a signed zero does
	// not change a threshold's outcome.)
	lo, hi := faceMargin, faceN-faceMargin
	for y := lo; y < hi; y++ {
		row := s.dog[y*faceN : (y+1)*faceN]
		for x := lo; x < hi; x++ {
			x0, x1 := max(lo, x-localReach), min(hi, x+localReach+1)
			m := row[x0]
			for _, v := range row[x0+1 : x1] {
				if v > m {
					m = v
				}
			}
			s.tmp[y*faceN+x] = m
		}
	}
	for y := lo; y < hi; y++ {
		y0, y1 := max(lo, y-localReach), min(hi, y+localReach+1)
		for x := lo; x < hi; x++ {
			v := s.dog[y*faceN+x]
			if v <= floor {
				s.bin[y*faceN+x] = false
				continue
			}
			m := s.tmp[y0*faceN+x]
			for yy := y0 + 1; yy < y1; yy++ {
				if t := s.tmp[yy*faceN+x]; t > m {
					m = t
				}
			}
			s.bin[y*faceN+x] = v > pipLocalRel*m
		}
	}
}

// pipLocalFloor is the least share of the face's strongest pip response
// localBin keeps.
const pipLocalFloor = 0.2

// pipLocalRel is the share of its neighbourhood's strongest response a
// pixel must pass in localBin.
const pipLocalRel = 0.5

// components labels s.bin and returns the centres of its pip-like blobs.
func (s *faceScratch) components() (centres [][2]float64, junk bool) {
	var next int16
	s.found = s.found[:0]
	s.kept = s.kept[:0]
	for start := range s.bin {
		if !s.bin[start] || s.lab[start] != 0 {
			continue
		}
		next++
		s.lab[start] = next
		s.stack = append(s.stack[:0], start)
		area := 0
		var sx, sy float64
		x0, y0, x1, y1 := faceN, faceN, -1, -1
		for len(s.stack) > 0 {
			p := s.stack[len(s.stack)-1]
			s.stack = s.stack[:len(s.stack)-1]
			px, py := p%faceN, p/faceN
			area++
			sx += float64(px) + 0.5
			sy += float64(py) + 0.5
			x0, y0 = min(x0, px), min(y0, py)
			x1, y1 = max(x1, px), max(y1, py)
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					qx, qy := px+dx, py+dy
					if qx < 0 || qy < 0 || qx >= faceN || qy >= faceN {
						continue
					}
					q := qy*faceN + qx
					if s.bin[q] && s.lab[q] == 0 {
						s.lab[q] = next
						s.stack = append(s.stack, q)
					}
				}
			}
		}
		bw, bh := x1-x0+1, y1-y0+1
		const nn = faceN * faceN
		switch {
		case area < nn*5/1000:
			// speck
		case edgeBlob(x0, y0, x1, y1, sx/float64(area), sy/float64(area)):
			// along the edge: shading, a side face, a shadow
		case area > nn/6 || bw > faceN/2 || bh > faceN/2 ||
			float64(area)/float64(bw*bh) < 0.4 || bw > 2*bh+1 || bh > 2*bw+1:
			junk = true
		default:
			s.found = append(s.found, pipBlob{sx/float64(area)/faceN - 0.5, sy/float64(area)/faceN - 0.5, area})
		}
	}
	// Pips on one face have about the same size: drop specks (glare,
	// grain) much smaller than the largest pip.
	big := 0
	for _, b := range s.found {
		big = max(big, b.area)
	}
	for _, b := range s.found {
		if 3*b.area >= big {
			centres = append(centres, [2]float64{b.x, b.y})
			s.kept = append(s.kept, b)
		}
	}
	return centres, junk
}

// pipBlob is one pip-sized blob: its centre (patch units from the centre)
// and area (pixels).
type pipBlob struct {
	x, y float64
	area int
}

// matchLayout returns the face whose canonical layout the pip centres fit
// best, and a 0..1 score of the fit (0 when none fits).
func matchLayout(c [][2]float64) (int, float64, layoutFit) {
	k := len(c)
	var fit layoutFit
	if k < 1 || k > 6 {
		return 0, 0, fit
	}
	if k == 1 {
		d := math.Hypot(c[0][0], c[0][1])
		return 1, clamp(1-(d-0.1)/0.12, 0, 1), layoutFit{layout: 0, tx: c[0][0], ty: c[0][1], a: 0.25}
	}
	var tx, ty float64
	for _, p := range c {
		tx += p[0] / float64(k)
		ty += p[1] / float64(k)
	}
	if math.Hypot(tx, ty) > 0.25 {
		return 0, 0, fit
	}
	bestV, bestS := 0, 0.0
	for li, l := range layouts {
		if len(l.pts) != k {
			continue
		}
		for _, p := range perms[k] {
			// Least-squares similarity (shift, rotation, scale) for this
			// assignment; the layouts are centred, so the shift is the
			// pips' mean.
			var sa, sb, den float64
			for i, j := range p {
				cx, cy := c[i][0]-tx, c[i][1]-ty
				px, py := l.pts[j][0], l.pts[j][1]
				sa += cx*px + cy*py
				sb += cy*px - cx*py
				den += px*px + py*py
			}
			a, b := sa/den, sb/den
			// Most assignments give a scale far out of range: test its
			// square first (the margin is far beyond rounding, so only
			// those the test below drops are dropped).
			if h2 := a*a + b*b; h2 < 0.14*0.14*(1-1e-9) || h2 > 0.42*0.42*(1+1e-9) {
				continue
			}
			scale := math.Hypot(a, b)
			// The patch's angle is only a guess: four or more pips may
			// turn freely, as they fix the turn themselves; two or three
			// in a row only a little, or any pair of marks at the right
			// distance would fit.
			if scale < 0.14 || scale > 0.42 || (k < 4 && math.Abs(math.Atan2(b, a)) > 0.45) {
				continue
			}
			var res float64
			for i, j := range p {
				px, py := l.pts[j][0], l.pts[j][1]
				dx, dy := c[i][0]-tx-(a*px-b*py), c[i][1]-ty-(b*px+a*py)
				res += dx*dx + dy*dy
			}
			rms := math.Sqrt(res/float64(k)) / scale
			sc := clamp(1-(rms-0.15)/0.25, 0, 1)
			if sc > bestS {
				bestV, bestS = l.value, sc
				fit = layoutFit{layout: li, tx: tx, ty: ty, a: a, b: b}
			}
		}
	}
	return bestV, bestS, fit
}

// layoutFit is the similarity that maps a canonical layout (layouts[layout])
// onto the patch: p -> (tx + a*x - b*y, ty + b*x + a*y).
type layoutFit struct {
	layout       int
	tx, ty, a, b float64
	// kx, ky scale patch units to the fit's units (the face's aspect).
	kx, ky float64
}

// emptySpots checks the other side of a layout fit: the pip map at the
// canonical pip places the layout leaves empty must be low. It returns the
// strongest empty-place response over the weakest pip response.
func (s *faceScratch) emptySpots(f layoutFit) float64 {
	if f.a == 0 {
		return 1
	}
	resp := func(x, y float64) float64 {
		px := int(math.Floor(((f.tx+f.a*x-f.b*y)/f.kx + 0.5) * faceN))
		py := int(math.Floor(((f.ty+f.b*x+f.a*y)/f.ky + 0.5) * faceN))
		best := 0.0
		for dy := -1; dy <= 1; dy++ {
			for dx := -1; dx <= 1; dx++ {
				xx, yy := px+dx, py+dy
				if xx < 0 || yy < 0 || xx >= faceN || yy >= faceN {
					continue
				}
				best = max(best, s.dog[yy*faceN+xx])
			}
		}
		return best
	}
	l := layouts[f.layout]
	minIn := math.Inf(1)
	used := map[[2]float64]bool{}
	for _, p := range l.pts {
		used[p] = true
		minIn = min(minIn, resp(p[0], p[1]))
	}
	if minIn <= 0 {
		return 1
	}
	maxOut := 0.0
	for _, y := range []float64{-1, 0, 1} {
		for _, x := range []float64{-1, 0, 1} {
			if used[[2]float64{x, y}] {
				continue
			}
			maxOut = max(maxOut, resp(x, y))
		}
	}
	return maxOut / minIn
}

// otsu returns the threshold that best splits a histogram in two.
func otsu(hist []int, total int) int {
	var sum float64
	for i, c := range hist {
		sum += float64(i * c)
	}
	var sumB, wB float64
	best, bestT := -1.0, 0
	for t, c := range hist {
		wB += float64(c)
		if wB == 0 {
			continue
		}
		wF := float64(total) - wB
		if wF == 0 {
			break
		}
		sumB += float64(t * c)
		mB, mF := sumB/wB, (sum-sumB)/wF
		if v := wB * wF * (mB - mF) * (mB - mF); v > best {
			best, bestT = v, t
		}
	}
	return bestT
}

// massShift is the integer shift, at most 3 pixels, from the patch centre
// to the centre of mass of the pip map above its mean: where the pips are
// when the die's box also holds some shadow or side.
func (s *faceScratch) massShift(mean float64) (int, int) {
	var sw, sx, sy float64
	for y := faceMargin; y < faceN-faceMargin; y++ {
		for x := faceMargin; x < faceN-faceMargin; x++ {
			v := s.cm[y*faceN+x] - 2*mean
			if v <= 0 {
				continue
			}
			sw += v
			sx += v * (float64(x) + 0.5 - faceN/2)
			sy += v * (float64(y) + 0.5 - faceN/2)
		}
	}
	if sw == 0 {
		return 0, 0
	}
	return int(clamp(math.Round(sx/sw), -3, 3)), int(clamp(math.Round(sy/sw), -3, 3))
}

// refine shrinks the candidate's rectangle to the rows and columns of the
// patch that are mostly die body (near the face's median colour) or pip,
// dropping shadow and background caught by the segmentation.
func (s *faceScratch) refine(c candidate) (candidate, bool) {
	const bodyMax = 60.0
	var colF, rowF [faceN]float64
	for y := 0; y < faceN; y++ {
		for x := 0; x < faceN; x++ {
			if s.d[y*faceN+x] < bodyMax {
				colF[x]++
				rowF[y]++
			}
		}
	}
	ext := func(f *[faceN]float64) (int, int) {
		lo, hi := 0, faceN-1
		for lo < faceN/3 && f[lo] < 0.4*faceN {
			lo++
		}
		for hi > faceN*2/3 && f[hi] < 0.4*faceN {
			hi--
		}
		return lo, hi
	}
	x0, x1 := ext(&colF)
	y0, y1 := ext(&rowF)
	if (x0 == 0 && y0 == 0 && x1 == faceN-1 && y1 == faceN-1) || x1-x0 < faceN*6/10 || y1-y0 < faceN*6/10 {
		return c, false
	}
	const shrink = 0.94
	pu, pv := c.w*shrink/faceN, c.h*shrink/faceN
	du := (float64(x0+x1+1)/2 - faceN/2) * pu
	dv := (float64(y0+y1+1)/2 - faceN/2) * pv
	co, si := math.Cos(c.angle), math.Sin(c.angle)
	c.cx += du*co - dv*si
	c.cy += du*si + dv*co
	// The patch covers shrink of the rectangle; keep the same ratio.
	c.w = float64(x1-x0+1) * pu / shrink
	c.h = float64(y1-y0+1) * pv / shrink
	c.edge = (c.w + c.h) / 2
	return c, true
}

// edgeBlob reports a blob that lies along the patch's edge rather than
// inside the face: its centre is in the outer band, or it touches the
// inner region's border and is long along it.
func edgeBlob(x0, y0, x1, y1 int, cx, cy float64) bool {
	const band = faceMargin + 1.5
	if cx < band || cy < band || cx > faceN-band || cy > faceN-band {
		return true
	}
	bw, bh := x1-x0+1, y1-y0+1
	if (x0 <= faceMargin || x1 >= faceN-1-faceMargin) && bh > bw+2 {
		return true
	}
	if (y0 <= faceMargin || y1 >= faceN-1-faceMargin) && bw > bh+2 {
		return true
	}
	return false
}

// alignAngle turns a square-looking candidate to the face's own axes. The
// segmented footprint of a die with rounded corners is nearly round, so
// its rectangle's angle is a poor guess; the die's outline and its rows
// of pips have strong edges along the face's axes. The dominant gradient
// direction modulo a quarter turn (magnitude-weighted mean of 4 theta over
// the rectangle) gives that angle; round pips add no preferred direction.
func alignAngle(fr bgrImage, c candidate) candidate {
	if min(c.w, c.h)/max(c.w, c.h) < 0.8 {
		return c
	}
	bb := c.box()
	x0, y0 := max(bb.Min.X, 1), max(bb.Min.Y, 1)
	x1, y1 := min(bb.Max.X, fr.w-1), min(bb.Max.Y, fr.h-1)
	co, si := math.Cos(c.angle), math.Sin(c.angle)
	hw, hh := 0.6*c.w, 0.6*c.h
	var sc, ss, sm float64
	if x0 < x1 && y0 < y1 {
		// Grey levels (sums of the three channels) of the rows above, at
		// and below y, over columns x0-1 .. x1.
		n := x1 - x0 + 2
		var buf [3 * 256]int32
		var rows []int32
		if 3*n <= len(buf) {
			rows = buf[:3*n]
		} else {
			rows = make([]int32, 3*n)
		}
		greyRow := func(dst []int32, y int) {
			p := fr.pix[(y*fr.w+x0-1)*3 : (y*fr.w+x1+1)*3]
			for i := range dst {
				dst[i] = int32(p[3*i]) + int32(p[3*i+1]) + int32(p[3*i+2])
			}
		}
		up, mid, down := rows[:n], rows[n:2*n], rows[2*n:]
		greyRow(up, y0-1)
		greyRow(mid, y0)
		for y := y0; y < y1; y++ {
			greyRow(down, y+1)
			for x := x0; x < x1; x++ {
				dx, dy := float64(x)+0.5-c.cx, float64(y)+0.5-c.cy
				if u, v := dx*co+dy*si, -dx*si+dy*co; math.Abs(u) > hw || math.Abs(v) > hh {
					continue
				}
				// Differences of whole grey levels: exact in float64.
				i := x - x0 + 1
				gx := float64(mid[i+1] - mid[i-1])
				gy := float64(down[i] - up[i])
				m2 := gx*gx + gy*gy
				if m2 == 0 {
					continue
				}
				// cos and sin of 4 theta from the gradient vector.
				c2 := (gx*gx - gy*gy) / m2
				s2 := 2 * gx * gy / m2
				m := math.Sqrt(m2)
				sc += m * (c2*c2 - s2*s2)
				ss += m * 2 * c2 * s2
				sm += m
			}
			up, mid, down = mid, down, up
		}
	}
	if sm == 0 || math.Hypot(sc, ss) < 0.15*sm {
		return c // no clear direction
	}
	a := math.Atan2(ss, sc) / 4
	// Nearest to the rectangle's own angle modulo a quarter turn.
	d := math.Remainder(a-c.angle, math.Pi/2)
	c.angle += d
	return c
}

// pipBox is the frame-pixel bounding box of the pip blobs kept by the
// last call to components (each taken as a disc of its area), for the
// candidate whose face the patch holds.
func (s *faceScratch) pipBox(c candidate, kept []pipBlob) image.Rectangle {
	if len(kept) == 0 {
		return image.Rectangle{}
	}
	const shrink = 0.94 // as in sample
	co, si := math.Cos(c.angle), math.Sin(c.angle)
	pu, pv := c.w*shrink/faceN, c.h*shrink/faceN
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, b := range kept {
		u, v := b.x*c.w*shrink, b.y*c.h*shrink
		x, y := c.cx+u*co-v*si, c.cy+u*si+v*co
		r := math.Sqrt(float64(b.area)/math.Pi) * (pu + pv) / 2
		x0, y0 = min(x0, x-r), min(y0, y-r)
		x1, y1 = max(x1, x+r), max(y1, y+r)
	}
	return image.Rect(int(math.Floor(x0)), int(math.Floor(y0)), int(math.Ceil(x1)), int(math.Ceil(y1)))
}

// dogPeak is a local maximum of the pip map's difference of blurs: its
// index in the patch and its value.
type dogPeak struct {
	i int
	v float64
}

// dogMaxima returns the local maxima of s.dog above pipMinContrast (of two
// equal neighbours the first in the patch), inside the patch's edge band
// and a pixel more, strongest first.
func (s *faceScratch) dogMaxima() []dogPeak {
	var ps []dogPeak
	lo, hi := faceMargin+1, faceN-faceMargin-1
	for y := lo; y < hi; y++ {
		for x := lo; x < hi; x++ {
			i := y*faceN + x
			v := s.dog[i]
			if v <= pipMinContrast {
				continue
			}
			isMax := true
			for dy := -1; dy <= 1 && isMax; dy++ {
				for dx := -1; dx <= 1; dx++ {
					j := i + dy*faceN + dx
					if j == i {
						continue
					}
					if s.dog[j] > v || (s.dog[j] == v && j < i) {
						isMax = false
						break
					}
				}
			}
			if isMax {
				ps = append(ps, dogPeak{i, v})
			}
		}
	}
	sort.Slice(ps, func(a, b int) bool { return ps[a].v > ps[b].v })
	return ps
}

// peaks returns the pip centres as the local maxima of the pip map's
// difference of blurs: at most one per pip-sized neighbourhood, at least
// pipPeakRel of the strongest and above pipMinContrast, away from the
// patch's edge band. Unlike thresholded blobs, pips of uneven contrast do
// not fragment or merge.
func (s *faceScratch) peaks() [][2]float64 {
	s.kept = s.pickPeaks(s.dogMaxima(), pipPeakRel, 4.5, 2, s.kept[:0])
	var out [][2]float64
	for _, b := range s.kept {
		out = append(out, [2]float64{b.x, b.y})
	}
	return out
}

// pickPeaks appends to kept, and returns, the maxima of ps (strongest
// first, as dogMaxima gives them) at least rel of the strongest and nms
// patch pixels or more from each stronger one taken, each centred on the
// pixels within win of it (a square) above half its value, area their
// count, and left out when that centre lies in the patch's edge band: at
// most seven, as blobs (units of the patch side from its centre).
func (s *faceScratch) pickPeaks(ps []dogPeak, rel, nms float64, win int, kept []pipBlob) []pipBlob {
	var acc []dogPeak
	n := 0
	for _, p := range ps {
		if p.v < rel*ps[0].v {
			break
		}
		px, py := p.i%faceN, p.i/faceN
		ok := true
		for _, q := range acc {
			if math.Hypot(float64(px-q.i%faceN), float64(py-q.i/faceN)) < nms {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		acc = append(acc, p)
		var sw, sx, sy float64
		area := 0
		for dy := -win; dy <= win; dy++ {
			for dx := -win; dx <= win; dx++ {
				xx, yy := px+dx, py+dy
				if xx < 0 || yy < 0 || xx >= faceN || yy >= faceN {
					continue
				}
				wv := s.dog[yy*faceN+xx] - 0.5*p.v
				if wv <= 0 {
					continue
				}
				area++
				sw += wv
				sx += wv * (float64(xx) + 0.5)
				sy += wv * (float64(yy) + 0.5)
			}
		}
		cx, cy := sx/sw, sy/sw
		const band = faceMargin + 1.5
		if cx < band || cy < band || cx > faceN-band || cy > faceN-band {
			continue
		}
		kept = append(kept, pipBlob{cx/faceN - 0.5, cy/faceN - 0.5, area})
		if n++; n > 6 {
			break
		}
	}
	return kept
}

const pipPeakRel = 0.55

// fiveEmptyMax is the emptySpots ratio at which a 5's layout score
// reaches 0 (0.55 for other faces), and fiveNCCMin the template score the
// 5 must reach on its own for it. On byler_d6's looks read 5 by both cues,
// none wrong had a ratio from 0.45 to 0.8; a 4 taking a neighbour's pip
// for its centre had a template score of 0.31, the 5s 0.75 and up.
const (
	fiveEmptyMax = 0.8
	fiveNCCMin   = 0.7
)

// pipDarkMap sets d to how much darker than the body (sum of three
// channels) each pixel is, on a light body: its pips are darker than
// it, and its glare and highlights, brighter, are left out. It reports
// false, leaving d, on a dark body (its pips are the lighter ones).
func (s *faceScratch) pipDarkMap() bool {
	lum := s.med[0] + s.med[1] + s.med[2]
	if lum < lightBodyMin {
		return false
	}
	for i := 0; i < faceN*faceN; i++ {
		s.d[i] = max(lum-s.patch[3*i]-s.patch[3*i+1]-s.patch[3*i+2], 0)
	}
	return true
}

// lightBodyMin is the least body brightness (sum of three channels, a
// mean channel of about 67) at which pipDarkMap looks for pips darker
// than the body. On byler_d6, 150 let a dark body's wrong value through;
// 200 and 255 did not.
const lightBodyMin = 200

// lattice is the shape of a face's pip lattice in pixels: how far the
// layout's unit (a corner pip's offset along one side from the face's
// centre) reaches in the picture. scale is the similarity fit's, for
// any layout of two pips or more; major and minor are the longest and
// shortest reach of an affine fit, for layouts whose pips span both
// directions (4, 5 and 6; 0 otherwise). A face seen square on has
// major about minor; a face turned from the camera is shortened along
// the turn, and minor/major is about the cosine of the turn.
type lattice struct {
	scale, major, minor float64
	// minorAng is the direction of the shortest reach in the patch's
	// axes (radians, modulo a half turn), and cx, cy the layout's centre
	// in the frame (set for every fitted layout, one pip included): the
	// cocked-die measures of TestCockStackDiag.
	minorAng float64
	cx, cy   float64
}

// latticeShape measures the lattice of centres (patch units scaled to the
// face's proportions, unit px pixels) that fit placed the layout on.
func latticeShape(c [][2]float64, fit layoutFit, px float64) lattice {
	l := layouts[fit.layout].pts
	if len(l) < 2 || len(c) != len(l) {
		return lattice{}
	}
	out := lattice{scale: math.Hypot(fit.a, fit.b) * px}
	if len(l) < 4 {
		return out
	}
	// Pair each centre with the nearest layout place under the fit, then
	// fit x -> A x from the layout places to the centres (both centred).
	var mx, my float64
	for _, p := range c {
		mx += p[0] / float64(len(c))
		my += p[1] / float64(len(c))
	}
	var cp [2][2]float64 // sum of centre * place^T
	var pp [2][2]float64 // sum of place * place^T
	used := 0
	for _, p := range c {
		best, bd := -1, math.Inf(1)
		for j, q := range l {
			qx, qy := fit.tx+fit.a*q[0]-fit.b*q[1], fit.ty+fit.b*q[0]+fit.a*q[1]
			if d := math.Hypot(p[0]-qx, p[1]-qy); d < bd {
				best, bd = j, d
			}
		}
		if best < 0 || used&(1<<best) != 0 {
			// No finite distance, or two pips on one place: no clean
			// pairing.
			return out
		}
		used |= 1 << best
		q := l[best]
		x, y := p[0]-mx, p[1]-my
		cp[0][0] += x * q[0]
		cp[0][1] += x * q[1]
		cp[1][0] += y * q[0]
		cp[1][1] += y * q[1]
		pp[0][0] += q[0] * q[0]
		pp[0][1] += q[0] * q[1]
		pp[1][0] += q[1] * q[0]
		pp[1][1] += q[1] * q[1]
	}
	det := pp[0][0]*pp[1][1] - pp[0][1]*pp[1][0]
	if math.Abs(det) < 1e-9 {
		return out
	}
	inv := [2][2]float64{{pp[1][1] / det, -pp[0][1] / det}, {-pp[1][0] / det, pp[0][0] / det}}
	var a [2][2]float64
	for i := 0; i < 2; i++ {
		for j := 0; j < 2; j++ {
			a[i][j] = cp[i][0]*inv[0][j] + cp[i][1]*inv[1][j]
		}
	}
	// Singular values of a.
	t := a[0][0]*a[0][0] + a[0][1]*a[0][1] + a[1][0]*a[1][0] + a[1][1]*a[1][1]
	d := math.Abs(a[0][0]*a[1][1] - a[0][1]*a[1][0])
	r := math.Sqrt(math.Max(t*t-4*d*d, 0))
	out.major = math.Sqrt((t+r)/2) * px
	out.minor = math.Sqrt(math.Max((t-r)/2, 0)) * px
	// The shortest reach's direction: the eigenvector of a a^T for its
	// smaller eigenvalue.
	m00 := a[0][0]*a[0][0] + a[0][1]*a[0][1]
	m01 := a[0][0]*a[1][0] + a[0][1]*a[1][1]
	m11 := a[1][0]*a[1][0] + a[1][1]*a[1][1]
	out.minorAng = 0.5*math.Atan2(2*m01, m00-m11) + math.Pi/2
	return out
}

// squareFourSides is the share of its long side under which a face
// rectangle's short side sends a 4 read on it to squareLook.
const squareFourSides = 0.85

// pipPlaces writes the frame centres and radii of the pips kept (patch
// units from c's centre) into out, and returns how many it wrote.
func (s *faceScratch) pipPlaces(c candidate, kept []pipBlob, out *[6][3]float64) int {
	co, si := math.Cos(c.angle), math.Sin(c.angle)
	sw, sh := c.w*sampleShrink, c.h*sampleShrink
	n := 0
	for _, p := range kept {
		if n == len(out) {
			break
		}
		u, v := p.x*sw, p.y*sh
		r := math.Sqrt(float64(p.area)/math.Pi) * (sw + sh) / 2 / faceN
		out[n] = [3]float64{c.cx + u*co - v*si, c.cy + u*si + v*co, r}
		n++
	}
	return n
}

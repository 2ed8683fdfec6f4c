package vision

import "math"

// A fold: the face rectangle laid across an edge of the die.
//
// A cocked die, or a flat one under a tilted camera, shows a side face
// beside its top face, lit differently. A face rectangle slid over that
// edge takes in pips of both faces, and the two cues can fit them to one
// value as surely as a whole face's (still 6209 of session 9's check
// seeds, uncalibrated: a purple die cocked 40 degrees, its square half
// over its top face, a 5, and half over its lit side face, a 4, read as a
// 6 at confidence 1).
// Two things show the edge on the rectangle's patch: the body's
// brightness steps across a straight line along one of the patch's axes,
// and the pips fall into two groups by that line, every pip on the
// brighter side brighter than every pip on the other (a face's light
// varies smoothly; a side face turned from the light dims body and pips
// alike). foldSplit measures both; a value with both past foldStep and
// foldSep is doubted alone (see doubtCap): its confidence is capped at
// doubtMaxConf, the value stands.
//
// Measured on stills 0..1207 (both read modes, every value given, session
// 10): the body's step alone passes 0.35 on about one value in ten read
// right (white and marbled bodies shade across the face); with the pips
// split too, on 5 right values and none wrong calibrated, 8 right and 2
// wrong uncalibrated; on byler_d6 on 4 right values (none sure) and 1
// wrong, on matteo_webcam on none. Withholding those would cost more right
// values than it saves wrong ones; the cap costs no value. On stills
// 0..1999 it caps no sure value calibrated (2561 sure before and after),
// and the values it caps uncalibrated are few (2 right ones in 0..1207),
// most values it finds being capped by another doubt already; on byler_d6
// and matteo_webcam it caps none.

// foldStep is the least step in the body's brightness across the cut,
// over the darker side's, and foldSep the least gap between the two sides'
// pips (the dimmest on the brighter side less the brightest on the
// other), over the pips' contrast with the body, that make a fold.
const (
	foldStep = 0.35
	foldSep  = 0.15
)

// foldBand is the width, in patch pixels, of the bands either side of a
// cut whose body brightness foldSplit compares (their medians by
// column or row), and foldCut how near the patch's inner edge a cut may
// lie.
const (
	foldBand = 6
	foldCut  = 6
)

// foldOff (tests) turns the fold doubt off, for before-and-after figures.
var foldOff bool

// foldSplit measures a fold on the face rectangle c (see above): over the
// cuts along either axis of the patch, the largest step between the
// body's brightness either side (bands foldBand wide), over the darker
// side's (step), and at that cut the gap between the pips of the two
// sides (sep: negative when they overlap or the brighter side's pips are
// the dimmer, -1 when a side holds no pip). It reuses the reader's face
// scratch.
func (s *faceScratch) foldSplit(fr bgrImage, c candidate) (step, sep float64) {
	s.sample(fr, c)
	s.pipMap()
	// The pips: blobs of the face-wide and of the neighbourhood
	// threshold (a pip in shade falls below the first's cut), each
	// counted once.
	var pipPx [faceN * faceN]bool
	var pips [][2]float64
	for _, local := range []bool{false, true} {
		s.localThr = local
		s.blobs()
		s.localThr = false
		for i, b := range s.bin {
			pipPx[i] = pipPx[i] || b
		}
		for _, p := range s.kept {
			x, y := (p.x+0.5)*faceN, (p.y+0.5)*faceN
			dup := false
			for _, q := range pips {
				if math.Abs(x-q[0])+math.Abs(y-q[1]) <= 3 {
					dup = true
					break
				}
			}
			if !dup {
				pips = append(pips, [2]float64{x, y})
			}
		}
	}
	if len(pips) < 2 {
		return 0, -1
	}
	var prof foldProfile
	prof.set(s, &pipPx)
	lum := func(i int) float64 { return s.patch[3*i] + s.patch[3*i+1] + s.patch[3*i+2] }
	pipLum := make([]float64, len(pips))
	var pipMean float64
	for i, p := range pips {
		ix := min(max(int(p[0]), 1), faceN-2)
		iy := min(max(int(p[1]), 1), faceN-2)
		for dy := -1; dy <= 1; dy++ {
			for dx := -1; dx <= 1; dx++ {
				pipLum[i] += lum((iy+dy)*faceN+ix+dx) / 9
			}
		}
		pipMean += pipLum[i] / float64(len(pips))
	}
	contrast := math.Abs(pipMean - (s.med[0] + s.med[1] + s.med[2]))
	step, axis, k, a, b := prof.bestCut()
	if step <= 0 || contrast <= 0 {
		return step, -1
	}
	// The pips either side of the cut: the brighter body's dimmest pip
	// against the other side's brightest.
	loA, hiA := math.Inf(1), math.Inf(-1)
	loB, hiB := math.Inf(1), math.Inf(-1)
	for i, p := range pips {
		if p[axis]-faceMargin < float64(k) {
			loA, hiA = min(loA, pipLum[i]), max(hiA, pipLum[i])
		} else {
			loB, hiB = min(loB, pipLum[i]), max(hiB, pipLum[i])
		}
	}
	if math.IsInf(hiA, -1) || math.IsInf(hiB, -1) {
		return step, -1
	}
	if b > a {
		return step, (loB - hiA) / contrast
	}
	return step, (loA - hiB) / contrast
}

// foldInner is the side of the patch's inner part.
const foldInner = faceN - 2*faceMargin

// foldProfile is the body's mean brightness by column ([0]) and by row
// ([1]) of the patch's inner part (-1: no body pixel there).
type foldProfile [2][foldInner]float64

// set fills p from s's patch, over the inner pixels clear of every pip
// pixel (pip) and its rim.
func (p *foldProfile) set(s *faceScratch, pip *[faceN * faceN]bool) {
	var sum [2][foldInner]float64
	var cnt [2][foldInner]int
	for y := faceMargin; y < faceN-faceMargin; y++ {
		for x := faceMargin; x < faceN-faceMargin; x++ {
			clear := true
			for dy := -1; dy <= 1 && clear; dy++ {
				for dx := -1; dx <= 1; dx++ {
					if pip[(y+dy)*faceN+x+dx] {
						clear = false
						break
					}
				}
			}
			if !clear {
				continue
			}
			o := (y*faceN + x) * 3
			v := s.patch[o] + s.patch[o+1] + s.patch[o+2]
			sum[0][x-faceMargin] += v
			cnt[0][x-faceMargin]++
			sum[1][y-faceMargin] += v
			cnt[1][y-faceMargin]++
		}
	}
	for axis := range p {
		for j := range p[axis] {
			p[axis][j] = -1
			if cnt[axis][j] > 0 {
				p[axis][j] = sum[axis][j] / float64(cnt[axis][j])
			}
		}
	}
}

// band is the median of p's entries from..to-1 along axis (false with
// fewer than three).
func (p *foldProfile) band(axis, from, to int) (float64, bool) {
	var v [foldBand]float64
	n := 0
	for j := max(from, 0); j < min(to, foldInner); j++ {
		if x := p[axis][j]; x >= 0 {
			// Insertion sort: a band holds foldBand entries at most.
			i := n
			for i > 0 && v[i-1] > x {
				v[i] = v[i-1]
				i--
			}
			v[i] = x
			n++
		}
	}
	if n < 3 {
		return 0, false
	}
	return (v[(n-1)/2] + v[n/2]) / 2, true
}

// bestCut finds the cut with the largest step between the bands either
// side, over the darker band's brightness: the step, the axis, the cut's
// place (inner pixels) and the bands' brightness before and after it.
func (p *foldProfile) bestCut() (step float64, axis, k int, a, b float64) {
	for ax := 0; ax < 2; ax++ {
		for j := foldCut; j <= foldInner-foldCut; j++ {
			x, okA := p.band(ax, j-foldBand, j)
			y, okB := p.band(ax, j, j+foldBand)
			if !okA || !okB {
				continue
			}
			if g := math.Abs(y-x) / max(min(x, y), 1); g > step {
				step, axis, k, a, b = g, ax, j, x, y
			}
		}
	}
	return step, axis, k, a, b
}

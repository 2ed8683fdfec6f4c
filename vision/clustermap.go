package vision

import "math"

// A pip map from the face's own colours: the patch's inner pixels are
// grouped into a few colour clusters (k-means in an opponent colour
// space), and the pips are the cluster whose pixels form several compact,
// pip-sized blobs. On a dark translucent, marbled or dark red body with
// red pips of low contrast, the colour distance from the body's median
// ranks white marble swirls and glare with (or above) the pips; here
// they fall into clusters of their own, long and thin or large, that the
// blob test turns away.

// clusterMaxK is the most colour clusters the map tries.
const clusterMaxK = 6

// clusterIters is the number of k-means rounds.
const clusterIters = 8

// clusterMinSep is the least colour distance (sum of the three opponent
// axes' differences) between the pip cluster's centre and the body's for
// the map to be made: closer, the clusters split noise or shading.
const clusterMinSep = 45

// clusterShareLo and clusterShareHi bound the share of the face a pip
// cluster may cover: three to six pips, small and apart or large and run
// together.
const clusterShareLo, clusterShareHi = 0.03, 0.45

// clusterLumaW weighs brightness (the mean of the three channels) against
// the two colour axes: a dark translucent body, its glare, its marbling
// and its pips part mostly by brightness, and a red pip on a dark body
// is both brighter and redder. (On byler_d6, weights 0.5 and 1 split
// fewer faces' pips from their marbling.)
const clusterLumaW = 2

// clusterFeat sets the scratch's colour features (opponent axes:
// brightness, red-green, yellow-blue) of every other inner pixel each way
// (a quarter of them: enough to place the clusters' centres) and returns
// how many.
func (s *faceScratch) clusterFeat() int {
	n := 0
	for y := faceMargin; y < faceN-faceMargin; y += 2 {
		for x := faceMargin; x < faceN-faceMargin; x += 2 {
			i := y*faceN + x
			b, g, r := s.patch[3*i], s.patch[3*i+1], s.patch[3*i+2]
			s.clF[n] = [3]float64{clusterLumaW * (b + g + r) / 3, r - g, (r+g)/2 - b}
			n++
		}
	}
	return n
}

// colDist is the L1 distance between two colour features.
func colDist(a, b [3]float64) float64 {
	return math.Abs(a[0]-b[0]) + math.Abs(a[1]-b[1]) + math.Abs(a[2]-b[2])
}

// kmeans groups the n features in s.clF into k clusters, seeded with the
// features' median (the body) and then, one by one, the feature farthest
// from every seed so far. It sets s.clA to each feature's cluster and
// returns the centres and the clusters' sizes. It reports false, with
// no clustering, when the features hold fewer than k distinct colours
// (every feature lies on a seed before the k-th): a further seed would
// repeat one, and two clusters on one centre leave setClusterMap's
// pip-or-other ratio 0/0.
func (s *faceScratch) kmeans(n, k int) (cen [clusterMaxK][3]float64, size [clusterMaxK]int, ok bool) {
	var hist [3][1024]int
	for _, f := range s.clF[:n] {
		for ch := 0; ch < 3; ch++ {
			hist[ch][min(max(int(f[ch])+512, 0), 1023)]++
		}
	}
	for ch := 0; ch < 3; ch++ {
		cen[0][ch] = float64(percentile(hist[ch][:], n, 0.5) - 512)
	}
	for j := 1; j < k; j++ {
		far, at := -1.0, 0
		for i, f := range s.clF[:n] {
			d := math.Inf(1)
			for m := 0; m < j; m++ {
				d = min(d, colDist(f, cen[m]))
			}
			if d > far {
				far, at = d, i
			}
		}
		if far <= 0 {
			return cen, size, false
		}
		cen[j] = s.clF[at]
	}
	for it := 0; it < clusterIters; it++ {
		var sum [clusterMaxK][3]float64
		size = [clusterMaxK]int{}
		moved := false
		for i, f := range s.clF[:n] {
			best, bd := 0, math.Inf(1)
			for m := 0; m < k; m++ {
				if d := colDist(f, cen[m]); d < bd {
					best, bd = m, d
				}
			}
			if s.clA[i] != int8(best) {
				s.clA[i] = int8(best)
				moved = true
			}
			size[best]++
			for ch := 0; ch < 3; ch++ {
				sum[best][ch] += f[ch]
			}
		}
		for m := 0; m < k; m++ {
			if size[m] > 0 {
				for ch := 0; ch < 3; ch++ {
					cen[m][ch] = sum[m][ch] / float64(size[m])
				}
			}
		}
		if !moved && it > 0 {
			break
		}
	}
	return cen, size, true
}

// clusterCands runs k-means for k of 2 to clusterMaxK on the inner
// pixels' colours and calls try with each cluster other than the largest
// (the body) whose centre lies clusterMinSep or more from the body's
// (s.clA then holds that clustering), until try returns true.
func (s *faceScratch) clusterCands(try func(n, k, j, body int, cen *[clusterMaxK][3]float64) bool) {
	n := s.clusterFeat()
	for k := 2; k <= clusterMaxK; k++ {
		for i := range s.clA[:n] {
			s.clA[i] = -1
		}
		cen, size, ok := s.kmeans(n, k)
		if !ok {
			// No more distinct colours than k-1: a larger k
			// cannot part them further.
			return
		}
		s.clusterDists(k, &cen)
		body := 0
		for m := 1; m < k; m++ {
			if size[m] > size[body] {
				body = m
			}
		}
		for j := 0; j < k; j++ {
			if sh := float64(size[j]) / float64(n); j == body || sh < clusterShareLo || sh > clusterShareHi ||
				colDist(cen[j], cen[body]) < clusterMinSep {
				continue
			}
			// Only the three clusters farthest from the body's colour:
			// the pips stand out of a dark body in brightness and hue
			// (on byler_d6 the two farthest gave one face less, every
			// cluster none more, at more of this look's time).
			farther := 0
			for m := 0; m < k; m++ {
				if m != body && colDist(cen[m], cen[body]) > colDist(cen[j], cen[body]) {
					farther++
				}
			}
			if farther >= 3 {
				continue
			}
			if try(n, k, j, body, &cen) {
				return
			}
		}
	}
}

// pipClusterMap sets d to how surely each pixel belongs to the face's pip
// colour cluster (setClusterMap). Of clusterCands' clusters it takes the
// one whose map makes the most pip-like blobs (as blobs finds them on the
// difference of blurs: compact, pip-sized, off the edge), at least three
// and at most six. It reports false, leaving d, when no cluster
// qualifies.
func (s *faceScratch) pipClusterMap() bool {
	bestN, bestK, bestJ, bestBody := 0, 0, 0, 0
	var bestCen [clusterMaxK][3]float64
	s.clusterCands(func(n, k, j, body int, cen *[clusterMaxK][3]float64) bool {
		s.setClusterMap(k, j, body, cen)
		centres, _ := s.blobs()
		if len(centres) < 3 || len(centres) > 6 {
			return false
		}
		if len(centres) > bestN {
			bestN, bestK, bestJ, bestBody, bestCen = len(centres), k, j, body, *cen
		}
		return false
	})
	if bestN == 0 {
		return false
	}
	s.clusterDists(bestK, &bestCen)
	s.setClusterMap(bestK, bestJ, bestBody, &bestCen)
	return true
}

// clusterDists sets s.clD to each inner pixel's colour distance from
// each of the k centres cen.
func (s *faceScratch) clusterDists(k int, cen *[clusterMaxK][3]float64) {
	for y := faceMargin; y < faceN-faceMargin; y++ {
		for x := faceMargin; x < faceN-faceMargin; x++ {
			i := y*faceN + x
			b, g, r := s.patch[3*i], s.patch[3*i+1], s.patch[3*i+2]
			f := [3]float64{clusterLumaW * (b + g + r) / 3, r - g, (r+g)/2 - b}
			for m := 0; m < k; m++ {
				s.clD[i][m] = colDist(f, cen[m])
			}
		}
	}
}

// setClusterMap sets d to how surely each inner pixel belongs to cluster
// j of the k centres cen rather than to any other (1 at j's centre or
// beyond, 0 at another's, softly between), times j's colour distance
// from the body's centre. s.clD must hold the pixels' distances from cen
// (clusterDists).
func (s *faceScratch) setClusterMap(k, j, body int, cen *[clusterMaxK][3]float64) {
	pip := cen[j]
	sep := colDist(pip, cen[body])
	near := math.Inf(1)
	for m := 0; m < k; m++ {
		if m != j {
			near = min(near, colDist(pip, cen[m]))
		}
	}
	for i := range s.d {
		s.d[i] = 0
	}
	for y := faceMargin; y < faceN-faceMargin; y++ {
		for x := faceMargin; x < faceN-faceMargin; x++ {
			i := y*faceN + x
			ds := &s.clD[i]
			do := math.Inf(1)
			for m := 0; m < k; m++ {
				if m != j {
					do = min(do, ds[m])
				}
			}
			s.d[i] = sep * clamp(0.5+(do-ds[j])/near, 0, 1)
		}
	}
}

// clusterLook has readLooks read a face no other look read on the colour
// cluster map (a variable so that a test can compare both ways).
var clusterLook = true

// clusterTrace, when set (tests), is called with every value the colour
// cluster look reads, before its cap and rule on values.
var clusterTrace func(f faceValue)

// clusterMinValue is the least value the cluster look may give: a face
// with pips missed reads as a smaller one (a 5 less two corners is a 3, a
// 6 less a row a 4), and no face holds a 5's or a 6's pips and more.
const clusterMinValue = 5

// clusterRead reads the face in the candidate's rectangle (refined unless
// keepRect) with both cues on the colour cluster map. It returns no value
// when the map cannot be made.
func (s *faceScratch) clusterRead(fr bgrImage, c candidate) faceValue {
	c = s.sampleRefined(fr, c)
	if !s.pipClusterMap() {
		return faceValue{c: c}
	}
	return s.cues(c)
}

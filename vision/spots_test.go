package vision

import (
	"math"
	"testing"
)

// drawSpots fills the face scratch's map with discs of radius rad (patch
// sides) at the given lattice places of pitch a, and bars joining the
// places of each pair in bars (pips run together), on a zero body.
func drawSpots(s *faceScratch, a, rad float64, pts [][2]float64, bars [][2]int) {
	for y := 0; y < faceN; y++ {
		for x := 0; x < faceN; x++ {
			u := (float64(x)+0.5)/faceN - 0.5
			v := (float64(y)+0.5)/faceN - 0.5
			val := 0.0
			for _, p := range pts {
				if math.Hypot(u-p[0]*a, v-p[1]*a) <= rad {
					val = 100
				}
			}
			for _, b := range bars {
				p, q := pts[b[0]], pts[b[1]]
				// Distance from (u, v) to the segment p-q.
				px, py, qx, qy := p[0]*a, p[1]*a, q[0]*a, q[1]*a
				dx, dy := qx-px, qy-py
				t := clamp(((u-px)*dx+(v-py)*dy)/(dx*dx+dy*dy), 0, 1)
				if math.Hypot(u-px-t*dx, v-py-t*dy) <= 0.8*rad {
					val = 100
				}
			}
			s.d[y*faceN+x] = val
		}
	}
}

// TestSpotDecodeMerged: faces whose pips run together into bars (a 6's
// columns, a 5's diagonals, a 3's diagonal) and faces of separate pips
// decode to their value, leading every other value clearly: a 4 is not a
// 6 (its middle spots are empty), a 3 not a 5.
func TestSpotDecodeMerged(t *testing.T) {
	const a, rad = 0.3, 0.09
	six := [][2]float64{{-1, -1}, {-1, 0}, {-1, 1}, {1, -1}, {1, 0}, {1, 1}}
	five := [][2]float64{{-1, -1}, {1, -1}, {0, 0}, {-1, 1}, {1, 1}}
	three := [][2]float64{{-1, -1}, {0, 0}, {1, 1}}
	four := [][2]float64{{-1, -1}, {1, -1}, {-1, 1}, {1, 1}}
	for _, tc := range []struct {
		name string
		want int
		pts  [][2]float64
		bars [][2]int
	}{
		{"6 columns merged", 6, six, [][2]int{{0, 1}, {1, 2}, {3, 4}, {4, 5}}},
		{"5 diagonals merged", 5, five, [][2]int{{0, 2}, {2, 4}, {1, 2}, {2, 3}}},
		{"3 merged", 3, three, [][2]int{{0, 1}, {1, 2}}},
		{"4", 4, four, nil},
		{"3", 3, three, nil},
		{"6", 6, six, nil},
	} {
		var s faceScratch
		drawSpots(&s, a, rad, tc.pts, tc.bars)
		sr := s.spotDecode(a * 1.05)
		if sr.value != tc.want || sr.clear() < spotLead {
			t.Errorf("%s: decoded %d, lead %.2f (margin %.0f, next %.0f, contrast %.0f); want %d leading by %.2f",
				tc.name, sr.value, sr.clear(), sr.margin, sr.next, sr.contrast, tc.want, spotLead)
		}
	}
	// A lone pip (a 1) gives no value: one spot on and eight off is not
	// among the patterns.
	var s faceScratch
	drawSpots(&s, a, rad, [][2]float64{{0, 0}}, nil)
	if sr := s.spotDecode(a); sr.value != 0 && sr.clear() >= spotLead {
		t.Errorf("lone pip: decoded %d leading by %.2f, want none", sr.value, sr.clear())
	}
}

// TestSpotVoteKinds: a value needs a vote from the hue maps, and two
// votes; brightness maps alone (which follow each other) give none, nor
// do votes for two values, nor a 2.
func TestSpotVoteKinds(t *testing.T) {
	vote := func(v int) spotRead { return spotRead{value: v, margin: 50, contrast: 60, next: 5} }
	none := spotRead{}
	for _, tc := range []struct {
		name string
		rs   [5]spotRead
		want int
	}{
		{"brightness and hue", [5]spotRead{vote(5), vote(5), none, none, none}, 5},
		{"hue and redness", [5]spotRead{none, vote(6), vote(6), none, none}, 6},
		{"three brightness maps", [5]spotRead{vote(4), none, none, vote(4), vote(4)}, 0},
		{"one hue map", [5]spotRead{none, vote(3), none, none, none}, 0},
		{"two values", [5]spotRead{vote(4), vote(6), vote(6), none, none}, 0},
		{"a 2", [5]spotRead{vote(2), vote(2), vote(2), none, none}, 0},
		{"lead too small", [5]spotRead{none, {value: 5, margin: 20, next: 15, contrast: 60}, vote(5), none, none}, 0},
	} {
		if got := spotVote(tc.rs, spotLead, spotAbsMin); got != tc.want {
			t.Errorf("%s: vote %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestSpotLookByler reads the byler_d6 photos where the spot look gives
// a value (faces whose pips no blob count reads: red pips on a dark
// body) with the look and without it: with it, each of those dice reads
// its label's value and no die of the photos reads a wrong one more.
func TestSpotLookByler(t *testing.T) {
	ps := loadPhotoSet(t, "byler_d6")
	r := NewReader(ReaderOptions{})
	defer r.Close()
	// The colour cluster look (clustermap.go), which runs before it,
	// reads the 6 of IMG_20191209_095906 too: left out, so that these
	// dice are the spot look's to read.
	defer func(on bool) { clusterLook = on }(clusterLook)
	clusterLook = false
	// hueLook, after it, reads two of them when it is off (right): it is
	// left out too.
	defer func() { hueLookOff = false }()
	hueLookOff = true
	names := []string{"IMG_20191208_111548.jpg", "IMG_20191208_112926.jpg", "IMG_20191209_095405.jpg", "IMG_20191209_095906.jpg"}
	count := func(off bool) (right, wrong int) {
		spotLookOff = off
		var gave [][2]float64 // the dice the look gave a value, this photo
		spotTrace = func(d *Detection, _ [5]spotRead) { gave = append(gave, [2]float64{d.CX, d.CY}) }
		defer func() { spotLookOff, spotTrace = false, nil }()
		for _, name := range names {
			gave = gave[:0]
			dets := readPhoto(t, r, ps, name)
			truth := ps.dice[name]
			matched := 0
			for _, p := range matchBoxes(truth, dets, false) {
				d := dets[p[1]]
				for _, g := range gave {
					if g == [2]float64{d.CX, d.CY} {
						matched++
						if d.Value != truth[p[0]].value {
							t.Errorf("%s: the spot look gave %d to a labelled %d", name, d.Value, truth[p[0]].value)
						}
					}
				}
				switch v := dets[p[1]].Value; {
				case v == truth[p[0]].value:
					right++
				case v != 0:
					wrong++
				}
			}
			if !off && matched == 0 {
				t.Errorf("%s: the spot look gave no labelled die a value", name)
			}
		}
		return right, wrong
	}
	r0, w0 := count(true)
	r1, w1 := count(false)
	if r1 < r0+len(names) || w1 > w0 {
		t.Errorf("without the spot look %d right, %d wrong; with it %d right, %d wrong: want %d right more and no wrong one more",
			r0, w0, r1, w1, len(names))
	}
}

// TestSpotMargins: spotMargins, from the lattice's groups, equals each
// pattern's least on spot less its strongest off spot taken spot by spot.
func TestSpotMargins(t *testing.T) {
	if len(spotPatterns) != 8 {
		t.Fatalf("%d patterns, want 8", len(spotPatterns))
	}
	seed := uint32(7)
	for n := 0; n < 2000; n++ {
		var sp [9]float64
		for k := range sp {
			seed = seed*1664525 + 1013904223
			sp[k] = float64(seed>>16) / 655.36
		}
		mg := spotMargins(&sp)
		for j, pt := range spotPatterns {
			onMin, offMax := math.Inf(1), math.Inf(-1)
			for k := 0; k < 9; k++ {
				if pt.on&(1<<k) != 0 {
					onMin = min(onMin, sp[k])
				} else {
					offMax = max(offMax, sp[k])
				}
			}
			if mg[j] != onMin-offMax {
				t.Fatalf("spots %v, pattern %d (value %d): margin %v, want %v", sp, j, pt.value, mg[j], onMin-offMax)
			}
		}
	}
}

// BenchmarkSpotDecode decodes a 6 whose columns run together.
func BenchmarkSpotDecode(b *testing.B) {
	var s faceScratch
	six := [][2]float64{{-1, -1}, {-1, 0}, {-1, 1}, {1, -1}, {1, 0}, {1, 1}}
	drawSpots(&s, 0.3, 0.09, six, [][2]int{{0, 1}, {1, 2}, {3, 4}, {4, 5}})
	for i := 0; i < b.N; i++ {
		s.spotDecode(0.3)
	}
}

package vision

import (
	"math"
	"testing"
)

// TestSepLook reads byler dice that sepLook gives (the separated maxima's
// layout and the face net agreeing) and checks that each reads its label
// with the look and not without it.
func TestSepLook(t *testing.T) {
	if testing.Short() {
		t.Skip("reads byler photos")
	}
	read := bylerHeldOutRead(t)
	// mapsAgreeLook, after it, reads some of these dice without the net,
	// and lowNetLook some with it: they are off while sepLook is.
	setOff := func(off bool) { sepLookOff, mapsAgreeLookOff, lowNetOff = off, off, off }
	checkLookReads(t, read, "sepLook", setOff, false, []lookDie{
		// Marbled and dark bodies with red pips: no layout fits the first
		// look's blobs, or the template reads another face.
		{"IMG_20191208_111548.jpg", 2, 5},
		{"IMG_20191208_112438.jpg", 0, 5},
		{"IMG_20191208_112517.jpg", 1, 3},
		{"IMG_20191209_100237.jpg", 1, 4},
		// Read in the frame-size square (no layout of 3 or more in the
		// face rectangle).
		{"IMG_20191208_111932.jpg", 7, 5},
		// A shrunk face.
		{"IMG_20191209_095923.jpg", 1, 4},
	})
}

// TestSepPeaksMerged draws a 5 whose pips run together along both
// diagonals (a bridge two pixels thick between each corner pip and the centre, 0.85 of a
// pip's strength, as on byler's marbled dice) straight onto the pip map:
// the first look's blobs make a cross of it, sepLayout reads the 5.
func TestSepPeaksMerged(t *testing.T) {
	templatesOnce.Do(buildTemplates)
	permsOnce.Do(buildPerms)
	var s faceScratch
	const c, off = faceN / 2, 8.5
	pips := [][2]float64{{c, c}, {c - off, c - off}, {c + off, c - off}, {c - off, c + off}, {c + off, c + off}}
	for y := 0; y < faceN; y++ {
		for x := 0; x < faceN; x++ {
			px, py := float64(x)+0.5, float64(y)+0.5
			v := 0.0
			for _, p := range pips {
				if math.Hypot(px-p[0], py-p[1]) <= 2.8 {
					v = 200
				}
			}
			// The diagonals between the corner pips and the centre.
			if v == 0 && (math.Abs((px-c)-(py-c)) <= 2.0 || math.Abs((px-c)+(py-c)) <= 2.0) &&
				math.Abs(px-c) <= off && math.Abs(py-c) <= off {
				v = 170
			}
			s.d[y*faceN+x] = v
		}
	}
	d0 := s.d
	if b, _ := s.blobs(); len(b) == 5 {
		t.Fatalf("the first look's blobs separate the pips (%d): the case tests nothing", len(b))
	}
	s.d = d0
	cand := candidate{cx: 100, cy: 100, w: 30, h: 30, edge: 30}
	if lv, _, n := s.sepLayout(cand, sepSigma, sepRel, sepNMS); lv != 5 {
		t.Errorf("sepLayout read %d from %d maxima, want 5", lv, n)
	}
}

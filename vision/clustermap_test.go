package vision

import (
	"math"
	"os"
	"testing"
)

// clusterGain reads every candidate of a byler_d6 image face by face
// (topFace, then the pip reader, as ReadRegion does before its frame
// looks), with the cluster look and without, and returns the labelled
// dice whose value only the cluster look gives: truth value and the
// value it gives, at retryBelow or more. The look is as clusterLook has
// it (none when it is off).
func clusterGain(t *testing.T, r *Reader, ps photoSet, name string) [][2]int {
	t.Helper()
	img := photoImage(t, ps, name)
	defer img.Close()
	cands, fr := detectFrame(t, r, img)
	ocx, ocy := float64(img.Cols())/2, float64(img.Rows())/2
	defer func(on bool) { clusterLook = on }(clusterLook)
	look := clusterLook
	var out [][2]int
	for _, c := range cands {
		c = topFace(c, ocx, ocy)
		clusterLook = false
		off := r.face.read(fr, c)
		clusterLook = look
		on := r.face.read(fr, c)
		if on.value == off.value || on.conf < retryBelow || off.value > 0 && off.conf >= retryBelow {
			continue
		}
		for _, g := range ps.dice[name] {
			if c.cx >= g.box[0] && c.cx <= g.box[2] && c.cy >= g.box[1] && c.cy <= g.box[3] {
				out = append(out, [2]int{g.value, on.value})
				if g.value != on.value || os.Getenv("DICEWATCH_CLUSTER_GAINS") != "" {
					t.Logf("%s: truth %d read %d conf %.2f blobs %d lv %d tv %d ls %.2f ncc %.2f junk %v w %.1f h %.1f edge %.1f sil %.1f first %d/%.2f", name, g.value, on.value, on.conf, on.blobs, on.lv, on.tmpl, on.lscore, on.nccScore, on.junk, on.c.w, on.c.h, on.c.edge, on.silEdge, off.value, off.conf)
				}
			}
		}
	}
	return out
}

// TestClusterLookGains lists, with DICEWATCH_CLUSTER_GAINS set to a photo
// set's name (byler_d6, matteo_webcam), every die of the set the cluster look gives a value no other look of the face
// reader gave (a tuning tool).
func TestClusterLookGains(t *testing.T) {
	set := os.Getenv("DICEWATCH_CLUSTER_GAINS")
	if set == "" {
		t.Skip("DICEWATCH_CLUSTER_GAINS not set")
	}
	ps := loadPhotoSet(t, set)
	r := NewReader(ReaderOptions{})
	defer r.Close()
	for _, name := range ps.images {
		for _, g := range clusterGain(t, r, ps, name) {
			t.Logf("%s: truth %d, cluster look %d", name, g[0], g[1])
		}
	}
}

// TestClusterLook reads byler_d6 dice that only the colour cluster look
// reads (dark or grey translucent bodies whose red pips the other maps
// lose among glare and marbling): each must be given, and right.
func TestClusterLook(t *testing.T) {
	ps := loadPhotoSet(t, "byler_d6")
	r := NewReader(ReaderOptions{})
	defer r.Close()
	for _, name := range []string{
		"IMG_20191208_112332.jpg", "IMG_20191208_112340.jpg", "IMG_20191208_112353.jpg",
		"IMG_20191208_112458.jpg", "IMG_20191208_112556.jpg", "IMG_20191209_095906.jpg",
	} {
		gs := clusterGain(t, r, ps, name)
		if len(gs) == 0 {
			t.Errorf("%s: the cluster look gives no die a value", name)
		}
		for _, g := range gs {
			if g[0] != g[1] {
				t.Errorf("%s: the cluster look reads a %d as %d", name, g[0], g[1])
			}
		}
	}
}

// TestClusterLookStills reads the generated stills where the colour
// cluster look gave a wrong value before it asked for a clearly confident
// one (0.5 only, the template weak): still 628 die 2 calibrated (a cocked
// 6 read as its side face's 5) and still 963 die 3 uncalibrated (a
// blurred, stacked translucent red 3 read as a 6); and never-read stills
// 18416 die 0 and 18664 die 0, calibrated, where it read a cocked 4's side
// face as a 6 at 0.85 before it ran only without a known die size. Each
// must read right or stay unread.
func TestClusterLookStills(t *testing.T) {
	for _, tc := range []struct {
		seed       int64
		die        int
		calibrated bool
	}{{628, 2, true}, {963, 3, false}, {18416, 0, true}, {18664, 0, true}} {
		g, d, ok := readStillDie(t, tc.seed, tc.die, tc.calibrated)
		if !ok {
			// Undetected, the die would pass without being read.
			t.Errorf("still %d die %d: not detected", tc.seed, tc.die)
			continue
		}
		if d.Value != 0 && d.Value != g.Value {
			t.Errorf("still %d die %d: read %d (confidence %.2f), true face %d", tc.seed, tc.die, d.Value, d.Confidence, g.Value)
		}
	}
}

// TestClusterLookMatteo: the cluster look only where the die's own
// outline was found. matteo_webcam's four_50.jpg shows a 4 aslant, a side
// face's pips beside its own: on a rectangle without the outline the
// cluster map read them all as a clean 6 (matteo wrong 0.36% -> 0.48%,
// which the harness's 1% bar lets by). Every labelled die of the photo
// must read its label or stay unread.
func TestClusterLookMatteo(t *testing.T) {
	ps := loadPhotoSet(t, "matteo_webcam")
	r := NewReader(ReaderOptions{})
	defer r.Close()
	const name = "four_50.jpg"
	dets := readPhoto(t, r, ps, name)
	truth := ps.dice[name]
	pairs := matchBoxes(truth, dets, true)
	if len(pairs) == 0 {
		t.Fatalf("%s: no labelled die detected", name)
	}
	for _, p := range pairs {
		if d, g := dets[p[1]], truth[p[0]].value; d.Value != 0 && d.Value != g {
			t.Errorf("%s: label %d read %d (confidence %.2f)", name, g, d.Value, d.Confidence)
		}
	}
}

// TestClusterMapFlatColours: a face of two flat colours (a render
// without noise), its first inner pixel a pip's. Asked for more clusters
// than there are colours, the farthest-point seeding would seed the first
// feature again, a colour it already has, and two clusters would share
// the pip's centre: setClusterMap's ratio was then 0/0 and the map NaN.
// Every map clusterCands offers must be finite, and the pips found.
func TestClusterMapFlatColours(t *testing.T) {
	s := new(faceScratch)
	set := func(x, y int, v float64) {
		i := y*faceN + x
		s.patch[3*i], s.patch[3*i+1], s.patch[3*i+2] = v, v, v
	}
	for y := 0; y < faceN; y++ {
		for x := 0; x < faceN; x++ {
			set(x, y, 30)
		}
	}
	// Four 4x4 pips at the corners of a square, one on the first inner
	// pixel (faceMargin, faceMargin).
	lo, hi := faceMargin, faceN-faceMargin-4
	for _, p := range [][2]int{{lo, lo}, {hi, lo}, {lo, hi}, {hi, hi}} {
		for y := p[1]; y < p[1]+4; y++ {
			for x := p[0]; x < p[0]+4; x++ {
				set(x, y, 200)
			}
		}
	}
	tried := 0
	s.clusterCands(func(n, k, j, body int, cen *[clusterMaxK][3]float64) bool {
		tried++
		s.setClusterMap(k, j, body, cen)
		for i, v := range s.d {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("k %d cluster %d: map at %d is %v (centres %v)", k, j, i, v, cen[:k])
			}
		}
		return false
	})
	if tried == 0 {
		t.Fatal("no cluster tried")
	}
	if !s.pipClusterMap() {
		t.Fatal("pipClusterMap found no pip cluster")
	}
	if centres, _ := s.blobs(); len(centres) != 4 {
		t.Errorf("%d blobs on the map, want 4", len(centres))
	}
}

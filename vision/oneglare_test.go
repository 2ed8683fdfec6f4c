package vision

import "testing"

// TestGlarePeaks: glarePeaks leaves out of "pips around a 1" the marks
// lighter than the body and of another colour than the 1's pip (white
// glare beside a coloured pip, light glints beside a dark pip), and
// counts marks of the pip's own paint, dark marks beside a light "pip"
// (a glint taken for a 1 among a light die's dark pips) and marks beside
// no pip near the centre.
func TestGlarePeaks(t *testing.T) {
	paint := func(s *faceScratch, body [3]float64, marks map[[2]float64][3]float64) [][2]float64 {
		for i := 0; i < faceN*faceN; i++ {
			copy(s.patch[3*i:3*i+3], body[:])
		}
		s.med = body
		var pk [][2]float64
		for p, c := range marks {
			px, py := int((p[0]+0.5)*faceN), int((p[1]+0.5)*faceN)
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					copy(s.patch[3*((py+dy)*faceN+px+dx):], c[:])
				}
			}
			pk = append(pk, p)
		}
		return pk
	}
	red, dark, white, blue := [3]float64{60, 60, 170}, [3]float64{20, 15, 30}, [3]float64{200, 205, 210}, [3]float64{150, 100, 40}
	centre := [2]float64{0.02, -0.03}
	cases := []struct {
		name  string
		body  [3]float64
		marks map[[2]float64][3]float64
		want  int
	}{
		{"white glare beside a red pip", [3]float64{50, 55, 70},
			map[[2]float64][3]float64{centre: red, {-0.3, -0.3}: white, {0.3, 0.25}: white}, 2},
		{"light glints beside a dark pip", [3]float64{70, 55, 35},
			map[[2]float64][3]float64{centre: dark, {-0.25, 0}: blue, {0.28, 0.1}: blue}, 2},
		{"pips of the 1's paint: a 5", [3]float64{50, 55, 70},
			map[[2]float64][3]float64{centre: red, {-0.2, -0.2}: red, {0.2, 0.2}: red, {0.2, -0.2}: red}, 0},
		{"white pips beside a white pip", [3]float64{60, 60, 170},
			map[[2]float64][3]float64{centre: white, {-0.2, -0.2}: white, {0.2, 0.2}: white}, 0},
		{"dark pips beside a light glint", [3]float64{45, 70, 90},
			map[[2]float64][3]float64{centre: white, {-0.2, -0.2}: dark, {0.2, 0.2}: dark}, 0},
		{"red marks beside a white glint on a dark body", [3]float64{20, 20, 40},
			map[[2]float64][3]float64{centre: white, {-0.2, -0.2}: red, {0.2, 0.2}: red}, 0},
		{"no pip near the centre", [3]float64{50, 55, 70},
			map[[2]float64][3]float64{{0.2, 0}: red, {-0.3, -0.3}: white, {0.3, 0.25}: white}, 0},
	}
	var s faceScratch
	for _, c := range cases {
		pk := paint(&s, c.body, c.marks)
		if got := s.glarePeaks(pk); got != c.want {
			t.Errorf("%s: %d glare marks, want %d", c.name, got, c.want)
		}
	}
}

// TestOneGlarePhotos: byler_d6 1s on dark bodies whose glints around the
// pip (two or three pip-map peaks) withheld them under "pips around a 1"
// are read with glarePeaks and unread without it; a 4 whose light
// "pip" in the middle is a glint among pips of that glint's colour is
// not read as a 1 either way.
func TestOneGlarePhotos(t *testing.T) {
	if testing.Short() {
		t.Skip("reads byler photos")
	}
	read := bylerHeldOutRead(t)
	defer func(off bool) { oneGlareOff = off }(oneGlareOff)
	checkLookReads(t, read, "glarePeaks", func(off bool) { oneGlareOff = off }, true, []lookDie{
		// A dark red 1: white glints at two corners and at the rim.
		{"IMG_20191208_111434.jpg", 11, 1},
		// A dark 1 on a blue marbled body: lighter glints either side.
		{"IMG_20191208_111548.jpg", 15, 1},
	})
	if v := read("IMG_20191209_100253.jpg", 3); v == 1 {
		t.Errorf("IMG_20191209_100253.jpg die 3 (a 4): read 1")
	}
}

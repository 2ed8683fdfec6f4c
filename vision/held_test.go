package vision

import "testing"

// TestHeldStills reads the generated stills where giveHeld without one
// of its conditions gave a die a wrong value: without the flatness
// condition (calibrated, seed 93 die 3, a cocked die: a 1 for its 2,
// read on part of the face) and without the one on a large non-pip blob
// (uncalibrated, seed 2503 die 9, a blurred die: a 3 for its 6). Each
// must read right or stay unread. (Still 807 of TestCalibratedWrongStills
// needs the short side measured.)
func TestHeldStills(t *testing.T) {
	cases := []struct {
		seed       int64
		die        int
		calibrated bool
	}{{93, 3, true}, {2503, 9, false}}
	for _, tc := range cases {
		g, d, ok := readStillDie(t, tc.seed, tc.die, tc.calibrated)
		if !ok {
			t.Logf("still %d die %d: not detected", tc.seed, tc.die)
			continue
		}
		if d.Value != 0 && d.Value != g.Value {
			t.Errorf("still %d die %d: read %d (confidence %.2f), true face %d", tc.seed, tc.die, d.Value, d.Confidence, g.Value)
		}
	}
}

// TestHeldShrunkFaces checks giveHeld on byler_d6. A face read below
// shrunkConfidence but as large as the frame's other faces (its short
// side) must be given (unread without giveHeld). Faces read from part of
// a larger face, smaller than the frame's faces, must not be (a 6 as a 4
// three times, a 3 as a 2); with a cut of 0.6 the three 6s are given 4.
func TestHeldShrunkFaces(t *testing.T) {
	checkLabels(t, []labelCase{
		{"IMG_20191209_100229.jpg", 5, true},
		{"IMG_20191208_111352.jpg", 9, false},
		{"IMG_20191208_111548.jpg", 14, false},
		{"IMG_20191208_111816.jpg", 0, false},
		{"IMG_20191209_095910.jpg", 0, false},
	})
}

// labelCase is a byler_d6 labelled die a test looks at.
type labelCase struct {
	image string
	label int  // index among the image's labelled dice
	read  bool // the label's value must be read (else: value or unread)
}

// checkLabels reads each case's byler_d6 image and checks its labelled
// die.
func checkLabels(t *testing.T, cases []labelCase) {
	t.Helper()
	checkLabelsIn(t, loadPhotoSet(t, "byler_d6"), cases)
}

// checkLabelsIn reads each case's image of ps (one reader for them all)
// and checks its labelled die: detected, and read as labelled (read) or
// unread.
func checkLabelsIn(t *testing.T, ps photoSet, cases []labelCase) {
	t.Helper()
	r := NewReader(ReaderOptions{})
	defer r.Close()
	for _, tc := range cases {
		img := photoImage(t, ps, tc.image)
		dets, err := r.Read(img)
		img.Close()
		if err != nil {
			t.Fatal(err)
		}
		truth := ps.dice[tc.image]
		g := truth[tc.label]
		got, conf, found := 0, 0.0, false
		for _, p := range match(truth, dets) {
			if p[0] == tc.label {
				got, conf, found = dets[p[1]].Value, dets[p[1]].Confidence, true
			}
		}
		switch {
		case !found:
			t.Errorf("%s label %d (a %d): not detected", tc.image, tc.label, g.value)
		case tc.read && got != g.value:
			t.Errorf("%s label %d: read %d (confidence %.2f), want %d", tc.image, tc.label, got, conf, g.value)
		case got != 0 && got != g.value:
			t.Errorf("%s label %d: read %d (confidence %.2f), want %d or unreadable", tc.image, tc.label, got, conf, g.value)
		}
	}
}

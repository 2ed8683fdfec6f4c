package vision

import (
	"os"
	"testing"

	"github.com/dicewatch/dicewatch/vision/scene"
)

// TestTmplNetLook reads the byler_d6 dice tmplNetLook and oneNetLook give
// (read with the fold nets, as TestAccuracyPhotos): each reads its label
// with the looks on and is unread with them off.
func TestTmplNetLook(t *testing.T) {
	if testing.Short() {
		t.Skip("reads byler photos")
	}
	read := bylerHeldOutRead(t)
	checkLookReads(t, read, "tmplNetLook", func(off bool) { tmplNetOff, oneNetOff = off, off }, true, []lookDie{
		// A 2 whose blobs cue found one pip, the template and the net
		// (on both patches) reading 2.
		{"IMG_20191208_112353.jpg", 8, 2},
		// A 1 on a dark red body, both cues reading 1 at low
		// confidence, the net reading 1 by 0.63 and 0.50.
		{"IMG_20191208_112305.jpg", 1, 1},
	})
}

// TestTmplNetDiag lists every value tmplNetLook and oneNetLook give on
// both photo sets (photoLookDiag). A tuning tool: skipped without
// DICEWATCH_TMPLNET_DIAG (a file).
func TestTmplNetDiag(t *testing.T) {
	f := diagFile(t, "DICEWATCH_TMPLNET_DIAG")
	photoLookDiag(t, f, func(fn func(d *Detection, fv faceValue)) { tmplNetTrace = fn })
}

// TestTmplNetStills lists every value tmplNetLook and oneNetLook give on
// the stills (stillLookDiag). A tuning tool: skipped without
// DICEWATCH_TMPLNET_STILLS (a file); DICEWATCH_TMPLNET_PNG (a directory)
// also saves each still where they gave a value.
func TestTmplNetStills(t *testing.T) {
	f := diagFile(t, "DICEWATCH_TMPLNET_STILLS")
	n := stillLookDiag(t, f, os.Getenv("DICEWATCH_TMPLNET_PNG"), func(fn func(d *Detection, fv faceValue)) { tmplNetTrace = fn })
	t.Logf("%d values from tmplNetLook and oneNetLook", n)
}

// TestTmplNetGuards reads the pictures each guard of tmplNetLook and
// oneNetLook was chosen on, where a version without it gave a wrong value,
// and fails if either look gives a value there: byler_d6 111913 (a 4 on a
// marbled blue body, read 1 by the net below oneNetMargin; read with its
// fold net), matteo_webcam five_40 (a keyboard key the template read as a
// 2 at a score of 0; nccScore), two_47 (a blurred 2 cut by the bottom
// edge, its one pip off the face's centre; pipCentred) and generated still
// 30448 read without a size (the hole in a printed P read as a 1;
// pipSmall). With oneNetMargin 0 or without wholeFaceIn it still passes:
// the other tests keep those pictures out as well.
func TestTmplNetGuards(t *testing.T) {
	if testing.Short() {
		t.Skip("reads photos")
	}
	n := 0
	tmplNetTrace = func(*Detection, faceValue) { n++ }
	defer func() { tmplNetTrace = nil }()
	for _, c := range []struct{ set, image string }{
		{"byler_d6", "IMG_20191208_111913.jpg"},
		{"matteo_webcam", "five_40.jpg"},
		{"matteo_webcam", "two_47.jpg"},
	} {
		ps := loadPhotoSet(t, c.set)
		r := NewReader(ReaderOptions{})
		if netOf := heldOutNets(t, c.set, r); netOf != nil {
			r.net = netOf[c.image]
		}
		n = 0
		readPhoto(t, r, ps, c.image)
		r.Close()
		if n > 0 {
			t.Errorf("%s/%s: %d values from tmplNetLook or oneNetLook, want none", c.set, c.image, n)
		}
	}
	img, _, err := scene.Still(30448, scene.StillOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer img.Close()
	r := NewReader(ReaderOptions{})
	defer r.Close()
	n = 0
	if _, err := r.Read(img); err != nil {
		t.Fatal(err)
	}
	if n > 0 {
		t.Errorf("still 30448 (plain): %d values from tmplNetLook or oneNetLook, want none", n)
	}
}

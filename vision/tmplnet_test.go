package vision

import (
	"os"
	"testing"
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

package vision

import "testing"

// TestUnreadGateRules reads the byler_d6 dice each of session 14's gate
// rules gives (each image with the fold net that never saw it, as
// TestAccuracyPhotos reads them): each must read its label with the rule
// and not without it.
func TestUnreadGateRules(t *testing.T) {
	if testing.Short() {
		t.Skip("reads byler photos")
	}
	cases := []struct {
		rule  string
		on    *bool
		image string
		idx   int // the die's row among the image's labels
		value int
	}{
		// Green marbled 2s the veto held for a larger face's layout
		// around them.
		{"netTwoVeto", &netTwoVeto, "IMG_20191209_095948.jpg", 0, 2},
		{"netTwoVeto", &netTwoVeto, "IMG_20191209_100006.jpg", 0, 2},
		// A blue 4 held for a shrunk face.
		{"netHeldShrunk", &netHeldShrunk, "IMG_20191209_100514.jpg", 0, 4},
		// A 6 whose blobs fit a 4, its template a 6.
		{"netPipsLost", &netPipsLost, "IMG_20191209_095604.jpg", 0, 6},
	}
	read := bylerHeldOutRead(t)
	// Back on however the test ends (read fails the test at once).
	defer func() {
		netTwoVeto, netHeldShrunk, netPipsLost, sepLookOff, mapsAgreeLookOff = true, true, true, false, false
	}()
	for _, c := range cases {
		// sepLook (the separated pips' layout with the net) and
		// mapsAgreeLook (the pip maps' layouts without it) read some of
		// these dice too: they are off while each rule is.
		setOff := func(off bool) { *c.on, sepLookOff, mapsAgreeLookOff = !off, off, off }
		checkLookReads(t, read, c.rule, setOff, false, []lookDie{{c.image, c.idx, c.value}})
	}
}

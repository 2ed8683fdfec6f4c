package vision

import "testing"

// TestEarlyCockLook reads byler dice whose footprint is under MinFlatness
// (a side face or the tray's wall beside the top face) and that the
// cocked nets call flat: sepLook reads them once earlyCockLook marks
// them, and leaves them unread without it.
func TestEarlyCockLook(t *testing.T) {
	if testing.Short() {
		t.Skip("reads byler photos")
	}
	cases := []struct {
		image string
		idx   int // the die's row among the image's labels
		value int
	}{
		// A brown marbled 3 whose side face, pips and all, shows below
		// its top: footprint 0.799.
		{"IMG_20191208_112942.jpg", 5, 3},
		// A blue and black marbled 5 by the tray's wall: footprint 0.77.
		{"IMG_20191208_111411.jpg", 13, 5},
	}
	read := bylerHeldOutRead(t)
	// On, whatever DICEWATCH_NO_EARLYCOCK says, and as it was after.
	defer func(off bool) { earlyCockOff = off }(earlyCockOff)
	earlyCockOff = false
	for _, c := range cases {
		if v := read(c.image, c.idx); v != c.value {
			t.Errorf("%s die %d: read %d, want %d", c.image, c.idx, v, c.value)
		}
		earlyCockOff = true
		v := read(c.image, c.idx)
		earlyCockOff = false
		if v != 0 {
			t.Errorf("%s die %d: read %d without earlyCockLook, want unread", c.image, c.idx, v)
		}
	}
}

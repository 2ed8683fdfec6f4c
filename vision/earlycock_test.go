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
	read := bylerHeldOutRead(t)
	// On, whatever DICEWATCH_NO_EARLYCOCK says, and as it was after.
	defer func(off bool) { earlyCockOff = off }(earlyCockOff)
	checkLookReads(t, read, "earlyCockLook", func(off bool) { earlyCockOff = off }, true, []lookDie{
		// A brown marbled 3 whose side face, pips and all, shows below
		// its top: footprint 0.799.
		{"IMG_20191208_112942.jpg", 5, 3},
		// A blue and black marbled 5 by the tray's wall: footprint 0.77.
		{"IMG_20191208_111411.jpg", 13, 5},
	})
}

package vision

import "testing"

// TestHueLook reads the byler dice hueLook gives (the first look held
// them for no layout) and checks that each reads its label with the look
// and is left unread without it.
func TestHueLook(t *testing.T) {
	if testing.Short() {
		t.Skip("reads byler photos")
	}
	read := bylerHeldOutRead(t)
	checkLookReads(t, read, "hueLook", func(off bool) { hueLookOff = off }, true, []lookDie{
		// The separated maxima's layout and the template agree on both
		// hue maps.
		{"IMG_20191208_112857.jpg", 0, 4},
		{"IMG_20191209_095859.jpg", 0, 2},
		// The lattice spots: the hue and redness maps read a 3, the
		// colour distance its diagonal's two pips.
		{"IMG_20191208_111803.jpg", 0, 3},
	})
}

// TestHueSpotVote checks hueSpotVote's rule on made-up spot reads: both
// hue maps must read the value clearly, a brightness map may read a face
// whose pips it holds but no other, and the template must agree.
func TestHueSpotVote(t *testing.T) {
	clearRead := func(v, tv int) spotRead {
		return spotRead{value: v, margin: 40, contrast: 50, next: 0, tv: tv, tBest: 0.5, tNext: 0.3}
	}
	var none spotRead
	cases := []struct {
		name string
		rs   [5]spotRead
		want int
	}{
		{"both hue maps, template", [5]spotRead{none, clearRead(3, 3), clearRead(3, 0), none, none}, 3},
		{"colour distance a subset", [5]spotRead{clearRead(2, 0), clearRead(3, 3), clearRead(3, 0), none, none}, 3},
		{"colour distance another face", [5]spotRead{clearRead(4, 0), clearRead(3, 3), clearRead(3, 0), none, none}, 0},
		{"one hue map", [5]spotRead{none, clearRead(3, 3), none, none, none}, 0},
		{"hue maps differ", [5]spotRead{none, clearRead(5, 5), clearRead(3, 0), none, none}, 0},
		{"no template", [5]spotRead{none, clearRead(3, 0), clearRead(3, 0), none, none}, 0},
		{"a 2", [5]spotRead{none, clearRead(2, 2), clearRead(2, 2), none, none}, 0},
	}
	for _, c := range cases {
		if got := hueSpotVote(c.rs); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}

package vision

import "testing"

// TestMapsAgreeLook reads byler dice that mapsAgreeLook gives (the
// separated maxima's layout on the pip maps, in the face rectangle and
// in the frame-size square, agreeing with the first look's layout and
// template) and checks that each reads its label with the look and not
// without it; those it gives past the veto must not read without its own
// veto either.
func TestMapsAgreeLook(t *testing.T) {
	if testing.Short() {
		t.Skip("reads byler photos")
	}
	cases := []struct {
		image   string
		idx     int // the die's row among the image's labels
		value   int
		ownVeto bool // given only past the veto
	}{
		// A dark marbled 1: the hue map's lone centred maximum in both
		// geometries, the veto passed.
		{"IMG_20191208_111803.jpg", 2, 1, false},
		// 1s and a 2 whose colour distance map holds peaks around the
		// pips (the veto's), the other maps the lone face.
		{"IMG_20191208_111628.jpg", 15, 1, true},
		{"IMG_20191208_112305.jpg", 9, 1, true},
		{"IMG_20191208_112920.jpg", 7, 2, true},
		// A 1 whose maps' maxima in the frame-size square fit it with
		// layout scores 0.36 and just under 0.5: read with
		// mapsAgreeMinScore 0.3, not with 0.5.
		{"IMG_20191208_113004.jpg", 7, 1, false},
	}
	read := bylerHeldOutRead(t)
	defer func() { mapsAgreeLookOff, mapsAgreeOwnVeto = false, true }()
	for _, c := range cases {
		if v := read(c.image, c.idx); v != c.value {
			t.Errorf("%s die %d: read %d, want %d", c.image, c.idx, v, c.value)
		}
		mapsAgreeLookOff = true
		v := read(c.image, c.idx)
		mapsAgreeLookOff = false
		if v == c.value {
			t.Errorf("%s die %d: read %d without mapsAgreeLook too", c.image, c.idx, v)
		}
		if !c.ownVeto {
			continue
		}
		mapsAgreeOwnVeto = false
		v = read(c.image, c.idx)
		mapsAgreeOwnVeto = true
		if v == c.value {
			t.Errorf("%s die %d: read %d without mapsAgreeLook's own veto too", c.image, c.idx, v)
		}
	}
}

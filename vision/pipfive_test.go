package vision

import "testing"

// TestFiveEmptySpots checks the 5 read past emptySpots' usual cut on
// byler_d6: large pips on a blue marbled body (IMG_20191209_100232) and
// a purple one (IMG_20191209_100300) answer at a 5's empty places,
// midway between two corner pips, and were unread. A 4 whose rectangle
// took in a neighbour's pip at its centre fits five blobs to a 5 with the
// template agreeing only weakly (IMG_20191209_100242): it must not read 5.
func TestFiveEmptySpots(t *testing.T) {
	checkLabels(t, []labelCase{
		{"IMG_20191209_100232.jpg", 5, true},
		{"IMG_20191209_100300.jpg", 3, true},
		{"IMG_20191209_100242.jpg", 3, false},
	})
}

// TestLaterLookSubset checks that a first look's value below the usual
// confidence does not veto a later look (darkness or redness) that reads
// a face holding the first look's pips: a 5 on a dark body whose centre
// pip alone read as a 1 (IMG_20191209_095910), a 4 on a blue one
// (IMG_20191208_111246).
func TestLaterLookSubset(t *testing.T) {
	checkLabels(t, []labelCase{
		{"IMG_20191209_095910.jpg", 1, true},
		{"IMG_20191208_111246.jpg", 9, true},
	})
}

// TestPipSubset checks the table of faces whose pips hold another's.
func TestPipSubset(t *testing.T) {
	want := map[[2]int]bool{
		{1, 3}: true, {1, 5}: true,
		{2, 3}: true, {2, 4}: true, {2, 5}: true, {2, 6}: true,
		{3, 5}: true,
		{4, 5}: true, {4, 6}: true,
	}
	for a := 1; a <= 6; a++ {
		for b := 1; b <= 6; b++ {
			if got := pipSubset(a, b); got != want[[2]int{a, b}] {
				t.Errorf("pipSubset(%d, %d) = %v", a, b, got)
			}
		}
	}
}

// TestWholeHeld checks giveHeld on a 5 or a 6 with a blob at every pip
// (both cues agreeing) in a face much smaller than its region: held for
// its confidence, it is given whatever the frame's other faces measure,
// as no face holds its pips and more (IMG_20191208_112005: a 5 on a face
// of 16 px in a region of 28; IMG_20191208_112447: a 6).
func TestWholeHeld(t *testing.T) {
	checkLabels(t, []labelCase{
		{"IMG_20191208_112005.jpg", 4, true},
		{"IMG_20191208_112447.jpg", 1, true},
	})
}

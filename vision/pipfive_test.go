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

package vision

import "testing"

// TestCentrePipOff paints a blue face with two yellow corner pips and a
// middle spot of the pips' yellow or of a white vein, and checks that
// centrePipOff passes the first and withholds the second, and that it
// measures nothing on a value other than 3.
func TestCentrePipOff(t *testing.T) {
	const n = 60
	body := [3]float64{160, 80, 30}
	yellow := [3]float64{40, 200, 230}
	white := [3]float64{230, 230, 230}
	paint := func(mid [3]float64) bgrImage {
		fr := bgrImage{pix: make([]uint8, 3*n*n), w: n, h: n}
		for i := 0; i < n*n; i++ {
			for ch := 0; ch < 3; ch++ {
				fr.pix[3*i+ch] = uint8(body[ch])
			}
		}
		spot := func(cx, cy int, col [3]float64) {
			for y := cy - 3; y <= cy+3; y++ {
				for x := cx - 3; x <= cx+3; x++ {
					for ch := 0; ch < 3; ch++ {
						fr.pix[3*(y*n+x)+ch] = uint8(col[ch])
					}
				}
			}
		}
		spot(15, 15, yellow)
		spot(45, 45, yellow)
		spot(30, 30, mid)
		return fr
	}
	fv := faceValue{value: 3, pipRing: 3, body: body}
	// The middle pip listed first, so the test does not rest on the order.
	fv.pips[0] = [3]float64{30, 30, 3}
	fv.pips[1] = [3]float64{15, 15, 3}
	fv.pips[2] = [3]float64{45, 45, 3}
	if got := centrePipOff(paint(yellow), fv); got > 0.05 {
		t.Errorf("three yellow pips: centrePipOff %.3f, want about 0", got)
	}
	got := centrePipOff(paint(white), fv)
	if got <= maxCentreOff {
		t.Errorf("white middle spot: centrePipOff %.3f, want over %.2f", got, maxCentreOff)
	}
	fv.value = 2
	if got := centrePipOff(paint(white), fv); got != 0 {
		t.Errorf("a 2: centrePipOff %.3f, want 0 (not measured)", got)
	}
}

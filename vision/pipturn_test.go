package vision

import (
	"math"
	"testing"

	"gocv.io/x/gocv"
)

// synthFace renders one casino die (drawTable) of edge e, turned by
// angle, centred at (cx, cy), showing value. The caller closes the Mat.
func synthFace(t *testing.T, cx, cy, e, angle float64, value int) (gocv.Mat, bgrImage) {
	t.Helper()
	m := drawTable(96, 96, []synthDie{{cx: cx, cy: cy, edge: e, angle: angle, value: value}}, 5)
	pix, err := m.DataPtrUint8()
	if err != nil {
		m.Close()
		t.Fatal(err)
	}
	return m, bgrImage{pix: pix, w: m.Cols(), h: m.Rows()}
}

func TestPipTurn(t *testing.T) {
	templatesOnce.Do(buildTemplates)
	permsOnce.Do(buildPerms)
	// The face turned an eighth of a turn from the rectangle: its 3's
	// diagonal runs along the rectangle's x axis. The rectangle is also
	// a little off the face.
	const cx, cy, e = 48.0, 48.0, 40.0
	m, fr := synthFace(t, cx, cy, e, math.Pi/4, 3)
	defer m.Close()
	var s faceScratch
	c := candidate{cx: cx + 2, cy: cy - 1.5, w: e, h: e, edge: e, angle: 0}
	cts := s.pipTurn(fr, c)
	if len(cts) == 0 {
		t.Fatal("pipTurn: no turn for a 3 lying along the rectangle's axis")
	}
	// The nearest to the face's centre of the rectangles to read.
	ct := cts[0]
	for _, r := range cts {
		if math.Hypot(r.cx-cx, r.cy-cy) < math.Hypot(ct.cx-cx, ct.cy-cy) {
			ct = r
		}
	}
	// The diagonal on the patch's diagonal: the face's own turn, modulo
	// a quarter turn.
	if d := math.Abs(math.Remainder(ct.angle-math.Pi/4, math.Pi/2)); d > 0.06 {
		t.Errorf("turned to %.1f deg, want 45 (mod 90)", ct.angle*180/math.Pi)
	}
	if d := math.Hypot(ct.cx-cx, ct.cy-cy); d > 1.5 {
		t.Errorf("centred at (%.1f, %.1f), %.1f px from the face's centre", ct.cx, ct.cy, d)
	}
	if fv := s.read1(fr, ct); fv.value != 3 {
		t.Errorf("turned rectangle reads %d (conf %.2f), want 3", fv.value, fv.conf)
	}
	// The reader as a whole: no look before the turned one reads it.
	if fv := s.read(fr, c); fv.value != 3 || fv.conf < retryBelow {
		t.Errorf("read gives %d (conf %.2f), want 3", fv.value, fv.conf)
	}

	// Already on the diagonal: nothing to turn.
	m2, fr := synthFace(t, cx, cy, e, 0, 3)
	defer m2.Close()
	if cts := s.pipTurn(fr, candidate{cx: cx, cy: cy, w: e, h: e, edge: e}); len(cts) > 0 {
		t.Error("pipTurn turned a rectangle already on the 3's axes")
	}
	// Four pips make no row.
	m3, fr := synthFace(t, cx, cy, e, math.Pi/4, 4)
	defer m3.Close()
	if cts := s.pipTurn(fr, candidate{cx: cx, cy: cy, w: e, h: e, edge: e}); len(cts) > 0 {
		t.Error("pipTurn turned to a 4's pips")
	}
}

func TestSquareLook(t *testing.T) {
	templatesOnce.Do(buildTemplates)
	permsOnce.Do(buildPerms)
	const cx, cy, e = 48.0, 48.0, 40.0
	// A 6 whose columns of three run along y; the rectangle holds only
	// two of its three rows (cut short at the bottom).
	m, fr := synthFace(t, cx, cy, e, 0, 6)
	defer m.Close()
	var s faceScratch
	c := candidate{cx: cx, cy: cy - e/6, w: e, h: e * 2 / 3, edge: e * 5 / 6}
	f, ok := s.squareLook(fr, c)
	if !ok || f.value != 6 {
		t.Fatalf("squareLook: value %d ok %v, want 6", f.value, ok)
	}
	if f.conf > secondLookMaxConf {
		t.Errorf("conf %.2f above the second look's cap", f.conf)
	}
	// A 4 seen whole, in the same narrow rectangle: no 6 from either end.
	m2, fr := synthFace(t, cx, cy, e, 0, 4)
	defer m2.Close()
	if f, ok := s.squareLook(fr, c); ok {
		t.Errorf("squareLook read %d on a 4", f.value)
	}
}

// TestSquareLookGivenFour reads a byler_d6 marbled 6 that a later look
// read as a 4 at 0.85 on a face rectangle 0.80 as wide as long (a row of
// the 6 outside it): a 4 given on a rectangle that far from square is
// looked at again in squares stretched towards either end, where the 6
// reads. Without that, the die is a wrong value.
func TestSquareLookGivenFour(t *testing.T) {
	ps := loadPhotoSet(t, "byler_d6")
	readBylerLabels(t, ps, []bylerLabel{{"IMG_20191208_112536.jpg", 0}})
}

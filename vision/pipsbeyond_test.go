package vision

import (
	"math"
	"testing"
)

// TestBeyondPips: a 5 read whole shows no pips past its corners; the same
// 5's centre pip and two neighbouring corners taken as a 4 (its fourth
// pip a mark off the face, as on generated still 84838) show the 5's two
// other corners one side past the 4's corners.
func TestBeyondPips(t *testing.T) {
	templatesOnce.Do(buildTemplates)
	permsOnce.Do(buildPerms)
	const cx, cy, e = 48.0, 48.0, 36.0
	for _, angle := range []float64{0, math.Pi / 4, 0.3} {
		m, fr := synthFace(t, cx, cy, e, angle, 5)
		var s faceScratch
		fv := s.read(fr, candidate{cx: cx, cy: cy, w: e, h: e, edge: e, angle: angle})
		if fv.value != 5 {
			m.Close()
			t.Fatalf("turned %.2f: the face reads %d, want 5", angle, fv.value)
		}
		if n := beyondPips(fr, &fv.pips, 5, fv.body); n != 0 {
			t.Errorf("turned %.2f: a whole 5 shows %d pips past its corners, want 0", angle, n)
		}
		// The centre pip and the corners nearest to it in turn.
		var mid [3]float64
		var corners [][3]float64
		for _, p := range fv.pips {
			if p[2] <= 0 {
				continue
			}
			if math.Hypot(p[0]-cx, p[1]-cy) < 0.1*e {
				mid = p
			} else {
				corners = append(corners, p)
			}
		}
		if mid[2] == 0 || len(corners) != 4 {
			m.Close()
			t.Fatalf("turned %.2f: pips %v, want a centre and four corners", angle, fv.pips)
		}
		a := corners[0]
		// A corner next to a (not across the face from it).
		b := corners[1]
		for _, q := range corners[1:] {
			if math.Hypot(q[0]-a[0], q[1]-a[1]) < math.Hypot(b[0]-a[0], b[1]-a[1]) {
				b = q
			}
		}
		far := [3]float64{a[0] + b[0] - mid[0], a[1] + b[1] - mid[1], mid[2]}
		four := [6][3]float64{mid, a, far, b}
		if n := beyondPips(fr, &four, 4, fv.body); n < minBeyond {
			t.Errorf("turned %.2f: a 4 taken on part of a 5 shows %d pips past its corners, want %d or more", angle, n, minBeyond)
		}
		m.Close()
	}
}

// TestBeyondLook: beyondLook withholds a 5 with two pips past its corners
// whose face is 1.2 times or more the pips' size, and nothing else: not
// fewer pips past, a face agreeing with the pips, another value than the
// one beyondPips measured, nor a size ratio that is the face's own
// (without a pip spread); it gives no value.
func TestBeyondLook(t *testing.T) {
	r := &Reader{opts: ReaderOptions{DiePx: 20}}
	base := Detection{Value: 5, Confidence: 1, EdgePx: 24.4, SizeRatio: 0.92, beyond: 2, beyondOf: 5}
	cases := []struct {
		name string
		edit func(d *Detection)
		held bool
	}{
		{"pips past, face 1.33 times the pips", func(*Detection) {}, true},
		{"one pip past", func(d *Detection) { d.beyond = 1 }, false},
		{"face as the pips (1.1 times)", func(d *Detection) { d.EdgePx = 20.2 }, false},
		{"value other than the one measured", func(d *Detection) { d.Value = 4 }, false},
		{"size ratio the face's own", func(d *Detection) { d.SizeRatio = d.EdgePx / 20 }, false},
		{"unread", func(d *Detection) { d.Value, d.Confidence = 0, 0 }, false},
	}
	for _, c := range cases {
		d := base
		c.edit(&d)
		was := d.Value
		dets := []Detection{d}
		r.beyondLook(dets)
		switch {
		case c.held && dets[0].Value != 0:
			t.Errorf("%s: value %d kept, want withheld", c.name, dets[0].Value)
		case !c.held && dets[0].Value != was:
			t.Errorf("%s: value %d -> %d, want unchanged", c.name, was, dets[0].Value)
		}
	}
}

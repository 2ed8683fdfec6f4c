package vision

import (
	"math"
	"testing"
)

// TestLatticeAspect checks the view's undoing on lattices drawn as the
// stills draw them: a flat die's lattice seen c degrees off vertical is
// shortened by cos c up the picture; undone, it is square whatever its
// turn. A die cocked by a more is shortened along its lean as well.
func TestLatticeAspect(t *testing.T) {
	rad := math.Pi / 180
	up := func(c float64) [2]float64 { return [2]float64{0, -math.Sin(c * rad)} }
	// The lattice of a face whose reaches on the table are ra (along
	// the turn phi) and rb (across it), seen through the view up(c):
	// the picture squeezes y by cos c.
	seen := func(ra, rb, phi, c float64) (lattice, float64) {
		k := math.Cos(c * rad)
		a := [2]float64{ra * math.Cos(phi), ra * math.Sin(phi) * k}
		b := [2]float64{-rb * math.Sin(phi), rb * math.Cos(phi) * k}
		tt := a[0]*a[0] + a[1]*a[1] + b[0]*b[0] + b[1]*b[1]
		d := math.Abs(a[0]*b[1] - a[1]*b[0])
		r := math.Sqrt(math.Max(tt*tt-4*d*d, 0))
		hi, lo := math.Sqrt((tt+r)/2), math.Sqrt(math.Max((tt-r)/2, 0))
		// The shortest reach's direction: the eigenvector of
		// [a b][a b]^T for its smaller eigenvalue.
		m00 := a[0]*a[0] + b[0]*b[0]
		m01 := a[0]*a[1] + b[0]*b[1]
		m11 := a[1]*a[1] + b[1]*b[1]
		ang := 0.5*math.Atan2(2*m01, m00-m11) + math.Pi/2
		// Measured in a face rectangle turned 0.3 radians.
		return lattice{major: hi, minor: lo, minorAng: ang - 0.3}, 0.3
	}
	for _, tc := range []struct {
		name          string
		ra, rb, phi   float64
		cam           float64
		lo, hi        float64
		rawLo, rawMax float64
	}{
		{"flat, straight", 10, 10, 0.4, 0, 0.999, 1.001, 0.999, 1.001},
		{"flat, 30 deg view, turned", 10, 10, 0.7, 30, 0.999, 1.001, 0.86, 0.87},
		{"flat, 35 deg view, square on", 10, 10, 0, 35, 0.999, 1.001, 0.81, 0.82},
		{"cocked 30 deg, straight", 10 * math.Cos(30*rad), 10, 1.1, 0, 0.865, 0.867, 0.865, 0.867},
		{"cocked 30 deg, 25 deg view", 10 * math.Cos(30*rad), 10, 0.5, 25, 0.865, 0.867, 0, 1},
	} {
		l, ang := seen(tc.ra, tc.rb, tc.phi, tc.cam)
		got := latticeAspect(l, ang, up(tc.cam))
		raw := l.minor / l.major
		if got < tc.lo || got > tc.hi {
			t.Errorf("%s: aspect %.4f, want %.3f..%.3f", tc.name, got, tc.lo, tc.hi)
		}
		if raw < tc.rawLo || raw > tc.rawMax {
			t.Errorf("%s: raw aspect %.4f, want %.3f..%.3f", tc.name, raw, tc.rawLo, tc.rawMax)
		}
	}
}

// TestViewCocked checks when viewCocked measures a die: a read 4, 5 or
// 6 with its lattice, under a view leaning straightView degrees or more.
func TestViewCocked(t *testing.T) {
	rad := math.Pi / 180
	leaning := func(x, y float64) [2]float64 { return [2]float64{0, -math.Sin(20 * rad)} }
	straight := func(x, y float64) [2]float64 { return [2]float64{} }
	unknown := func(x, y float64) [2]float64 { return [2]float64{math.NaN(), math.NaN()} }
	// A lattice seen through the 20-degree view, square on the table
	// (flat) or shortened by cos 35 across the view's squeeze (cocked).
	k := math.Cos(20 * rad)
	flat := lattice{major: 10, minor: 10 * k, minorAng: math.Pi / 2}
	cocked := lattice{major: 10 * k, minor: 10 * math.Cos(35*rad), minorAng: 0}
	die := func(v int, l lattice) Detection {
		return Detection{Value: v, reachValue: v, lat: l}
	}
	for _, tc := range []struct {
		name string
		up   func(x, y float64) [2]float64
		d    Detection
		want bool
	}{
		{"no view", nil, die(5, cocked), false},
		{"straight view", straight, die(5, cocked), false},
		{"view not known here", unknown, die(5, cocked), false},
		{"flat 5", leaning, die(5, flat), false},
		{"cocked 5", leaning, die(5, cocked), true},
		{"cocked 6", leaning, die(6, cocked), true},
		{"cocked 3: no lattice aspect", leaning, die(3, cocked), false},
		{"value not the lattice's", leaning, Detection{Value: 5, reachValue: 4, lat: cocked}, false},
		{"no minor reach", leaning, die(4, lattice{major: 10}), false},
	} {
		r := &Reader{opts: ReaderOptions{ViewUp: tc.up}}
		if got := r.viewCocked(tc.d); got != tc.want {
			t.Errorf("%s: viewCocked %v, want %v", tc.name, got, tc.want)
		}
	}
}

package vision

import (
	"image"
	"math"
	"math/rand"
	"testing"
)

// TestHullMinRectExact checks that minRect on hullBoundary's points is
// minRect on all the row extremes, to the bit, at both of minRect's
// steps, on random blobs, rotated squares and lines.
func TestHullMinRectExact(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	same := func(a, b candidate) bool {
		return math.Float64bits(a.cx) == math.Float64bits(b.cx) && math.Float64bits(a.cy) == math.Float64bits(b.cy) &&
			math.Float64bits(a.w) == math.Float64bits(b.w) && math.Float64bits(a.h) == math.Float64bits(b.h) &&
			math.Float64bits(a.angle) == math.Float64bits(b.angle)
	}
	fewer := 0
	for trial := 0; trial < 3000; trial++ {
		var pts []image.Point
		ox, oy := rng.Intn(600), rng.Intn(600)
		switch trial % 3 {
		case 0: // a turned square or rectangle, pixel centres inside
			w, h := 3+rng.Float64()*60, 3+rng.Float64()*60
			a := rng.Float64() * math.Pi
			co, si := math.Cos(a), math.Sin(a)
			r := int(w + h)
			for y := -r; y <= r; y++ {
				for x := -r; x <= r; x++ {
					u, v := float64(x)*co+float64(y)*si, -float64(x)*si+float64(y)*co
					if math.Abs(u) <= w/2 && math.Abs(v) <= h/2 {
						pts = append(pts, image.Pt(ox+x, oy+y))
					}
				}
			}
		case 1: // a random blob
			n := 1 + rng.Intn(400)
			x, y := ox, oy
			for i := 0; i < n; i++ {
				pts = append(pts, image.Pt(x, y))
				x += rng.Intn(3) - 1
				y += rng.Intn(3) - 1
			}
		default: // a line, diagonal or straight
			n := 1 + rng.Intn(100)
			dx, dy := rng.Intn(3)-1, rng.Intn(3)-1
			for i := 0; i < n; i++ {
				pts = append(pts, image.Pt(ox+i*dx, oy+i*dy))
			}
		}
		ext := rowExtremes(pts, nil)
		hull := hullBoundary(ext, nil)
		if len(hull) < len(ext) {
			fewer++
		}
		if got, want := minRect(hull, 2, rectOfCos[:], rectOfSin[:]), minRect(ext, 2, rectOfCos[:], rectOfSin[:]); !same(got, want) {
			t.Fatalf("trial %d, step 2: %+v, all points %+v", trial, got, want)
		}
		if got, want := minRect(hull, 1, silCos[:], silSin[:]), minRect(ext, 1, silCos[:], silSin[:]); !same(got, want) {
			t.Fatalf("trial %d, step 1: %+v, all points %+v", trial, got, want)
		}
		if got, want := rectOf(pts), minRect(ext, 2, rectOfCos[:], rectOfSin[:]); len(ext) <= 2*rectRows && !same(got, want) {
			t.Fatalf("trial %d: rectOf %+v, all points %+v", trial, got, want)
		}
	}
	if fewer < 1000 {
		t.Errorf("the hull left fewer points on only %d of 3000 shapes", fewer)
	}
}

// TestHullMargins backs hullBoundary's claim: at every turn minRect takes,
// a step (a, b) between pixels of up to 1300 either way projects (on the
// turn's cosine and sine, both ways) to exactly 0 or, away from 0 and 45
// degrees, to at least 1e-6: far above the 1e-12 a projection's rounding
// can reach in a frame.
func TestHullMargins(t *testing.T) {
	const B = 1300
	check := func(co, si float64, deg int) {
		for b := -B; b <= B; b++ {
			for _, dir := range [2][2]float64{{co, si}, {-si, co}} {
				// a*dir[0] + b*dir[1] is smallest near a = -b*dir[1]/dir[0].
				if dir[0] == 0 {
					continue
				}
				a0 := math.Floor(-float64(b) * dir[1] / dir[0])
				for a := a0 - 1; a <= a0+2; a++ {
					if math.Abs(a) > B || (a == 0 && b == 0) {
						continue
					}
					v := math.Abs(a*dir[0] + float64(b)*dir[1])
					if deg%45 == 0 && v < 1e-9 {
						continue // an exact tie, along a kept edge
					}
					if v < 1e-6 {
						t.Fatalf("%d deg: step (%v, %d) projects to %g", deg, a, b, v)
					}
				}
			}
		}
	}
	for deg := 0; deg < 90; deg++ {
		check(silCos[deg], silSin[deg], deg)
		if deg%2 == 0 {
			check(rectOfCos[deg/2], rectOfSin[deg/2], deg)
		}
	}
}

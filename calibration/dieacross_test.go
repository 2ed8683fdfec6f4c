package calibration

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDieAcrossPx checks the die edge across the line of sight against
// synthetic pinhole cameras: at every place it is the longest picture of
// a die edge lying on the table there, over the edge's turns (a degree
// apart); looking straight down it is DiePx; looking off vertical it is
// DiePx or more, but no more than what the edge along the line of sight
// loses.
func TestDieAcrossPx(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 23))
	for _, tilt := range []float64{0, 15, 30, 40} {
		p := pinhole{w: 1280, h: 720, f: 1100, tilt: tilt, yaw: 25, dst: 1000}
		c := p.calibrate(t, 0, rng)
		c.Die.EdgeMM = 19
		for i := 1; i < 8; i++ {
			for j := 1; j < 6; j++ {
				px := Point{float64(p.w) * float64(i) / 8, float64(p.h) * float64(j) / 6}
				m := p.unproject(px)
				want := 0.0
				for a := 0; a < 180; a++ {
					s, co := math.Sincos(float64(a) * math.Pi / 180)
					u, ok1 := p.project(m.X-9.5*co, m.Y-9.5*s)
					v, ok2 := p.project(m.X+9.5*co, m.Y+9.5*s)
					if !ok1 || !ok2 {
						t.Fatalf("tilt %g at %v: edge not seen", tilt, px)
					}
					want = math.Max(want, math.Hypot(v.X-u.X, v.Y-u.Y))
				}
				got, mean := c.DieAcrossPx(px), c.DiePx(px)
				if math.Abs(got/want-1) > 0.003 {
					t.Errorf("tilt %g at (%.0f, %.0f): %.3f px, the longest edge's %.3f", tilt, px.X, px.Y, got, want)
				}
				if tilt == 0 && math.Abs(got/mean-1) > 0.003 {
					t.Errorf("straight down at (%.0f, %.0f): %.3f px, DiePx %.3f", px.X, px.Y, got, mean)
				}
				// Off vertical by v degrees the edge along the line of
				// sight is foreshortened to about cos(v) of the edge
				// across: DiePx, the mean of the table's two axes, lies
				// between them.
				if v := p.trueTilt(px); got < mean*(1-1e-9) || mean < got*math.Cos(v*math.Pi/180)*0.97 {
					t.Errorf("tilt %g at (%.0f, %.0f), %.1f deg off vertical: across %.3f px, DiePx %.3f", tilt, px.X, px.Y, v, got, mean)
				}
			}
		}
	}
}

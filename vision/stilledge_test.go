package vision

import (
	"math"
	"testing"

	"github.com/dicewatch/dicewatch/vision/scene"
)

// TestStillEdgeAtTruth checks stillEdgeAt, the edge at each place the
// calibrated still read is given, against the dice the generator drew.
// Two measures of a die lying flat on its face do not depend on how it is
// spun, given its edge e in pixels at its place (times its true size
// ratio, for a die on another):
//
//   - its top face's box is e(|cos a|+|sin a|) wide for a spin a, so the
//     width over e lies in [1, sqrt 2] (less and more by the box's whole
//     pixels);
//   - the camera tilted by T sees the top face's centre 0.5 e sin T above
//     the die's centre on the table (the truth's CX, CY), so over the
//     tilted pictures that offset over 0.5 e sin T averages 1.
//
// The nominal edge fails both in the tilted pictures (the far side's dice
// are drawn smaller, the near side's larger); the test logs its figures
// beside the local edge's, and fails if the nominal edge passes too.
func TestStillEdgeAtTruth(t *testing.T) {
	n := 150
	if testing.Short() {
		n = 60
	}
	type tally struct {
		dice, outside     int
		lo, hi            float64
		offSum, offN      float64
		farLo, farHi      float64 // width ratio over the far third of tilted pictures
		farN              int
		nearSum, nearN    float64
		farSum, farRatioN float64
	}
	newT := func() *tally {
		return &tally{lo: math.Inf(1), hi: math.Inf(-1), farLo: math.Inf(1), farHi: math.Inf(-1)}
	}
	loc, nom := newT(), newT()
	for seed := int64(0); seed < int64(n); seed++ {
		_, tr, err := scene.StillJPEG(seed, scene.StillOptions{})
		if err != nil {
			t.Fatal(err)
		}
		at := stillEdgeAt(tr)
		for _, g := range tr.Dice {
			if !g.Flat || g.TiltDeg != 0 || g.MotionBlur {
				continue
			}
			w := float64(g.Box[2] - g.Box[0])
			cy := float64(g.Box[1]+g.Box[3]) / 2
			for _, k := range []struct {
				tl *tally
				e  float64
			}{{loc, at(g.CX, g.CY) * g.SizeRatio}, {nom, tr.EdgePx * g.SizeRatio}} {
				tl := k.tl
				r := w / k.e
				tl.dice++
				tl.lo, tl.hi = math.Min(tl.lo, r), math.Max(tl.hi, r)
				// one pixel either way from the box's rounding, and the
				// generator's size ratio rounded to 0.001
				slack := 1.2 / k.e
				if r < 1-slack || r > math.Sqrt2+slack {
					tl.outside++
				}
				if tr.CameraTiltDeg > 0 {
					off := (g.CY - cy) / (0.5 * k.e * math.Sin(tr.CameraTiltDeg*math.Pi/180))
					tl.offSum += off
					tl.offN++
					if g.CY < float64(tr.Height)/3 {
						tl.farLo, tl.farHi = math.Min(tl.farLo, r), math.Max(tl.farHi, r)
						tl.farN++
						tl.farSum += off
						tl.farRatioN++
					} else if g.CY > 2*float64(tr.Height)/3 {
						tl.nearSum += off
						tl.nearN++
					}
				}
			}
		}
	}
	for _, k := range []struct {
		name string
		tl   *tally
	}{{"local (stillEdgeAt)", loc}, {"nominal", nom}} {
		tl := k.tl
		t.Logf("%s: %d flat dice in stills 0..%d, top-face width over the edge %.3f..%.3f (want 1..1.414), %d outside it; tilted pictures: centre offset over 0.5 e sin T mean %.3f (far third %.3f, near third %.3f; want 1); far third's width ratio %.3f..%.3f over %d dice",
			k.name, tl.dice, n-1, tl.lo, tl.hi, tl.outside, tl.offSum/tl.offN, tl.farSum/tl.farRatioN, tl.nearSum/tl.nearN, tl.farLo, tl.farHi, tl.farN)
	}
	if loc.dice < 200 || loc.offN < 50 || loc.farRatioN < 10 || loc.nearN < 10 {
		t.Fatalf("too few dice to check: %d flat, %.0f in tilted pictures (%.0f far, %.0f near)", loc.dice, loc.offN, loc.farRatioN, loc.nearN)
	}
	if loc.outside > 0 {
		t.Errorf("stillEdgeAt: %d of %d flat dice drawn outside 1..sqrt 2 of the edge at their place", loc.outside, loc.dice)
	}
	// The checks must tell the edges apart: the nominal edge, one number
	// for the whole picture, fails them on these stills.
	if nom.outside == 0 && math.Abs(nom.farSum/nom.farRatioN-1) <= 0.05 {
		t.Errorf("the nominal edge passes too (%d dice outside 1..sqrt 2, far third's offset %.3f): the checks do not tell the edge at each place from it", nom.outside, nom.farSum/nom.farRatioN)
	}
	for _, m := range []struct {
		what string
		v    float64
	}{{"all", loc.offSum / loc.offN}, {"far third", loc.farSum / loc.farRatioN}, {"near third", loc.nearSum / loc.nearN}} {
		if math.Abs(m.v-1) > 0.05 {
			t.Errorf("stillEdgeAt: tilted pictures' %s: top face centre offset %.3f of 0.5 e sin T, want 1", m.what, m.v)
		}
	}
}

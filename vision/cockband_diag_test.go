package vision

import (
	"image"
	"math"
	"slices"
)

// shadeDist is how far colour p lies from every shade k*c of colour c
// (k from 0.25 to 1.15), summed over channels at the best k.
func shadeDist(p, c [3]float64) float64 {
	best := math.Inf(1)
	for k := 0.25; k <= 1.151; k += 0.05 {
		d := math.Abs(p[0]-k*c[0]) + math.Abs(p[1]-k*c[1]) + math.Abs(p[2]-k*c[2])
		best = math.Min(best, d)
	}
	return best
}

// faceBands measures, in die edges, how far past each side of the top
// face (in the face's own axes, angle its rectangle's turn; from half an
// edge off its centre) the pixels stay die-like: nearer some shade of
// the body's colour than any shade of the table's, so that a shadow,
// the table darkened, does not count. The body colour is the median of
// the face's centre, the table's the median of a ring round the die. It
// also returns the bands' sum as a vector in the image (each side's band
// along its outward normal): a flat die under a tilted camera shows a
// side face the frame's other flat dice show alike, a cocked die one of
// its own. fr is region pixels; off the region's offset. A diagnosis
// measure (TestCockDiag): it did not separate cocked dice from flat ones
// better than the cocked nets (README, cock16).
func faceBands(fr bgrImage, d Detection, off image.Point, edge, angle float64) (b [4]float64, vx, vy float64) {
	cx, cy := d.CX-float64(off.X), d.CY-float64(off.Y)
	med := func(ps [][3]float64) [3]float64 {
		var m [3]float64
		v := make([]float64, len(ps))
		for ch := 0; ch < 3; ch++ {
			for i, p := range ps {
				v[i] = p[ch]
			}
			slices.Sort(v)
			m[ch] = v[len(v)/2]
		}
		return m
	}
	var core, ring [][3]float64
	for j := -3; j <= 3; j++ {
		for i := -3; i <= 3; i++ {
			core = append(core, fr.bilinear(cx+float64(i)*edge*0.07, cy+float64(j)*edge*0.07))
		}
	}
	for a := 0; a < 48; a++ {
		t := float64(a) * math.Pi / 24
		for _, rr := range []float64{1.25, 1.45} {
			ring = append(ring, fr.bilinear(cx+rr*edge*math.Cos(t), cy+rr*edge*math.Sin(t)))
		}
	}
	body, tab := med(core), med(ring)
	step := math.Max(edge*0.04, 0.75)
	n := int(0.7*edge/step) + 1
	for k := 0; k < 4; k++ {
		a := angle + float64(k)*math.Pi/2
		ux, uy := math.Cos(a), math.Sin(a)
		var runs []float64
		for s := -2; s <= 2; s++ {
			lat := float64(s) * 0.15 * edge
			x0, y0 := cx+0.5*edge*ux-lat*uy, cy+0.5*edge*uy+lat*ux
			run, gap := 0, 0
			for i := 0; i < n; i++ {
				p := fr.bilinear(x0+ux*float64(i)*step, y0+uy*float64(i)*step)
				db, dt := shadeDist(p, body), shadeDist(p, tab)
				if db < dt && dt > 20 {
					run = i + 1
					gap = 0
				} else if gap++; gap > 1 {
					break
				}
			}
			runs = append(runs, float64(run)*step/edge)
		}
		slices.Sort(runs)
		b[k] = runs[len(runs)/2]
		vx += b[k] * ux
		vy += b[k] * uy
	}
	return b, vx, vy
}

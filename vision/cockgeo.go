package vision

import "math"

// Geometric evidence that a die is cocked, from the camera's view of the
// table (ReaderOptions.ViewUp), for the calibrated read.
//
// A flat die's top face lies in a plane parallel to the table: seen
// through a known view it is a square on the table's plane, foreshortened
// on the picture only by the view (along the picture of a vertical edge,
// by the cosine of the view's tilt). A cocked die's top face leans off
// that plane and is foreshortened along its lean as well, by the cosine
// of the lean (0.98 at 12 degrees, 0.77 at 40). The pips mark the top
// face whatever else the footprint takes in (shadow, a side face, a
// neighbour): the read value's pip lattice (lattice, for layouts that
// span both directions: 4, 5 and 6) is a circle on the table's plane for
// a flat die once the view is undone, and an ellipse for a cocked one.

// unview stretches a picture vector x back along the view's vertical v
// by 1/cos(tilt), sin(tilt) = |v|.
func unview(x, v [2]float64) [2]float64 {
	s := math.Hypot(v[0], v[1])
	if s == 0 || s >= 1 {
		return x
	}
	n := [2]float64{v[0] / s, v[1] / s}
	k := (1/math.Sqrt(1-s*s) - 1) * (x[0]*n[0] + x[1]*n[1])
	return [2]float64{x[0] + k*n[0], x[1] + k*n[1]}
}

// latticeAspect is a pip lattice's aspect (shortest reach over longest)
// once the view's foreshortening is undone: the lattice's reaches make
// an ellipse on the picture (its shortest reach turned minorAng from the
// face rectangle's axes, which are turned ang radians), stretched back
// along the view's vertical v by 1/cos(tilt). A flat die's top face is
// a square on the table's plane, its lattice a circle; a cocked die's
// is shortened along its lean.
func latticeAspect(l lattice, ang float64, v [2]float64) float64 {
	if l.major <= 0 {
		return 0
	}
	a := ang + l.minorAng
	// The ellipse's axes as picture vectors: minor along a, major
	// across it.
	mi := unview([2]float64{l.minor * math.Cos(a), l.minor * math.Sin(a)}, v)
	ma := unview([2]float64{-l.major * math.Sin(a), l.major * math.Cos(a)}, v)
	// The stretched ellipse is the image of the unit circle under the
	// matrix [ma mi]; its reaches are that matrix's singular values.
	t := ma[0]*ma[0] + ma[1]*ma[1] + mi[0]*mi[0] + mi[1]*mi[1]
	d := math.Abs(ma[0]*mi[1] - ma[1]*mi[0])
	r := math.Sqrt(math.Max(t*t-4*d*d, 0))
	hi, lo := math.Sqrt((t+r)/2), math.Sqrt(math.Max((t-r)/2, 0))
	if hi == 0 {
		return 0
	}
	return lo / hi
}

// viewCocked reports whether a read die's top face, the view
// (ReaderOptions.ViewUp) undone, is too far out of square for a flat
// die's: its pip lattice's aspect (latticeAspect) under
// latticeFlatAspect. Only a value of 4, 5 or 6 whose lattice the read
// fitted (reachValue) is measured, and only where the view leans
// straightView degrees or more; without a view nothing is.
//
// Seen straight down, the cocked nets and footAside see a cocked die's
// side face beside its top and catch most of what the lattice would
// (stills 0..1999: 1 more cocked die at the cut, 7 more clean dice
// called cocked); seen at an angle every flat die shows a side face
// too, the nets' cut is raised (cockCutAt) and they miss most cocked
// dice, while the lattice, the view undone, is as square as straight
// down.
func (r *Reader) viewCocked(d Detection) bool {
	if r.opts.ViewUp == nil || d.Value < 4 || d.reachValue != d.Value || !(d.lat.minor > 0) {
		return false
	}
	v := r.opts.ViewUp(d.CX, d.CY)
	s := math.Hypot(v[0], v[1])
	if !(s >= math.Sin(straightView*math.Pi/180) && s < 1) {
		return false
	}
	return latticeAspect(d.lat, d.latAngle, v) < latticeFlatAspect
}

// latticeFlatAspect is the least pip-lattice aspect, the view undone, of
// a face called flat (viewCocked). Set on stills 0..1999 (calibrated,
// the view given, cameras 8 to 35 degrees off vertical): of the 683
// clean dice whose lattice was measured two fell under it (a 5 read
// right, a 4 read 6), and 18 cocked dice the nets had called flat (a
// die cocked c degrees measures about cos c; 0.84 is cos 33).
const latticeFlatAspect = 0.84

// flatCut is the cocked nets' probability from which cockLook calls d
// not flat: cockCut, but where the view's vertical is known
// (ReaderOptions.ViewUp) and the view leans 30 degrees or more,
// cockCutSteepUp. There the nets call the most flat dice cocked (a flat
// die shows a side face of half an edge) and viewCocked catches cocked
// dice they miss; the looks before cockLook (earlyCockLook) keep
// cockCut, so that no die is read that was not read before.
func (r *Reader) flatCut(d Detection) float64 {
	if r.opts.ViewUp == nil || r.opts.ViewTiltDeg == nil {
		return r.cockCut(d)
	}
	t := r.opts.ViewTiltDeg(d.CX, d.CY)
	if t >= steepView {
		v := r.opts.ViewUp(d.CX, d.CY)
		if s := math.Hypot(v[0], v[1]); s >= math.Sin(steepView*math.Pi/180) && s < 1 {
			return cockCutSteepUp
		}
	}
	return cockCutAt(t)
}

// cockCutSteepUp is flatCut's cut for a view leaning 30 degrees or more
// with its vertical known. Set on stills 0..1999 (calibrated, the view
// given) with viewCocked: of the dice the nets gave 0.65 to 0.69 there,
// three were clean and none cocked.
const cockCutSteepUp = 0.69

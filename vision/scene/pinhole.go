package scene

import (
	"fmt"
	"image"
	"math"
	"math/rand/v2"
)

// A still drawn through a real pinhole camera (StillOptions.Pinhole).
//
// The historical still draws every die through one camera rotation: each
// die shows the same sides wherever it lies, at the size of the table
// under it. A real camera sees each die from its own direction: the line
// from the die to the camera's centre. A die shows the sides that face
// the nadir (the table point under the camera), its top face is nearer
// the camera than the table and so a little larger, and a die resting on
// another is larger and moved out from the nadir by its height. The
// pinhole draw projects every face of every die through the camera.

// PinholeOptions puts a still's camera at a real place: HeightMM over
// the table (drawn per still from Min..Max, as CameraHeightMM), looking
// at the picture's centre with the still's own tilt off vertical (from
// the picture's bottom side), its principal point at the picture's
// centre. FocalShare is its focal length as a share of the picture's
// width; zero takes the focal length at which the table at the
// picture's centre has the still's drawn die edge (the dice keep their
// size in the picture), else the die edge follows from it.
type PinholeOptions struct {
	HeightMM   HeightRange
	FocalShare float64
}

// on reports whether the option is set.
func (o PinholeOptions) on() bool { return o.HeightMM.Min != 0 }

// pinholeCam is a pinhole camera over a still's table: table mm with the
// picture's centre at the origin, y down the picture, z up from the
// table (the dice's world frame).
type pinholeCam struct {
	f, cx, cy float64
	c         vec3 // the camera's centre
	ax, ay    vec3 // the picture's x and y (down the picture)
	az        vec3 // the line of sight
}

// newPinholeCam is the camera h mm over the table, tilted tilt degrees
// off vertical about the table's x axis and looking at the origin from
// the +y side, with focal length f px and the principal point at the
// middle of a w x hgt picture.
func newPinholeCam(h, tilt, f, w, hgt float64) pinholeCam {
	s, c := math.Sin(tilt*math.Pi/180), math.Cos(tilt*math.Pi/180)
	return pinholeCam{f: f, cx: w / 2, cy: hgt / 2, c: vec3{0, h * s / c, h},
		ax: vec3{1, 0, 0}, ay: vec3{0, c, -s}, az: vec3{0, -s, -c}}
}

func dot3(a, b vec3) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }

// project maps a point to the picture, with its depth along the line of
// sight.
func (p *pinholeCam) project(q vec3) (x, y, depth float64) {
	d := vec3{q[0] - p.c[0], q[1] - p.c[1], q[2] - p.c[2]}
	depth = dot3(d, p.az)
	return p.cx + p.f*dot3(d, p.ax)/depth, p.cy + p.f*dot3(d, p.ay)/depth, depth
}

// dproject is the picture's change for a small step e from q.
func (p *pinholeCam) dproject(q, e vec3) (dx, dy float64) {
	d := vec3{q[0] - p.c[0], q[1] - p.c[1], q[2] - p.c[2]}
	z := dot3(d, p.az)
	ez := dot3(e, p.az)
	return p.f * (dot3(e, p.ax) - dot3(d, p.ax)*ez/z) / z, p.f * (dot3(e, p.ay) - dot3(d, p.ay)*ez/z) / z
}

// unproject is the table point (z 0) a picture point sees.
func (p *pinholeCam) unproject(x, y float64) pt {
	a, b := (x-p.cx)/p.f, (y-p.cy)/p.f
	var r vec3
	for k := range r {
		r[k] = a*p.ax[k] + b*p.ay[k] + p.az[k]
	}
	s := -p.c[2] / r[2]
	return pt{p.c[0] + s*r[0], p.c[1] + s*r[1]}
}

// tableMaps are the camera's table-to-picture homography and its inverse.
func (p *pinholeCam) tableMaps(w, h float64) (toImg, toTab [9]float64, err error) {
	dst := [4]pt{{0, 0}, {w, 0}, {w, h}, {0, h}}
	var src [4]pt
	for i, q := range dst {
		src[i] = p.unproject(q.X, q.Y)
	}
	if toImg, err = homography4(src, dst); err != nil {
		return toImg, toTab, err
	}
	toTab, err = homography4(dst, src)
	return toImg, toTab, err
}

// pinCentre is where pose p's body centre is: over its table place, as
// high as its lowest corner lets it rest (p.Lift over the table: a die
// stacked on another rests an edge up).
func pinCentre(edge float64, p pose) vec3 {
	low := 0.0
	for _, c := range [8]vec3{{-.5, -.5, -.5}, {.5, -.5, -.5}, {-.5, .5, -.5}, {.5, .5, -.5}, {-.5, -.5, .5}, {.5, -.5, .5}, {-.5, .5, .5}, {.5, .5, .5}} {
		low = math.Max(low, -mulMV(p.R, c)[2])
	}
	return vec3{p.X, p.Y, p.Lift + low*edge*p.Scale}
}

// pinFacing is how squarely face normal n (world) at point q faces the
// camera: the cosine of the angle to the line from q to the camera.
func (p *pinholeCam) pinFacing(q, n vec3) float64 {
	d := vec3{p.c[0] - q[0], p.c[1] - q[1], p.c[2] - q[2]}
	return dot3(n, d) / math.Sqrt(dot3(d, d))
}

// pinFaces is facesOf through the pinhole: each face seen from the
// camera (facing it by more than the historical draw's 0.02), drawn as
// the projection's linear map at the face's centre.
func (r *raster) pinFaces(edge float64, p pose, st *Style) []facePx {
	ctr := pinCentre(edge, p)
	s := edge * p.Scale
	out := make([]facePx, 0, 3)
	for i := range faces {
		f := &faces[i]
		n := mulMV(p.R, f.n)
		fc := vec3{ctr[0] + n[0]*s/2, ctr[1] + n[1]*s/2, ctr[2] + n[2]*s/2}
		look := r.pin.pinFacing(fc, n)
		if look <= 0.02 {
			continue
		}
		u, v := mulMV(p.R, f.u), mulMV(p.R, f.v)
		ox, oy, _ := r.pin.project(fc)
		m00, m10 := r.pin.dproject(fc, vec3{u[0] * s, u[1] * s, u[2] * s})
		m01, m11 := r.pin.dproject(fc, vec3{v[0] * s, v[1] * s, v[2] * s})
		det := m00*m11 - m01*m10
		if math.Abs(det) < 1e-6 {
			continue
		}
		inv := [4]float64{m11 / det, -m01 / det, -m10 / det, m00 / det}
		lum := 0.38 + 0.62*math.Max(0, dot3(n, lightDir))
		gx := -(lightDir[0]*u[0] + lightDir[1]*u[1]) * 0.6
		gy := -(lightDir[0]*v[0] + lightDir[1]*v[1]) * 0.6
		out = append(out, facePx{inv: inv, ox: ox, oy: oy, f: f, lum: lum, gx: gx, gy: gy, gloss: st.Gloss * look * look})
	}
	return out
}

// pinFaceBox is faceBox through the pinhole.
func (r *raster) pinFaceBox(edge float64, p pose, upOnly bool) image.Rectangle {
	ctr := pinCentre(edge, p)
	s := edge * p.Scale
	best := -2.0
	if upOnly {
		for _, f := range faces {
			best = math.Max(best, mulMV(p.R, f.n)[2])
		}
	}
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, f := range faces {
		n := mulMV(p.R, f.n)
		fc := vec3{ctr[0] + n[0]*s/2, ctr[1] + n[1]*s/2, ctr[2] + n[2]*s/2}
		if upOnly {
			if n[2] < best-1e-9 {
				continue
			}
		} else if r.pin.pinFacing(fc, n) <= 0.02 {
			continue
		}
		for _, c := range faceCorners {
			q := mulMV(p.R, f.corner(c))
			px, py, _ := r.pin.project(vec3{ctr[0] + q[0]*s, ctr[1] + q[1]*s, ctr[2] + q[2]*s})
			x0, y0 = math.Min(x0, px), math.Min(y0, py)
			x1, y1 = math.Max(x1, px), math.Max(y1, py)
		}
	}
	return image.Rect(int(math.Round(x0)), int(math.Round(y0)), int(math.Round(x1)), int(math.Round(y1)))
}

// pinDieBox is dieBox through the pinhole: every corner of every pose,
// with a pixel to spare.
func (r *raster) pinDieBox(edge float64, poses []pose) image.Rectangle {
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, p := range poses {
		ctr := pinCentre(edge, p)
		s := edge * p.Scale
		for _, c := range [8]vec3{{-.5, -.5, -.5}, {.5, -.5, -.5}, {-.5, .5, -.5}, {.5, .5, -.5}, {-.5, -.5, .5}, {.5, -.5, .5}, {-.5, .5, .5}, {.5, .5, .5}} {
			q := mulMV(p.R, c)
			px, py, _ := r.pin.project(vec3{ctr[0] + q[0]*s, ctr[1] + q[1]*s, ctr[2] + q[2]*s})
			x0, y0 = math.Min(x0, px), math.Min(y0, py)
			x1, y1 = math.Max(x1, px), math.Max(y1, py)
		}
	}
	return image.Rect(int(math.Floor(x0))-2, int(math.Floor(y0))-2, int(math.Ceil(x1))+2, int(math.Ceil(y1))+2)
}

// sizeRatio is how large pose p's top face looks against a flat die's
// on the table at the same place: the ratio of their depths.
func (p *pinholeCam) sizeRatio(edge float64, q pose) float64 {
	ctr := pinCentre(edge, q)
	_, _, d := p.project(vec3{ctr[0], ctr[1], ctr[2] + edge*q.Scale/2})
	_, _, d0 := p.project(vec3{q.X, q.Y, edge})
	return d0 / d
}

// stillPinholeHeight is the pinhole's height for a still: from its own
// stream (the one CameraHeightMM draws from), whole mm.
func stillPinholeHeight(seed int64, o PinholeOptions) (float64, error) {
	hr := o.HeightMM
	if !(hr.Min >= 3*edgeMM) || math.IsInf(hr.Min, 0) || math.IsNaN(hr.Max) || math.IsInf(hr.Max, 0) {
		return 0, fmt.Errorf("scene: still pinhole height %g..%g mm: must be at least %g", hr.Min, hr.Max, 3*edgeMM)
	}
	if !(o.FocalShare >= 0) || math.IsInf(o.FocalShare, 0) {
		return 0, fmt.Errorf("scene: still pinhole focal %g: not a share of the width", o.FocalShare)
	}
	h := hr.Min
	if hr.Max > hr.Min {
		hrng := rand.New(rand.NewPCG(uint64(seed), 0x68656967687400)) // "height"
		h = hr.Min + (hr.Max-hr.Min)*hrng.Float64()
	}
	return math.Round(h), nil
}

// pinFloor is the table box, in mm, every part of which the picture
// shows, less a tenth of it at each side (as the historical floor).
func pinFloor(v *view) (x0, y0, x1, y1 float64) {
	w, h := float64(v.cam.Width), float64(v.cam.Height)
	tlx, tly := v.tab(0, 0)
	trx, try := v.tab(w, 0)
	brx, bry := v.tab(w, h)
	blx, bly := v.tab(0, h)
	x0, x1 = math.Max(tlx, blx), math.Min(trx, brx)
	y0, y1 = math.Max(tly, try), math.Min(bly, bry)
	mx, my := (x1-x0)*0.05, (y1-y0)*0.05
	return x0 + mx, y0 + my, x1 - mx, y1 - my
}

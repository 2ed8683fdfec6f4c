package scene

import (
	"image"
	"math"
)

// Style is how a die looks: body and pip colours (BGR, 0..255), how
// translucent the body is, and the shape of its pips and corners.
type Style struct {
	Name string `json:"name"`
	Body [3]float64
	// Body2 is the second colour of a marbled body (unused when Marble is 0).
	Body2  [3]float64
	Marble float64 // 0..1: how strongly the body swirls between Body and Body2
	Pip    [3]float64
	// Opacity of the body: 1 is opaque; a casino die is about 0.75 and lets
	// the felt show through, tinted by Tint.
	Opacity float64
	Tint    [3]float64
	// EdgeGain multiplies the colour on the bevelled rim of each face
	// (below 1 darker, above 1 lighter).
	EdgeGain  float64
	PipRadius float64 // pip radius as a fraction of the edge
	PipSpread float64 // pip offset from the face centre as a fraction of the edge
	Corner    float64 // corner radius as a fraction of the edge
	Gloss     float64 // strength of the specular highlight, 0..1
}

// Casino is the primary die: red translucent cellulose with white pips.
func Casino() Style {
	return Style{Name: "casino_red", Body: [3]float64{38, 30, 200}, Pip: [3]float64{238, 240, 242},
		Opacity: 0.72, Tint: [3]float64{0.25, 0.22, 0.85}, EdgeGain: 0.72,
		PipRadius: 0.095, PipSpread: 0.27, Corner: 0.08, Gloss: 0.35}
}

// pose is a die's placement at one instant: centre in table mm, rotation
// body->world (row-major 3x3; world z points up at the camera), and the
// apparent scale (1 on the felt; larger when nearer the camera).
type pose struct {
	X, Y  float64
	R     [9]float64
	Scale float64
	// Lift is how high the die's lowest point is over the table, in mm
	// (a die stacked on another: an edge); only the pinhole draw
	// (raster.pin) places dice in depth.
	Lift float64
}

type vec3 [3]float64

func mulMV(m [9]float64, v vec3) vec3 {
	return vec3{m[0]*v[0] + m[1]*v[1] + m[2]*v[2], m[3]*v[0] + m[4]*v[1] + m[5]*v[2], m[6]*v[0] + m[7]*v[1] + m[8]*v[2]}
}

func mulMM(a, b [9]float64) [9]float64 {
	var r [9]float64
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			r[3*i+j] = a[3*i]*b[j] + a[3*i+1]*b[3+j] + a[3*i+2]*b[6+j]
		}
	}
	return r
}

func rotX(t float64) [9]float64 {
	c, s := math.Cos(t), math.Sin(t)
	return [9]float64{1, 0, 0, 0, c, -s, 0, s, c}
}

func rotY(t float64) [9]float64 {
	c, s := math.Cos(t), math.Sin(t)
	return [9]float64{c, 0, s, 0, 1, 0, -s, 0, c}
}

func rotZ(t float64) [9]float64 {
	c, s := math.Cos(t), math.Sin(t)
	return [9]float64{c, -s, 0, s, c, 0, 0, 0, 1}
}

// face is one face of the die in its body frame: outward normal, in-plane
// axes (u x v = n) and its value.
type face struct {
	n, u, v vec3
	value   int
}

// faceCorners are a face's corners along its u and v axes from its
// centre, in turn round it (face.corner).
var faceCorners = [4][2]float64{{-.5, -.5}, {.5, -.5}, {.5, .5}, {-.5, .5}}

// corner is the point of face f at c along its u and v axes from its
// centre (c's parts -0.5 or 0.5 for its corners), on a die of edge 1
// centred at the origin, in the die's own frame.
func (f *face) corner(c [2]float64) vec3 {
	return vec3{f.n[0]*0.5 + c[0]*f.u[0] + c[1]*f.v[0], f.n[1]*0.5 + c[0]*f.u[1] + c[1]*f.v[1], f.n[2]*0.5 + c[0]*f.u[2] + c[1]*f.v[2]}
}

var faces = [6]face{
	{vec3{0, 0, 1}, vec3{1, 0, 0}, vec3{0, 1, 0}, 1},
	{vec3{0, 0, -1}, vec3{1, 0, 0}, vec3{0, -1, 0}, 6},
	{vec3{1, 0, 0}, vec3{0, 1, 0}, vec3{0, 0, 1}, 2},
	{vec3{-1, 0, 0}, vec3{0, 0, 1}, vec3{0, 1, 0}, 5},
	{vec3{0, 1, 0}, vec3{0, 0, 1}, vec3{1, 0, 0}, 3},
	{vec3{0, -1, 0}, vec3{1, 0, 0}, vec3{0, 0, 1}, 4},
}

// faceUp is the body rotation that turns the face with value v to +z.
func faceUp(v int) [9]float64 {
	switch v {
	case 6:
		return rotX(math.Pi)
	case 2:
		return rotY(-math.Pi / 2)
	case 5:
		return rotY(math.Pi / 2)
	case 3:
		return rotX(math.Pi / 2)
	case 4:
		return rotX(-math.Pi / 2)
	}
	return rotX(0)
}

// restRotation: value v up, the top face tilted by tilt radians towards the
// table direction lean (radians, atan2(dy, dx)), pips turned by spin.
func restRotation(v int, spin, tilt, lean float64) [9]float64 {
	// Rx(tilt) leans the top normal towards -y; Rz(yaw) turns that to lean.
	yaw := lean + math.Pi/2
	return mulMM(rotZ(yaw), mulMM(rotX(tilt), mulMM(rotZ(spin), faceUp(v))))
}

// topValue is the value of the face whose normal points most upward.
func topValue(r [9]float64) (int, float64) {
	best, bz := 0, -2.0
	for _, f := range faces {
		if z := mulMV(r, f.n)[2]; z > bz {
			best, bz = f.value, z
		}
	}
	return best, bz
}

// pipSpots are the canonical layouts in face coordinates (units of spread).
var pipSpots = [7][][2]float64{
	nil,
	{{0, 0}},
	{{-1, -1}, {1, 1}},
	{{-1, -1}, {0, 0}, {1, 1}},
	{{-1, -1}, {1, -1}, {-1, 1}, {1, 1}},
	{{-1, -1}, {1, -1}, {0, 0}, {-1, 1}, {1, 1}},
	{{-1, -1}, {-1, 0}, {-1, 1}, {1, -1}, {1, 0}, {1, 1}},
}

// raster is a BGR frame buffer we draw into.
type raster struct {
	buf    []byte
	w, h   int
	stride int
	v      *view
	// camR, when set, is a camera looking at the table at an angle: die
	// rotations are seen through it (showing side faces) and die offsets
	// scale evenly instead of through the table plane's foreshortening.
	camR *[9]float64
	// pin, when set, is a real pinhole camera (StillOptions.Pinhole):
	// every die is projected through it from where it is (pinhole.go).
	pin *pinholeCam
}

// local is where a pose lands: its centre in px, the mm->px map for its
// offsets and its rotation as the camera sees it.
func (r *raster) local(p pose) (cx, cy float64, j [4]float64, rot [9]float64) {
	cx, cy = r.v.img(p.X, p.Y)
	j = r.v.jac(p.X, p.Y)
	rot = p.R
	if r.camR != nil {
		s := math.Hypot(j[0], j[2])
		j = [4]float64{s, 0, 0, s}
		rot = mulMM(*r.camR, p.R)
	}
	return cx, cy, j, rot
}

var lightDir = func() vec3 {
	l := vec3{-0.3, -0.4, 1}
	n := math.Sqrt(l[0]*l[0] + l[1]*l[1] + l[2]*l[2])
	return vec3{l[0] / n, l[1] / n, l[2] / n}
}()

// facePx is one visible face of one pose, ready to rasterise.
type facePx struct {
	inv        [4]float64 // image px offset -> face (a, b)
	ox, oy     float64    // face centre in px
	f          *face
	lum        float64
	gx, gy     float64 // highlight position on the face
	gloss      float64
	faceSerial int
}

// dieBox is the pixel box a set of poses covers.
func (r *raster) dieBox(edge float64, poses []pose) image.Rectangle {
	if r.pin != nil {
		return r.pinDieBox(edge, poses)
	}
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, p := range poses {
		cx, cy, j, _ := r.local(p)
		rad := edge * 0.5 * math.Sqrt(3) * p.Scale * math.Max(math.Hypot(j[0], j[2]), math.Hypot(j[1], j[3]))
		x0, y0 = math.Min(x0, cx-rad), math.Min(y0, cy-rad)
		x1, y1 = math.Max(x1, cx+rad), math.Max(y1, cy+rad)
	}
	return image.Rect(int(math.Floor(x0))-1, int(math.Floor(y0))-1, int(math.Ceil(x1))+1, int(math.Ceil(y1))+1)
}

// topBox is the pixel bounding box of the die's visible faces at one pose
// (what a reader would box).
func (r *raster) topBox(edge float64, p pose) image.Rectangle {
	return r.faceBox(edge, p, false)
}

// faceBox is the box of the visible faces, or with upOnly of the face that
// points most up on the table (the top face a label boxes).
func (r *raster) faceBox(edge float64, p pose, upOnly bool) image.Rectangle {
	if r.pin != nil {
		return r.pinFaceBox(edge, p, upOnly)
	}
	cx, cy, j, rot := r.local(p)
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	best := -2.0
	if upOnly {
		for _, f := range faces {
			best = math.Max(best, mulMV(p.R, f.n)[2])
		}
	}
	for _, f := range faces {
		n := mulMV(rot, f.n)
		if upOnly {
			if mulMV(p.R, f.n)[2] < best-1e-9 {
				continue
			}
		} else if n[2] <= 0.02 {
			continue
		}
		for _, c := range faceCorners {
			q := mulMV(rot, f.corner(c))
			mx, my := q[0]*edge*p.Scale, q[1]*edge*p.Scale
			px, py := cx+j[0]*mx+j[1]*my, cy+j[2]*mx+j[3]*my
			x0, y0 = math.Min(x0, px), math.Min(y0, py)
			x1, y1 = math.Max(x1, px), math.Max(y1, py)
		}
	}
	return image.Rect(int(math.Round(x0)), int(math.Round(y0)), int(math.Round(x1)), int(math.Round(y1)))
}

func (r *raster) facesOf(edge float64, p pose, st *Style) []facePx {
	if r.pin != nil {
		return r.pinFaces(edge, p, st)
	}
	cx, cy, j, rot := r.local(p)
	out := make([]facePx, 0, 3)
	for i := range faces {
		f := &faces[i]
		n := mulMV(rot, f.n)
		if n[2] <= 0.02 {
			continue
		}
		c := n
		u := mulMV(rot, f.u)
		v := mulMV(rot, f.v)
		s := edge * p.Scale
		// face centre and axes in px
		ox := cx + (j[0]*c[0]+j[1]*c[1])*s*0.5
		oy := cy + (j[2]*c[0]+j[3]*c[1])*s*0.5
		m00 := (j[0]*u[0] + j[1]*u[1]) * s
		m10 := (j[2]*u[0] + j[3]*u[1]) * s
		m01 := (j[0]*v[0] + j[1]*v[1]) * s
		m11 := (j[2]*v[0] + j[3]*v[1]) * s
		det := m00*m11 - m01*m10
		if math.Abs(det) < 1e-6 {
			continue
		}
		inv := [4]float64{m11 / det, -m01 / det, -m10 / det, m00 / det}
		ndl := n[0]*lightDir[0] + n[1]*lightDir[1] + n[2]*lightDir[2]
		lum := 0.38 + 0.62*math.Max(0, ndl)
		// highlight: where the mirrored light direction meets the face
		gx := -(lightDir[0]*u[0] + lightDir[1]*u[1]) * 0.6
		gy := -(lightDir[0]*v[0] + lightDir[1]*v[1]) * 0.6
		out = append(out, facePx{inv: inv, ox: ox, oy: oy, f: f, lum: lum, gx: gx, gy: gy, gloss: st.Gloss * n[2] * n[2]})
	}
	return out
}

// shade returns the colour of face coordinate (a, b) on face fp, or ok=false
// when (a, b) falls outside the rounded face. bg is the pixel behind.
func shade(fp *facePx, st *Style, a, b float64, bg [3]float64) (c [3]float64, ok bool) {
	aa, ab := a, b
	if aa < 0 {
		aa = -aa
	}
	if ab < 0 {
		ab = -ab
	}
	if aa > 0.5 || ab > 0.5 {
		return c, false
	}
	rc := st.Corner
	if rc > 0 && aa > 0.5-rc && ab > 0.5-rc {
		dx, dy := aa-(0.5-rc), ab-(0.5-rc)
		if dx*dx+dy*dy > rc*rc {
			return c, false
		}
	}
	// pips
	pr2 := st.PipRadius * st.PipRadius
	for _, s := range pipSpots[fp.f.value] {
		dx, dy := a-s[0]*st.PipSpread, b-s[1]*st.PipSpread
		if dx*dx+dy*dy < pr2 {
			l := fp.lum + 0.1
			if l > 1.05 {
				l = 1.05
			}
			for k := 0; k < 3; k++ {
				c[k] = st.Pip[k] * l
			}
			return c, true
		}
	}
	body := st.Body
	if st.Marble > 0 {
		m := 0.5 + 0.5*math.Sin(7*a+4*math.Sin(5*b+float64(fp.f.value))+2*float64(fp.f.value))
		m = math.Pow(m, 3) * st.Marble
		for k := 0; k < 3; k++ {
			body[k] = body[k]*(1-m) + st.Body2[k]*m
		}
	}
	g := 1.0
	d := 0.5 - aa
	if ab > aa {
		d = 0.5 - ab
	}
	const bevel = 0.08
	if d < bevel {
		g = st.EdgeGain + (1-st.EdgeGain)*d/bevel
	}
	op := st.Opacity
	for k := 0; k < 3; k++ {
		c[k] = g * (fp.lum*body[k]*op + (1-op)*bg[k]*st.Tint[k]*(0.6+0.4*fp.lum))
	}
	if fp.gloss > 0 {
		dx, dy := a-fp.gx, b-fp.gy
		h := fp.gloss * math.Exp(-(dx*dx+dy*dy)/0.02) * 255
		for k := 0; k < 3; k++ {
			c[k] += h
		}
	}
	return c, true
}

// drawShadow darkens the felt under a die: a soft rounded square offset
// away from the light, larger and softer the higher the die is.
func (r *raster) drawShadow(edge float64, p pose, height, blurMM float64, tint [3]float64, strength float64) {
	off := 0.35*edge + height*0.6
	sx, sy := p.X+(-lightDir[0])*off, p.Y+(-lightDir[1])*off
	cx, cy := r.v.img(sx, sy)
	j := r.v.jac(sx, sy)
	// table mm per px (inverse Jacobian)
	det := j[0]*j[3] - j[1]*j[2]
	ij := [4]float64{j[3] / det, -j[1] / det, -j[2] / det, j[0] / det}
	// yaw of the die from its rotation: the x body axis projected
	yaw := math.Atan2(p.R[3], p.R[0])
	cs, sn := math.Cos(yaw), math.Sin(yaw)
	half := edge * 0.5 * p.Scale
	soft := 2.5 + height*0.4 + blurMM
	rad := (half*1.5 + soft*2) * math.Max(math.Hypot(j[0], j[2]), math.Hypot(j[1], j[3]))
	x0, x1 := clampI(int(cx-rad), 0, r.w), clampI(int(cx+rad)+1, 0, r.w)
	y0, y1 := clampI(int(cy-rad), 0, r.h), clampI(int(cy+rad)+1, 0, r.h)
	rc := half * 0.3
	for y := y0; y < y1; y++ {
		row := r.buf[y*r.stride:]
		for x := x0; x < x1; x++ {
			dx, dy := float64(x)+0.5-cx, float64(y)+0.5-cy
			mx, my := ij[0]*dx+ij[1]*dy, ij[2]*dx+ij[3]*dy
			lx, ly := math.Abs(cs*mx+sn*my), math.Abs(-sn*mx+cs*my)
			qx, qy := lx-half+rc, ly-half+rc
			dist := math.Hypot(math.Max(qx, 0), math.Max(qy, 0)) + math.Min(math.Max(qx, qy), 0) - rc
			w := 0.5 - dist/(2*soft)
			if w <= 0 {
				continue
			}
			if w > 1 {
				w = 1
			}
			w = w * w * (3 - 2*w) * strength
			i := 3 * x
			for k := 0; k < 3; k++ {
				f := 1 - w*(1-tint[k])
				row[i+k] = uint8(float64(row[i+k])*f + 0.5)
			}
		}
	}
}

func clampI(v, lo, hi int) int {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

// drawRaised draws a die whose top face a camera at a height sees at
// top, moved out from where it stands (foot, the place and scale of a
// face at a lone die's height): a straight-down drawing of a die shows
// only its top face, but a pinhole camera also sees the side that faces
// it, which runs from foot to top and hides what lies there (the top
// face of the die under a stacked one). The side is drawn as the die
// swept from foot to top, one opaque draw every px or so, the top last.
func (r *raster) drawRaised(edge float64, st *Style, foot, top pose, ss int) {
	fx, fy := r.v.img(foot.X, foot.Y)
	tx, ty := r.v.img(top.X, top.Y)
	n := int(math.Ceil(math.Hypot(tx-fx, ty-fy)))
	if n > 24 {
		n = 24
	}
	for k := 0; k < n; k++ {
		f := float64(k) / float64(n)
		q := top
		q.X, q.Y = foot.X+(top.X-foot.X)*f, foot.Y+(top.Y-foot.Y)*f
		q.Scale = foot.Scale + (top.Scale-foot.Scale)*f
		r.drawDie(edge, st, []pose{q}, ss)
	}
	r.drawDie(edge, st, []pose{top}, ss)
}

// drawDie renders a die averaged over poses (motion blur when they
// differ), ss x ss samples per pixel per pose. It returns the box of pixels
// written (clipped to the frame).
func (r *raster) drawDie(edge float64, st *Style, poses []pose, ss int) image.Rectangle {
	box := r.dieBox(edge, poses).Intersect(image.Rect(0, 0, r.w, r.h))
	if box.Empty() {
		return box
	}
	fps := make([][]facePx, len(poses))
	for i, p := range poses {
		fps[i] = r.facesOf(edge, p, st)
	}
	n := float64(len(poses) * ss * ss)
	step := 1 / float64(ss)
	for y := box.Min.Y; y < box.Max.Y; y++ {
		row := r.buf[y*r.stride:]
		for x := box.Min.X; x < box.Max.X; x++ {
			i := 3 * x
			bg := [3]float64{float64(row[i]), float64(row[i+1]), float64(row[i+2])}
			var acc [3]float64
			hits := 0
			for pi := range poses {
				// jitter the sub-grid per pose so blur samples stratify
				jit := float64((pi*7)%ss) * step / float64(len(poses)+1)
				for sy := 0; sy < ss; sy++ {
					py := float64(y) + (float64(sy)+0.5)*step + jit
					for sx := 0; sx < ss; sx++ {
						px := float64(x) + (float64(sx)+0.5)*step + jit
						for fi := range fps[pi] {
							fp := &fps[pi][fi]
							dx, dy := px-fp.ox, py-fp.oy
							a := fp.inv[0]*dx + fp.inv[1]*dy
							b := fp.inv[2]*dx + fp.inv[3]*dy
							if c, ok := shade(fp, st, a, b, bg); ok {
								acc[0] += c[0]
								acc[1] += c[1]
								acc[2] += c[2]
								hits++
								break
							}
						}
					}
				}
			}
			if hits == 0 {
				continue
			}
			miss := n - float64(hits)
			for k := 0; k < 3; k++ {
				v := (acc[k] + miss*bg[k]) / n
				if v > 255 {
					v = 255
				} else if v < 0 {
					v = 0
				}
				row[i+k] = uint8(v + 0.5)
			}
		}
	}
	return box
}

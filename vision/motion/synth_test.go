package motion

import (
	"image"
	"image/color"
	"math"
	"math/rand"

	"gocv.io/x/gocv"
)

// A minimal synthetic throw for unit tests: a felt background with texture,
// noise and flicker; red dice entering at the left edge that slide with
// constant deceleration to rest (or fly on out of the picture); after a
// hold, a stick comes in from the bottom and drags the dice out.

type synthDie struct {
	enterMS      int64
	x0, y0       float64 // entry point (px), just outside the left edge
	dx, dy       float64 // unit direction
	v0, decel    float64 // px/s, px/s² (decel 0: it leaves the view)
	collectStart int64
}

func (d synthDie) restMS() int64 {
	if d.decel == 0 {
		return -1
	}
	return d.enterMS + int64(math.Ceil(1000*d.v0/d.decel))
}

// pos is the die centre at t and whether it is moving.
func (d synthDie) pos(t int64) (x, y float64, moving bool) {
	u := float64(t-d.enterMS) / 1000
	if u < 0 {
		return d.x0, d.y0, false
	}
	s := d.v0 * u
	moving = true
	if d.decel > 0 {
		stop := d.v0 / d.decel
		if u >= stop {
			u, moving = stop, false
		}
		s = d.v0*u - d.decel*u*u/2
	}
	return d.x0 + d.dx*s, d.y0 + d.dy*s, moving
}

type synthThrow struct {
	w, h    int
	fps     float64
	die     float64 // die edge px
	dice    []synthDie
	stickAt int64 // stick enters (ms); 0 = never
	endMS   int64
	seed    int64
	// glint: a still 5x5 speck at glintAt that turns white and back over the second from glintFrom ms (0: none)
	glintAt   image.Point
	glintFrom int64
}

// exitEdge is where a die that leaves crosses the frame border.
func (s synthThrow) exitEdge(d synthDie) (Edge, int64) {
	if d.decel > 0 {
		return "", -1
	}
	for t := d.enterMS; t < d.enterMS+10000; t++ {
		x, y, _ := d.pos(t)
		h := s.die / 2
		switch {
		case x-h > float64(s.w):
			return EdgeRight, t
		case y+h < 0:
			return EdgeTop, t
		case y-h > float64(s.h):
			return EdgeBottom, t
		}
	}
	return "", -1
}

func (s synthThrow) frameMS(k int) int64 { return int64(math.Floor(float64(k) * 1000 / s.fps)) }

func (s synthThrow) frames() int { return int(float64(s.endMS)*s.fps/1000) + 1 }

type renderer struct {
	s     synthThrow
	felt  gocv.Mat
	noise gocv.Mat
	rng   *rand.Rand
}

func newRenderer(s synthThrow) *renderer {
	r := &renderer{s: s, rng: rand.New(rand.NewSource(s.seed))}
	r.felt = gocv.NewMatWithSize(s.h, s.w, gocv.MatTypeCV8UC3)
	r.felt.SetTo(gocv.NewScalar(50, 115, 45, 0))
	tex := gocv.NewMatWithSize(s.h, s.w, gocv.MatTypeCV8UC3)
	defer tex.Close()
	gocv.RandN(&tex, gocv.NewScalar(0, 0, 0, 0), gocv.NewScalar(6, 6, 6, 0))
	gocv.Add(r.felt, tex, &r.felt)
	gocv.GaussianBlur(r.felt, &r.felt, image.Pt(5, 5), 0, 0, gocv.BorderDefault)
	r.noise = gocv.NewMatWithSize(s.h, s.w, gocv.MatTypeCV8UC3)
	return r
}

func (r *renderer) Close() { r.felt.Close(); r.noise.Close() }

// render draws frame k into dst.
func (r *renderer) render(k int, dst *gocv.Mat) {
	t := r.s.frameMS(k)
	gain := 1 + 0.03*math.Sin(float64(t)/1000*2*math.Pi*2.3)
	r.felt.ConvertToWithParams(dst, gocv.MatTypeCV8UC3, float32(gain), 0)
	h := r.s.die / 2
	stickY := math.Inf(1)
	if r.s.stickAt > 0 && t >= r.s.stickAt {
		// in from the bottom for 400 ms, then pulls back down for 600 ms
		u := float64(t - r.s.stickAt)
		reach := float64(r.s.h) * 0.6
		if u < 400 {
			stickY = float64(r.s.h) - reach*u/400
		} else {
			stickY = float64(r.s.h) - reach + (reach+2*r.s.die)*(u-400)/600
		}
	}
	for _, d := range r.s.dice {
		x, y, _ := d.pos(t)
		if t < d.enterMS {
			continue
		}
		if r.s.stickAt > 0 && t >= r.s.stickAt+400 {
			// dragged with the stick
			y = math.Max(y, stickY-h-2)
		}
		box := image.Rect(int(math.Round(x-h)), int(math.Round(y-h)), int(math.Round(x+h)), int(math.Round(y+h)))
		gocv.Rectangle(dst, box, color.RGBA{200, 30, 38, 0}, -1)
		gocv.Circle(dst, image.Pt(int(x), int(y)), int(math.Max(1, h/4)), color.RGBA{240, 240, 238, 0}, -1)
	}
	if r.s.glintFrom > 0 && t >= r.s.glintFrom && t < r.s.glintFrom+1000 {
		// brightens for half a second and fades for another, as a
		// highlight does when the light drifts: little changes from one
		// frame to the next
		u := 1 - math.Abs(float64(t-r.s.glintFrom)/500-1)
		c := func(felt float64) uint8 { return uint8(felt + (250-felt)*u) }
		gocv.Rectangle(dst, image.Rectangle{Min: r.s.glintAt, Max: r.s.glintAt.Add(image.Pt(5, 5))}, color.RGBA{c(45), c(115), c(50), 0}, -1)
	}
	if !math.IsInf(stickY, 1) {
		x := r.s.w / 2
		gocv.Rectangle(dst, image.Rect(x-int(r.s.die*4), int(stickY), x+int(r.s.die*4), int(stickY+r.s.die)),
			color.RGBA{120, 80, 40, 0}, -1)
		gocv.Rectangle(dst, image.Rect(x-3, int(stickY), x+3, r.s.h), color.RGBA{120, 80, 40, 0}, -1)
	}
	gocv.RandN(&r.noise, gocv.NewScalar(0, 0, 0, 0), gocv.NewScalar(3, 3, 3, 0))
	gocv.Add(*dst, r.noise, dst)
}

// randomThrow makes a throw of two dice; exit makes the first one leave.
func randomThrow(rng *rand.Rand, w, h int, die float64, exit bool, seed int64) synthThrow {
	s := synthThrow{w: w, h: h, fps: 30, die: die, seed: seed}
	y0 := float64(h) * (0.3 + 0.4*rng.Float64())
	var lastRest int64
	for i := 0; i < 2; i++ {
		enter := int64(300 + i*rng.Intn(60))
		ang := (rng.Float64() - 0.5) * 0.5
		d := synthDie{enterMS: enter, x0: -die, y0: y0 + float64(i)*die*2.5, dx: math.Cos(ang), dy: math.Sin(ang),
			v0: float64(w) * (0.9 + 0.5*rng.Float64())}
		// rest between 45% and 85% of the width, well inside the picture
		dist := float64(w) * (0.45 + 0.4*rng.Float64())
		d.decel = d.v0 * d.v0 / (2 * dist)
		if ry := d.y0 + d.dy*dist; ry < 3*die || ry > float64(h)-3*die {
			d.dx, d.dy = 1, 0
		}
		if exit && i == 0 {
			d.decel = 0
			ang := []float64{-1.0, 1.0, 0.1}[rng.Intn(3)] // up, down, or straight on out the right
			d.dx, d.dy = math.Cos(ang), math.Sin(ang)
			d.v0 = float64(w) * 1.2
		}
		if r := d.restMS(); r > lastRest {
			lastRest = r
		}
		s.dice = append(s.dice, d)
	}
	if lastRest == 0 {
		lastRest = 1500
	}
	s.stickAt = lastRest + 900
	s.endMS = s.stickAt + 1600
	return s
}

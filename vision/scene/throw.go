package scene

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/dicewatch/dicewatch/calibration"
	"github.com/dicewatch/dicewatch/rules"
)

// Kind is the planned outcome of a generated throw.
type Kind string

// Throw kinds. Each names where one die ends; the other die rests validly
// on the layout.
const (
	KindValid    Kind = "valid"     // both dice flat on the layout
	KindOffTable Kind = "off_table" // a die leaves over a side rail, out of the picture
	KindInBowl   Kind = "in_bowl"   // a die comes to rest in the dice bowl
	KindOnBank   Kind = "on_bank"   // a die comes to rest among the chips of the bank
	KindInRail   Kind = "in_rail"   // a die comes to rest in a side rail's chip groove
	KindCocked   Kind = "cocked"    // a die leans on a chip stack or the back wall
	KindStacked  Kind = "stacked"   // a die comes to rest on top of the other
)

// Kinds lists every kind the generator knows.
func Kinds() []Kind {
	return []Kind{KindValid, KindOffTable, KindInBowl, KindOnBank, KindInRail, KindCocked, KindStacked}
}

// ParseKinds reads a comma-separated kind list ("valid,off_table,...").
func ParseKinds(s string) ([]Kind, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []Kind
	for _, f := range strings.Split(s, ",") {
		k := Kind(strings.TrimSpace(f))
		ok := false
		for _, kk := range Kinds() {
			if k == kk {
				ok = true
			}
		}
		if !ok {
			return nil, fmt.Errorf("scene: unknown throw kind %q (want one of %v)", k, Kinds())
		}
		out = append(out, k)
	}
	return out, nil
}

// segment is a stretch of a die's travel along a polyline at constant
// deceleration from speed vs to ve (mm/s).
type segment struct {
	pts    []pt
	cum    []float64 // arc length at each point
	length float64
	vs, ve float64
	t0, t1 float64 // seconds on the session clock
}

func newSegment(pts []pt, vs, ve, t0 float64) segment {
	s := segment{pts: pts, vs: vs, ve: ve, t0: t0}
	s.cum = make([]float64, len(pts))
	for i := 1; i < len(pts); i++ {
		s.cum[i] = s.cum[i-1] + math.Hypot(pts[i].X-pts[i-1].X, pts[i].Y-pts[i-1].Y)
	}
	s.length = s.cum[len(pts)-1]
	s.t1 = t0 + 2*s.length/(vs+ve)
	return s
}

// dist is the arc length travelled at time t (clamped to the segment).
func (s *segment) dist(t float64) float64 {
	if t <= s.t0 {
		return 0
	}
	if t >= s.t1 {
		return s.length
	}
	d := s.t1 - s.t0
	a := (s.vs - s.ve) / d
	u := t - s.t0
	return s.vs*u - a*u*u/2
}

func (s *segment) speed(t float64) float64 {
	if t < s.t0 || t > s.t1 {
		return 0
	}
	d := s.t1 - s.t0
	return s.vs - (s.vs-s.ve)*(t-s.t0)/d
}

func (s *segment) at(d float64) (pt, pt) {
	for i := 1; i < len(s.pts); i++ {
		if d <= s.cum[i] || i == len(s.pts)-1 {
			l := s.cum[i] - s.cum[i-1]
			f := 0.0
			if l > 0 {
				f = (d - s.cum[i-1]) / l
			}
			a, b := s.pts[i-1], s.pts[i]
			dir := pt{(b.X - a.X) / math.Max(l, 1e-9), (b.Y - a.Y) / math.Max(l, 1e-9)}
			return pt{a.X + (b.X-a.X)*f, a.Y + (b.Y-a.Y)*f}, dir
		}
	}
	return s.pts[0], pt{1, 0}
}

// dieTrack is one die's whole life in a throw.
type dieTrack struct {
	id     int
	style  *Style
	value  int
	segs   []segment
	exits  bool // leaves the table: keeps going after the last segment
	enter  float64
	stop   float64 // seconds: came to rest (or the last segment ended, for an exit)
	total  float64 // total arc length
	rest   pt
	spin   float64
	tilt   float64
	lean   float64
	rollK  float64
	spinK  float64
	hopA   float64
	scale  float64 // apparent scale at rest (stacked > 1)
	camH   float64 // the camera's height (Config.CameraHeightMM), or 0
	z      int     // draw order
	onDie  int     // the die this one rests on, or -1
	wallAt float64 // seconds of the back-wall hit, or -1
	wallEv int     // index of its back-wall pulse in the throw's events
	// collection by the stick
	c0, c1   float64
	collectD pt // how far the stick drags it (mm)

	truth DieTruth
}

func (d *dieTrack) distAt(t float64) (float64, int) {
	acc := 0.0
	for i := range d.segs {
		s := &d.segs[i]
		if t < s.t1 || i == len(d.segs)-1 {
			return acc + s.dist(t), i
		}
		acc += s.length
	}
	return acc, len(d.segs) - 1
}

// posAt is the die's pose at time t, and whether it is on the table and
// moving. ok is false before it is thrown and after it is gone.
func (d *dieTrack) posAt(t float64) (p pose, moving, ok bool) {
	if t < d.enter {
		return p, false, false
	}
	dist, si := d.distAt(t)
	s := &d.segs[si]
	pos, dir := s.at(dist - (d.totalBefore(si)))
	speed := s.speed(t)
	if d.exits && t > s.t1 {
		// flying on off the table at the end speed
		u := t - s.t1
		pos = pt{pos.X + dir.X*s.ve*u, pos.Y + dir.Y*s.ve*u}
		dist += s.ve * u
		speed = s.ve
	}
	rem := d.total - dist
	moving = speed > 0 && t < d.stop || d.exits
	// hops while fast, fading out as the die slows
	z := 0.0
	if moving {
		z = d.hopA * math.Abs(math.Sin(dist/180*math.Pi)) * math.Min(1, speed/2500)
	}
	scale := 1 + z*0.0085
	if d.camH > 0 {
		scale = (d.camH - edgeMM) / (d.camH - edgeMM - z)
	}
	if d.scale != 1 {
		// the top die of a stack climbs onto the other during its last 60 mm
		f := math.Max(0, math.Min(1, 1-rem/60))
		if d.exits {
			f = 0
		}
		scale += (d.scale - 1) * f
	}
	if t >= d.c0 && d.c0 > 0 {
		f := math.Min(1, (t-d.c0)/(d.c1-d.c0))
		f = f * f
		pos = pt{d.rest.X + d.collectD.X*f, d.rest.Y + d.collectD.Y*f}
		rem = 0
		moving = true
		if t > d.c1 {
			return p, false, false
		}
	}
	r := restRotation(d.value, d.spin+d.spinK*rem, d.tilt+d.rollK*rem, d.lean)
	return pose{X: pos.X, Y: pos.Y, R: r, Scale: scale}, moving, true
}

func (d *dieTrack) totalBefore(si int) float64 {
	acc := 0.0
	for i := 0; i < si; i++ {
		acc += d.segs[i].length
	}
	return acc
}

// height above the felt (mm) for shadows.
func (d *dieTrack) heightAt(t float64, p pose) float64 {
	return (p.Scale - 1) / 0.0085
}

// plan lays out one throw starting at t0 (seconds). It returns the dice
// tracks and the time the last die stopped or left.
type planner struct {
	rng   *rand.Rand
	v     *view
	table *tableScene
	cal   *calibration.Calibration
	style Style
	camH  float64 // Config.CameraHeightMM
}

const edgeMM = 19.0

func (pl *planner) uniform(a, b float64) float64 { return a + (b-a)*pl.rng.Float64() }

// freeOnLayout picks a rest spot on the layout clear of chips and of the
// given dice.
func (pl *planner) freeOnLayout(avoid []pt) pt {
	for i := 0; ; i++ {
		p := pt{pl.uniform(math.Max(2350, pl.v.leftX+40), wallX-rubberMM-25), pl.uniform(math.Max(railW+70, pl.v.topY+30), math.Min(tableW-railW-70, pl.v.bottom-30))}
		ok := true
		for _, c := range pl.table.chips {
			if math.Hypot(c.X-p.X, c.Y-p.Y) < chipR+30 {
				ok = false
			}
		}
		for _, a := range avoid {
			if math.Hypot(a.X-p.X, a.Y-p.Y) < 45 {
				ok = false
			}
		}
		if ok || i > 500 {
			return p
		}
	}
}

// feasible says whether the camera sees where a kind's special die ends.
func (pl *planner) feasible(k Kind) error {
	v := pl.v
	ok := true
	switch k {
	case KindInBowl:
		ok = bowlX-bowlOuter > v.leftX && bowlY+bowlOuter < v.bottom
	case KindOnBank:
		ok = bankX0 > v.leftX && bankY0+20 > v.topY
	case KindInRail:
		ok = v.topY < railW-30 && v.bottom > tableW-railW+30
	}
	if !ok {
		return fmt.Errorf("scene: throw kind %s: this camera (%dx%d at %.3g px/mm) does not see where the die ends", k, v.cam.Width, v.cam.Height, v.cam.PxPerMM)
	}
	return nil
}

// throwPlan is one planned throw.
type throwPlan struct {
	index  int
	kind   Kind
	dice   []*dieTrack
	start  float64 // first die enters
	atRest float64 // last die stopped or left the picture
	hold   float64
	c0, c1 float64 // stick collection
	stick  stickPlan
	events []sensorPulse
}

type stickPlan struct {
	from, to pt // tip positions (mm): from off the bottom edge to the dice
	c0, mid  float64
	c1       float64
}

type sensorPulse struct {
	t, dur float64
	role   string
	name   string
}

// planThrow plans throw i of kind k, the first die entering at t0.
func (pl *planner) planThrow(i int, k Kind, t0 float64) *throwPlan {
	tp := &throwPlan{index: i, kind: k, start: t0}
	entryX := pl.v.leftX - 40
	y0 := pl.uniform(470, 950)
	var rests []pt
	for di := 0; di < 2; di++ {
		d := &dieTrack{id: di, style: &pl.style, value: 1 + pl.rng.IntN(6), scale: 1, onDie: -1, wallAt: -1, camH: pl.camH,
			spin: pl.uniform(0, 2*math.Pi), lean: pl.uniform(-math.Pi, math.Pi),
			rollK: pl.uniform(0.9, 1.6) / edgeMM * 0.6, spinK: pl.uniform(-1, 1) / edgeMM * 0.3,
			hopA: pl.uniform(8, 25)}
		d.enter = t0 + float64(di)*pl.uniform(0.005, 0.06)
		d.z = di
		p0 := pt{entryX, y0 + pl.uniform(-50, 50)}
		special := di == 0 && k != KindValid
		if k == KindStacked {
			special = di == 1
		}
		wallY := pl.uniform(300, tableW-300)
		p1 := pt{wallX - rubberMM - edgeMM/2, wallY}
		v1 := pl.uniform(1400, 2300)
		a1 := pl.uniform(1300, 2100)
		la := math.Hypot(p1.X-p0.X, p1.Y-p0.Y)
		v0 := math.Sqrt(v1*v1 + 2*a1*la)
		viaWall := func(end pt, ve float64) {
			sa := newSegment([]pt{p0, p1}, v0, v1, d.enter)
			d.wallAt = sa.t1
			vb := v1 * pl.uniform(0.3, 0.5)
			mid := pt{(p1.X+end.X)/2 + pl.uniform(-40, 40), (p1.Y+end.Y)/2 + pl.uniform(-40, 40)}
			pts := []pt{p1, mid, end}
			lb := math.Hypot(mid.X-p1.X, mid.Y-p1.Y) + math.Hypot(end.X-mid.X, end.Y-mid.Y)
			if 2*lb/(vb+ve) > 0.9 { // keep the roll back short in time
				vb = 2*lb/0.9 - ve
			}
			sb := newSegment(pts, vb, ve, sa.t1)
			d.segs = []segment{sa, sb}
			d.wallEv = len(tp.events)
			tp.events = append(tp.events, sensorPulse{t: sa.t1, dur: 0.015, role: "back_wall", name: "back_wall"})
		}
		direct := func(end pt, vs, ve float64) {
			d.segs = []segment{newSegment([]pt{p0, end}, vs, ve, d.enter)}
		}
		switch {
		case !special:
			d.rest = pl.freeOnLayout(rests)
			viaWall(d.rest, 0)
		case k == KindOffTable:
			side := railW - 260.0 // over the boxperson's rail, off the table
			if pl.rng.IntN(2) == 0 {
				side = tableW - railW + 260
			}
			end := pt{pl.uniform(2300, 3300), side}
			d.exits = true
			if pl.rng.IntN(2) == 0 {
				viaWall(end, 900)
			} else {
				direct(end, v0, 1200)
			}
			d.rest = end
			railName := "rail_box"
			cross := railW
			if side > tableW/2 {
				railName, cross = "rail_stick", tableW-railW
			}
			if tc, ok := d.crossTime(func(p pt) bool {
				if side < tableW/2 {
					return p.Y < cross
				}
				return p.Y > cross
			}); ok {
				tp.events = append(tp.events, sensorPulse{t: tc, dur: 0.04, role: "rail", name: railName})
			}
		case k == KindInBowl:
			a := pl.uniform(0, 2*math.Pi)
			r := pl.uniform(0, bowlInner-edgeMM)
			d.rest = pt{bowlX + r*math.Cos(a), bowlY + r*math.Sin(a)}
			direct(d.rest, pl.uniform(1300, 1900), 0)
			if tc, ok := d.crossTime(func(p pt) bool { return math.Hypot(p.X-bowlX, p.Y-bowlY) < bowlOuter }); ok {
				tp.events = append(tp.events, sensorPulse{t: tc, dur: 0.05, role: "bowl", name: "bowl"})
			}
		case k == KindOnBank:
			f := pl.table.bankFree[pl.rng.IntN(len(pl.table.bankFree))]
			d.rest = pt{f.X + pl.uniform(-3, 3), f.Y + pl.uniform(-3, 3)}
			direct(d.rest, pl.uniform(1300, 1800), 0)
		case k == KindInRail:
			y := pl.uniform(96, 114)
			railName := "rail_box"
			if pl.rng.IntN(2) == 0 {
				y = pl.uniform(tableW-114, tableW-96)
				railName = "rail_stick"
			}
			d.rest = pt{pl.uniform(2700, 3350), y}
			viaWall(d.rest, 0)
			if tc, ok := d.crossTime(func(p pt) bool { return p.Y < railW || p.Y > tableW-railW }); ok {
				tp.events = append(tp.events, sensorPulse{t: tc, dur: 0.04, role: "rail", name: railName})
			}
		case k == KindCocked:
			d.tilt = pl.uniform(14, 35) * math.Pi / 180
			var bets []chip
			for _, c := range pl.table.betChips() {
				if c.X > pl.v.leftX+60 && c.Y > pl.v.topY+60 && c.Y < pl.v.bottom-60 {
					bets = append(bets, c)
				}
			}
			if len(bets) > 0 && pl.rng.Float64() < 0.7 {
				c := bets[pl.rng.IntN(len(bets))]
				a := pl.uniform(0, 2*math.Pi)
				// the die's foot stands off the stack; its top leans on it
				dd := chipR + edgeMM/2*math.Cos(d.tilt) + 2
				d.rest = pt{c.X + dd*math.Cos(a), c.Y + dd*math.Sin(a)}
				d.lean = math.Atan2(c.Y-d.rest.Y, c.X-d.rest.X)
				d.truth.TouchesChips = true
			} else {
				d.rest = pt{wallX - rubberMM - edgeMM/2*math.Cos(d.tilt) - 2, pl.uniform(math.Max(300, pl.v.topY+40), math.Min(tableW-300, pl.v.bottom-40))}
				d.lean = 0
				d.truth.AgainstWall = true
			}
			d.scale = 1.02
			viaWall(d.rest, 0)
		case k == KindStacked:
			base := rests[0]
			a := pl.uniform(0, 2*math.Pi)
			off := pl.uniform(2, 6)
			d.rest = pt{base.X + off*math.Cos(a), base.Y + off*math.Sin(a)}
			d.scale = pl.uniform(1.16, 1.2)
			if pl.camH > 0 {
				d.scale = StackedView(pl.camH, edgeMM)
			}
			d.onDie = 0
			viaWall(d.rest, 0)
		}
		last := d.segs[len(d.segs)-1]
		d.stop = last.t1
		for _, s := range d.segs {
			d.total += s.length
		}
		if k == KindStacked && di == 1 && d.stop <= tp.dice[0].stop+0.08 {
			// the top die must come to rest after the one below it: it
			// rolls back from the wall more slowly
			sb := &d.segs[len(d.segs)-1]
			dur := tp.dice[0].stop + pl.uniform(0.1, 0.25) - sb.t0
			*sb = newSegment(sb.pts, 2*sb.length/dur, 0, sb.t0)
			d.stop = sb.t1
		}
		rests = append(rests, d.rest)
		tp.dice = append(tp.dice, d)
	}
	return tp
}

// crossTime samples the die's path for the first time cond holds.
func (d *dieTrack) crossTime(cond func(pt) bool) (float64, bool) {
	end := d.segs[len(d.segs)-1].t1 + 0.5
	for t := d.enter; t <= end; t += 0.001 {
		p, _, ok := d.posAt(t)
		if ok && cond(pt{p.X, p.Y}) {
			return t, true
		}
	}
	return 0, false
}

// zoneOf classifies a rest position by the calibration.
func (pl *planner) zoneOf(p pt) rules.Zone {
	return pl.cal.ZoneAt(calibration.Point{X: p.X, Y: p.Y})
}

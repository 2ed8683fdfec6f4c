package scene

import (
	"fmt"
	"image"
	"math"
	"math/rand/v2"
	"sort"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/calibration"
	"github.com/dicewatch/dicewatch/rules"
	"github.com/dicewatch/dicewatch/sensors"
)

// Config is a session to generate. The zero value of every field but Seed
// and Throws picks a default.
type Config struct {
	Seed   int64
	Throws int
	// Kinds are the throw kinds, used in order and repeated; empty means a
	// seeded mix, about half valid.
	Kinds  []Kind
	Camera Camera
	// Noise is the camera noise sigma in grey levels (default 2; below 0 none).
	Noise float64
	// Flicker is the mains flicker amplitude as a fraction of brightness
	// (default 0.015; below 0 none).
	Flicker float64
	// DropRate is the chance that a frame is lost (default 1/400; below 0 none).
	DropRate float64
	// Style of the dice (default Casino()).
	Style *Style
	// JPEGQuality of the video's frames (default 80).
	JPEGQuality int
	// CameraHeightMM, when set, is the camera's height over the table (at
	// least 200 mm): a die off the felt, hopping or resting on the other
	// die, is drawn as a pinhole camera there sees it, larger by
	// (H-e)/(H-e-z) for its top face z mm higher than a die on the felt
	// (e the die's edge; StackedView for a die on a die) and moved away from
	// the point under the camera by the same factor, its shadow left at
	// its footprint. Zero keeps the historical draw, bit for bit: 1+0.0085
	// per mm of height and stacked dice 1.16..1.2 larger, in place (a
	// camera about 0.13..0.16 m up (0.14 m for the hops), ImpliedCameraHeightMM).
	CameraHeightMM float64
}

// Session is a planned throw session that renders frames on demand. It owns
// gocv Mats: Close it.
type Session struct {
	cfg    Config
	cam    Camera
	v      *view
	table  *tableScene
	cal    *calibration.Calibration
	style  Style
	throws []*throwPlan
	truth  []ThrowTruth
	events []sensors.Event
	frames int
	gain   []float64
	noiseI []int
	drop   []bool

	bg    gocv.Mat
	work  gocv.Mat
	noise []gocv.Mat
}

// Timeline constants (seconds).
const (
	leadIn     = 0.6
	stickIn    = 0.3
	dragTime   = 0.5
	minHold    = 0.7
	maxHold    = 0.9
	tailOut    = 0.5
	shutter    = 0.008
	stickWidth = 14.0
)

// NewSession plans a session. Rendering happens frame by frame.
func NewSession(cfg Config) (*Session, error) {
	if cfg.Throws < 1 || cfg.Throws > 10000 {
		return nil, fmt.Errorf("scene: throws %d: must be 1..10000", cfg.Throws)
	}
	cam := cfg.Camera.withDefaults()
	if err := cam.validate(); err != nil {
		return nil, err
	}
	if cfg.Noise == 0 {
		cfg.Noise = 2
	}
	if cfg.Flicker == 0 {
		cfg.Flicker = 0.015
	}
	if cfg.DropRate == 0 {
		cfg.DropRate = 1.0 / 400
	}
	if cfg.JPEGQuality == 0 {
		cfg.JPEGQuality = 80
	}
	if cfg.JPEGQuality < 10 || cfg.JPEGQuality > 100 {
		return nil, fmt.Errorf("scene: jpeg quality %d: must be 10..100", cfg.JPEGQuality)
	}
	if cfg.CameraHeightMM != 0 && !(cfg.CameraHeightMM >= 200 && cfg.CameraHeightMM <= 5000) {
		return nil, fmt.Errorf("scene: camera height %g mm: must be 200..5000 (or 0)", cfg.CameraHeightMM)
	}
	st := Casino()
	if cfg.Style != nil {
		st = *cfg.Style
	}
	v, err := newView(cam)
	if err != nil {
		return nil, err
	}
	s := &Session{cfg: cfg, cam: cam, v: v, style: st}
	s.cal, err = s.buildCalibration()
	if err != nil {
		return nil, err
	}
	seed := uint64(cfg.Seed)
	planRNG := rand.New(rand.NewPCG(seed, 0x7468726f77)) // "throw"
	s.table = newTableScene(rand.New(rand.NewPCG(seed, 0x7461626c65)))
	pl := &planner{rng: planRNG, v: v, table: s.table, cal: s.cal, style: st, camH: cfg.CameraHeightMM}
	for _, k := range cfg.Kinds {
		if err := pl.feasible(k); err != nil {
			return nil, err
		}
	}
	var mix []Kind // the kinds a seeded mix draws from: those the camera sees
	for _, k := range Kinds()[1:] {
		if pl.feasible(k) == nil {
			mix = append(mix, k)
		}
	}
	t := leadIn
	for i := 0; i < cfg.Throws; i++ {
		k := KindValid
		switch {
		case len(cfg.Kinds) > 0:
			k = cfg.Kinds[i%len(cfg.Kinds)]
		case planRNG.Float64() < 0.5:
			k = KindValid
		default:
			k = mix[planRNG.IntN(len(mix))]
		}
		tp := pl.planThrow(i, k, t)
		s.finishThrow(pl, tp)
		s.throws = append(s.throws, tp)
		t = tp.c1 + pl.uniform(0.3, 0.5)
	}
	end := s.throws[len(s.throws)-1].c1 + tailOut
	s.frames = int(math.Ceil(end * cam.FPS))
	fx := rand.New(rand.NewPCG(seed, 0x6e6f697365)) // "noise"
	s.gain = make([]float64, s.frames)
	s.noiseI = make([]int, s.frames)
	s.drop = make([]bool, s.frames)
	phase := fx.Float64() * 2 * math.Pi
	beat := math.Mod(100, cam.FPS) // 100 Hz mains seen through the frame rate
	for k := range s.gain {
		tk := float64(k) / cam.FPS
		g := 1.0
		if cfg.Flicker > 0 {
			g += cfg.Flicker*math.Sin(2*math.Pi*beat*tk+phase) + cfg.Flicker*0.2*fx.NormFloat64()
		}
		s.gain[k] = g
		s.noiseI[k] = fx.IntN(4)
		if cfg.DropRate > 0 && k > 4 && !s.drop[k-1] && fx.Float64() < cfg.DropRate {
			s.drop[k] = true
		}
	}
	if err := s.computeTruth(); err != nil {
		return nil, err
	}
	return s, nil
}

// finishThrow sets the hold, stick and collection times.
func (s *Session) finishThrow(pl *planner, tp *throwPlan) {
	tp.atRest = 0
	for _, d := range tp.dice {
		if d.exits {
			continue
		}
		tp.atRest = math.Max(tp.atRest, d.stop)
	}
	for _, d := range tp.dice {
		if d.exits {
			if te, ok := s.leaveTime(d); ok {
				tp.atRest = math.Max(tp.atRest, te)
			}
		}
	}
	tp.hold = pl.uniform(minHold, maxHold)
	tp.c0 = tp.atRest + tp.hold
	tp.c1 = tp.c0 + stickIn + dragTime
	// The stick comes in from the stickperson's side, hooks behind the
	// dice and drags them off the bottom of the picture.
	cx, minY, n := 0.0, math.Inf(1), 0
	for _, d := range tp.dice {
		if !d.exits {
			cx += d.rest.X
			minY = math.Min(minY, d.rest.Y)
			n++
		}
	}
	if n == 0 {
		cx, minY = 2800, 700
	} else {
		cx /= float64(n)
	}
	tp.stick = stickPlan{from: pt{cx + 80, tableW + 400}, to: pt{cx, minY - 35}, c0: tp.c0, mid: tp.c0 + stickIn, c1: tp.c1}
	out := tableW + 420
	for _, d := range tp.dice {
		if d.exits {
			continue
		}
		d.c0, d.c1 = tp.c0+stickIn, tp.c1
		d.collectD = pt{(cx - d.rest.X) * 0.6, out - d.rest.Y}
	}
}

// stickTip is where the stick's hook is at time t, if it is in the picture.
func (tp *throwPlan) stickTip(t float64) (pt, bool) {
	sp := tp.stick
	switch {
	case t < sp.c0 || t > sp.c1:
		return pt{}, false
	case t < sp.mid:
		f := (t - sp.c0) / (sp.mid - sp.c0)
		f = 1 - (1-f)*(1-f)
		return pt{sp.from.X + (sp.to.X-sp.from.X)*f, sp.from.Y + (sp.to.Y-sp.from.Y)*f}, true
	default:
		f := (t - sp.mid) / (sp.c1 - sp.mid)
		f = f * f
		end := pt{sp.to.X + (sp.from.X-sp.to.X)*0.5, tableW + 420 + (sp.to.Y - sp.to.Y)}
		return pt{sp.to.X + (end.X-sp.to.X)*f, sp.to.Y + (end.Y-sp.to.Y)*f + 35*f}, true
	}
}

// inView is the fraction of a box inside the picture.
func (s *Session) inView(b image.Rectangle) float64 {
	a := b.Dx() * b.Dy()
	if a <= 0 {
		return 0
	}
	in := b.Intersect(image.Rect(0, 0, s.cam.Width, s.cam.Height))
	return float64(in.Dx()*in.Dy()) / float64(a)
}

func (s *Session) rasterStub() *raster { return &raster{w: s.cam.Width, h: s.cam.Height, v: s.v} }

// leaveTime is when an exiting die's box falls below half in the picture.
func (s *Session) leaveTime(d *dieTrack) (float64, bool) {
	r := s.rasterStub()
	seen := false
	for t := d.enter; t < d.stop+3; t += 0.001 {
		p, _, ok := d.posAt(t)
		if !ok {
			continue
		}
		f := s.inView(r.topBox(edgeMM, p))
		if f >= 0.5 {
			seen = true
		} else if seen {
			return t, true
		}
	}
	return 0, false
}

func (s *Session) buildCalibration() (*calibration.Calibration, error) {
	table, zones := calibration.Craps12Zones()
	c := &calibration.Calibration{
		Version:      calibration.Version,
		Table:        "generated",
		Camera:       calibration.Camera{Width: s.cam.Width, Height: s.cam.Height},
		Homography:   s.v.toTab,
		TablePolygon: table,
		Zones:        zones,
		Die:          calibration.Die{EdgeMM: edgeMM},
	}
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("scene: calibration: %w", err)
	}
	return c, nil
}

// Calibration is the true calibration of the session's camera.
func (s *Session) Calibration() *calibration.Calibration { return s.cal }

// Camera is the session's camera, defaults filled in.
func (s *Session) Camera() Camera { return s.cam }

// Frames is the number of frames in the session.
func (s *Session) Frames() int { return s.frames }

// Truth is the ground truth of every throw, in order.
func (s *Session) Truth() []ThrowTruth { return s.truth }

// SensorEvents is the session's sensor trace, in time order.
func (s *Session) SensorEvents() []sensors.Event { return s.events }

// Dropped reports whether frame k is lost (it repeats frame k-1).
func (s *Session) Dropped(k int) bool { return k >= 0 && k < len(s.drop) && s.drop[k] }

// DroppedFrames lists the lost frames.
func (s *Session) DroppedFrames() []int {
	out := []int{}
	for k, d := range s.drop {
		if d {
			out = append(out, k)
		}
	}
	return out
}

func msCeil(t float64) int64 { return int64(math.Ceil(t*1000 - 1e-6)) }

func (s *Session) frameAtOrAfter(t float64) int {
	return int(math.Ceil(t*s.cam.FPS - 1e-9))
}

// computeTruth walks the frames once to find first appearances and exits,
// and builds each throw's record and expected decision.
func (s *Session) computeTruth() error {
	r := s.rasterStub()
	var pulses []pulse
	for _, tp := range s.throws {
		tt := ThrowTruth{Throw: tp.index, Kind: tp.kind, StartFrame: -1}
		tt.AtRestMS = msCeil(tp.atRest)
		tt.AtRestFrame = s.frameAtOrAfter(tp.atRest)
		tt.CollectMS = msCeil(tp.c0)
		tt.ClearMS = msCeil(tp.c1)
		tt.EndFrame = s.frameAtOrAfter(tp.c1)
		rec := rules.Throw{Game: rules.Craps, DiceThrown: len(tp.dice), Sensors: rules.SensorEvidence{HasBackWall: true}}
		for _, d := range tp.dice {
			dt := d.truth
			dt.Die = d.id
			dt.Style = d.style.Name
			dt.FirstSeenFrame = -1
			k0 := s.frameAtOrAfter(d.enter)
			lastIn := -1
			var lastPx [2]float64
			for k := k0; k < s.frames && float64(k)/s.cam.FPS <= tp.atRest+0.5; k++ {
				p, _, ok := d.posAt(float64(k) / s.cam.FPS)
				if !ok {
					continue
				}
				f := s.inView(r.topBox(edgeMM, p))
				if f >= 0.5 {
					if dt.FirstSeenFrame < 0 {
						dt.FirstSeenFrame = k
						dt.FirstSeenMS = s.cam.FrameMS(k)
					}
					lastIn = k
					lastPx[0], lastPx[1] = s.v.img(p.X, p.Y)
				} else if d.exits && lastIn >= 0 {
					ex := ExitTruth{Die: d.id, AtMS: s.cam.FrameMS(k), Frame: k, Zone: rules.ZoneOffTable, XPx: lastPx[0], YPx: lastPx[1]}
					ex.Edge = edgeOf(lastPx, s.cam)
					tt.Exits = append(tt.Exits, ex)
					rec.Left = append(rec.Left, rules.Exit{Zone: rules.ZoneOffTable, AtMS: ex.AtMS})
					dt.Exited = true
					break
				}
			}
			if dt.FirstSeenFrame < 0 {
				return fmt.Errorf("scene: throw %d die %d is never in view (camera too close?)", tp.index, d.id)
			}
			if tt.StartFrame < 0 || dt.FirstSeenFrame < tt.StartFrame {
				tt.StartFrame = dt.FirstSeenFrame
			}
			if d.wallAt >= 0 {
				dt.HitWallMS = msCeil(d.wallAt)
			}
			if d.exits {
				if !dt.Exited {
					return fmt.Errorf("scene: throw %d die %d was planned to leave but stays in view", tp.index, d.id)
				}
			} else {
				rest, _, _ := d.posAt(d.stop + 1e-6)
				val, _ := topValue(rest.R)
				dt.Value = val
				dt.XMM, dt.YMM = d.rest.X, d.rest.Y
				dt.Zone = s.cal.ZoneAt(calibration.Point{X: d.rest.X, Y: d.rest.Y})
				b := r.topBox(edgeMM, s.seen(d, rest, false))
				dt.Box = [4]int{b.Min.X, b.Min.Y, b.Max.X, b.Max.Y}
				dt.Flat = d.tilt == 0
				dt.TiltDeg = math.Round(d.tilt*180/math.Pi*10) / 10
				dt.SizeRatio = math.Round(d.scale*1000) / 1000
				dt.StopMS = msCeil(d.stop)
				if d.onDie >= 0 {
					o := d.onDie
					dt.OnDie = &o
				}
				flatness := 1.0
				if !dt.Flat {
					flatness = math.Cos(d.tilt)
				}
				rec.Dice = append(rec.Dice, rules.Die{Value: dt.Value, Confidence: 1, XMM: dt.XMM, YMM: dt.YMM, Zone: dt.Zone,
					Flat: dt.Flat, Flatness: flatness, SizeRatio: dt.SizeRatio, FirstSeenMS: dt.FirstSeenMS, TouchesChips: dt.TouchesChips})
			}
			if d.exits {
				dt.Value = d.value
			}
			tt.Dice = append(tt.Dice, dt)
		}
		tt.StartMS = s.cam.FrameMS(tt.StartFrame)
		rec.StartMS = tt.StartMS
		rec.AtRestMS = tt.AtRestMS
		for _, e := range tp.events {
			ms := int64(math.Round(e.t * 1000))
			switch e.role {
			case "back_wall":
				rec.Sensors.BackWall = true
			case "bowl":
				rec.Sensors.Bowl = true
			case "rail":
				rec.Sensors.RailBreaks = appendOnce(rec.Sensors.RailBreaks, e.name)
			}
			pulses = append(pulses, pulse{ms: ms, end: ms + int64(math.Round(e.dur*1000)), role: e.role, name: e.name})
		}
		tt.Record = rec
		tt.Expected = rules.Decide(rec, rules.DefaultProfile(rules.Craps))
		s.truth = append(s.truth, tt)
	}
	s.events = pulseEdges(pulses)
	return nil
}

type pulse struct {
	ms, end    int64
	role, name string
}

// pulseEdges turns sensor pulses into edge events: pulses on one input that
// overlap (or nearly: within a 5 ms debounce) merge into one activation, so
// each input alternates active, inactive.
func pulseEdges(ps []pulse) []sensors.Event {
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].ms < ps[j].ms })
	const debounce = 5
	var merged []pulse
	last := map[string]int{} // input name -> index in merged
	for _, p := range ps {
		if i, ok := last[p.name]; ok && p.ms <= merged[i].end+debounce {
			merged[i].end = max(merged[i].end, p.end)
			continue
		}
		last[p.name] = len(merged)
		merged = append(merged, p)
	}
	evs := make([]sensors.Event, 0, 2*len(merged))
	for _, p := range merged {
		evs = append(evs,
			sensors.Event{AtMS: p.ms, Role: sensors.Role(p.role), Name: p.name, Kind: sensors.KindEdge, Active: true},
			sensors.Event{AtMS: p.end, Role: sensors.Role(p.role), Name: p.name, Kind: sensors.KindEdge, Active: false})
	}
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].AtMS < evs[j].AtMS })
	return evs
}

func appendOnce(l []string, s string) []string {
	for _, x := range l {
		if x == s {
			return l
		}
	}
	return append(l, s)
}

func edgeOf(p [2]float64, cam Camera) string {
	d := map[string]float64{"left": p[0], "right": float64(cam.Width) - p[0], "top": p[1], "bottom": float64(cam.Height) - p[1]}
	best, bd := "", math.Inf(1)
	for _, e := range []string{"top", "bottom", "left", "right"} {
		if d[e] < bd {
			best, bd = e, d[e]
		}
	}
	return best
}

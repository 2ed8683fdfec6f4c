package scene

import (
	"fmt"
	"image"
	"math"
	"math/rand/v2"
	"sort"

	"gocv.io/x/gocv"
)

// prepare renders the static table and the noise fields on first use.
func (s *Session) prepare() error {
	if s.bg.Ptr() != nil && !s.bg.Empty() {
		return nil
	}
	bg, err := s.table.renderBackground(s.v, uint32(s.cfg.Seed))
	if err != nil {
		return err
	}
	s.bg = bg
	s.work = gocv.NewMatWithSize(s.cam.Height, s.cam.Width, gocv.MatTypeCV8UC3)
	if s.cfg.Noise > 0 {
		rng := rand.New(rand.NewPCG(uint64(s.cfg.Seed), 0x677261696e)) // "grain"
		n := s.cam.Width * s.cam.Height * 3
		for i := 0; i < 4; i++ {
			m := gocv.NewMatWithSize(s.cam.Height, s.cam.Width, gocv.MatTypeCV8UC3)
			d, err := m.DataPtrUint8()
			if err != nil {
				m.Close()
				return fmt.Errorf("scene: noise: %w", err)
			}
			// Sensor noise after the camera's own processing: mostly luma
			// (the same on all three channels) with a little chroma. A cheap
			// near-Gaussian: the sum of three 16-bit uniforms.
			sig := s.cfg.Noise
			gauss := func(u uint64) float64 {
				a := float64(u&0xffff) + float64((u>>16)&0xffff) + float64((u>>32)&0xffff)
				return (a/65535 - 1.5) * 2 // variance 1
			}
			for j := 0; j+2 < n; j += 3 {
				l := gauss(rng.Uint64()) * sig
				c := rng.Uint64()
				for ch := 0; ch < 3; ch++ {
					v := 128 + l + float64(int((c>>(16*ch))&0xff)-128)/128*sig*0.5
					d[j+ch] = uint8(math.Max(0, math.Min(255, v+0.5)))
				}
			}
			s.noise = append(s.noise, m)
		}
	}
	return nil
}

// Close releases the session's Mats.
func (s *Session) Close() error {
	for _, m := range []*gocv.Mat{&s.bg, &s.work} {
		if m.Ptr() != nil {
			m.Close()
		}
	}
	for i := range s.noise {
		s.noise[i].Close()
	}
	s.noise = nil
	return nil
}

// Background renders the empty table (no noise, no flicker) into dst,
// which must be an 8UC3 Mat of the camera size or empty.
func (s *Session) Background(dst *gocv.Mat) error {
	if err := s.prepare(); err != nil {
		return err
	}
	s.bg.CopyTo(dst)
	return nil
}

// throwAt is the throw whose dice are on the table at time t, or nil.
func (s *Session) throwAt(t float64) *throwPlan {
	for _, tp := range s.throws {
		if t >= tp.start && t <= tp.c1 {
			return tp
		}
	}
	return nil
}

// Render draws frame k's picture (as exposed, ignoring drops) into dst, an
// 8UC3 Mat of the camera size (an empty dst is allocated). It returns the
// frame's truth.
func (s *Session) Render(k int, dst *gocv.Mat) (FrameTruth, error) {
	if k < 0 || k >= s.frames {
		return FrameTruth{}, fmt.Errorf("scene: frame %d out of range 0..%d", k, s.frames-1)
	}
	if err := s.prepare(); err != nil {
		return FrameTruth{}, err
	}
	t := float64(k) / s.cam.FPS
	ft := FrameTruth{Frame: k, TMS: s.cam.FrameMS(k), Throw: -1, Phase: "idle", Gain: math.Round(s.gain[k]*1e4) / 1e4}
	s.bg.CopyTo(&s.work)
	buf, err := s.work.DataPtrUint8()
	if err != nil {
		return ft, fmt.Errorf("scene: render: %w", err)
	}
	r := &raster{buf: buf, w: s.cam.Width, h: s.cam.Height, stride: s.cam.Width * 3, v: s.v}
	if tp := s.throwAt(t); tp != nil {
		ft.Throw = tp.index
		switch {
		case t < tp.atRest:
			ft.Phase = "throwing"
		case t < tp.c0:
			ft.Phase = "at_rest"
		default:
			ft.Phase = "collecting"
		}
		ft.Dice = s.drawDice(r, tp, t)
		if tip, ok := tp.stickTip(t); ok {
			s.drawStick(tp, tip)
			ft.Stick = true
		}
	}
	if dst.Ptr() == nil || dst.Empty() {
		if dst.Ptr() != nil {
			dst.Close()
		}
		*dst = gocv.NewMatWithSize(s.cam.Height, s.cam.Width, gocv.MatTypeCV8UC3)
	}
	if len(s.noise) > 0 {
		gocv.AddWeighted(s.work, s.gain[k], s.noise[s.noiseI[k]], 1, -128, dst)
	} else {
		s.work.ConvertToWithParams(dst, gocv.MatTypeCV8UC3, float32(s.gain[k]), 0)
	}
	return ft, nil
}

func (s *Session) drawDice(r *raster, tp *throwPlan, t float64) []FrameDie {
	dice := append([]*dieTrack(nil), tp.dice...)
	sort.SliceStable(dice, func(i, j int) bool { return dice[i].z < dice[j].z })
	var out []FrameDie
	camH := s.cfg.CameraHeightMM
	for _, d := range dice {
		mid, moving, ok := d.posAt(t)
		if !ok {
			continue
		}
		foot := mid // where its shadow falls from
		seen := func(p pose) pose { return s.seen(d, p, moving) }
		mid = seen(mid)
		box := r.topBox(edgeMM, mid)
		if s.inView(r.dieBox(edgeMM, []pose{mid})) == 0 {
			continue
		}
		poses := []pose{mid}
		blur := 0.0
		if moving {
			a, _, oka := d.posAt(t - shutter/2)
			b, _, okb := d.posAt(t + shutter/2)
			if oka && okb {
				ax, ay := s.v.img(a.X, a.Y)
				bx, by := s.v.img(b.X, b.Y)
				travel := math.Hypot(bx-ax, by-ay)
				blur = math.Hypot(b.X-a.X, b.Y-a.Y)
				n := int(math.Ceil(travel / 2.5))
				if n < 2 {
					n = 2
				}
				if n > 8 {
					n = 8
				}
				poses = poses[:0]
				for i := 0; i < n; i++ {
					ts := t - shutter/2 + shutter*float64(i)/float64(n-1)
					if p, _, ok := d.posAt(ts); ok {
						poses = append(poses, seen(p))
					}
				}
			}
		}
		h := (mid.Scale - 1) / 0.0085
		if camH > 0 {
			h = (camH - edgeMM) * (1 - 1/mid.Scale)
		}
		if d.onDie >= 0 {
			h = edgeMM * math.Min(1, (mid.Scale-1)/(d.scale-1+1e-9))
		}
		r.drawShadow(edgeMM, foot, h, blur, d.style.Tint, 0.55)
		ss := 3
		if len(poses) > 1 {
			ss = 2
		}
		if camH > 0 && !moving && d.onDie >= 0 && mid.Scale > 1 {
			f := foot
			f.Scale = 1
			r.drawRaised(edgeMM, d.style, f, mid, ss)
		} else {
			r.drawDie(edgeMM, d.style, poses, ss)
		}
		b := box.Intersect(image.Rect(0, 0, s.cam.Width, s.cam.Height))
		if b.Empty() {
			continue
		}
		out = append(out, FrameDie{Die: d.id, Box: [4]int{b.Min.X, b.Min.Y, b.Max.X, b.Max.Y}, Moving: moving})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Die < out[j].Die })
	return out
}

// seen is where die d's pose p at table place (p.X, p.Y) is drawn: with
// a camera height (Config.CameraHeightMM) a die raised off the felt, on
// the other die or hopping (Scale > 1), is seen moved out from the point
// under the camera by its scale; that point is taken as the middle of the
// view (the default keystone tips the camera by about a degree). A cocked
// die keeps the historical draw (1.02 larger, in place), as does every
// die without a height.
func (s *Session) seen(d *dieTrack, p pose, moving bool) pose {
	if s.cfg.CameraHeightMM > 0 && p.Scale != 1 && (d.onDie >= 0 || moving) {
		nx, ny := s.v.tab(float64(s.cam.Width)/2, float64(s.cam.Height)/2)
		p.X, p.Y = nx+(p.X-nx)*p.Scale, ny+(p.Y-ny)*p.Scale
	}
	return p
}

// drawStick draws the stickperson's stick: a shaft from below the picture
// to a hooked tip, with its shadow.
func (s *Session) drawStick(tp *throwPlan, tip pt) {
	dir := pt{0.12, 1}
	l := math.Hypot(dir.X, dir.Y)
	dir = pt{dir.X / l, dir.Y / l}
	nrm := pt{-dir.Y, dir.X}
	far := pt{tip.X + dir.X*1800, tip.Y + dir.Y*1800}
	w := stickWidth / 2
	shaft := [][2]float64{
		{tip.X + nrm.X*w, tip.Y + nrm.Y*w}, {far.X + nrm.X*w, far.Y + nrm.Y*w},
		{far.X - nrm.X*w, far.Y - nrm.Y*w}, {tip.X - nrm.X*w, tip.Y - nrm.Y*w},
	}
	hook := [][2]float64{
		{tip.X - nrm.X*45, tip.Y - nrm.Y*45}, {tip.X + nrm.X*45, tip.Y + nrm.Y*45},
		{tip.X + nrm.X*45 + dir.X*12, tip.Y + nrm.Y*45 + dir.Y*12}, {tip.X - nrm.X*45 + dir.X*12, tip.Y - nrm.Y*45 + dir.Y*12},
	}
	shadow := func(p [][2]float64) [][2]float64 {
		q := make([][2]float64, len(p))
		for i, v := range p {
			q[i] = [2]float64{v[0] + 18, v[1] + 24}
		}
		return q
	}
	dark := [3]float64{20, 40, 15}
	polyMM(&s.work, s.v, shadow(shaft), dark)
	polyMM(&s.work, s.v, shadow(hook), dark)
	wood := [3]float64{70, 130, 185}
	polyMM(&s.work, s.v, shaft, wood)
	polyMM(&s.work, s.v, hook, [3]float64{55, 105, 160})
}

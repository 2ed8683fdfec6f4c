package motion

import (
	"image"
	"math"
	"sort"

	"gocv.io/x/gocv"
)

// Tracker follows throws frame by frame. Create it with New, feed every
// frame to Update in order, and Close it to release its Mats.
type Tracker struct {
	cfg    Config
	orig   Config // as given, before defaults
	fw, fh int    // frame size the buffers are made for
	ready  bool   // sized to the first frame
	w, h   int    // working image size
	dieW   float64
	minPx  int // smallest blob that is a die candidate (working px)
	bigPx  int // blobs above this are Large
	movePx int // changed pixels that make a candidate moving

	small, prev, bgF, bg8, d3, dBg, dMv, fg, mv, upd, kernel gocv.Mat

	labels  []int32
	stack   []int32
	touched []int32
	blobs   []blob

	frame        int
	phase        Phase
	tracks       []*track
	nextID       int
	lastMotion   int64 // the dice are still since this time (frame before the last change)
	lastChange   int64 // the last frame that showed change
	prevAt       int64 // time of the previous frame
	lastAnyMove  int64 // last frame with motion, any phase
	clearSince   int64
	clearRunning bool
	// gap: the next frame follows a break in the stream (see Resume).
	gap bool
}

type blob struct {
	box    image.Rectangle // working px, Max exclusive
	area   int
	cx, cy float64
	moving bool
	used   bool
}

type track struct {
	id             int
	cx, cy, vx, vy float64
	box            image.Rectangle
	firstMS        int64
	firstFrame     int
	age, miss      int
	moving, large  bool
	seen           bool
	inX, inY       float64 // inward normal of the edge it entered over
	area           int
	// grewMS/grewFrame: when its blob grew by another die entering behind
	// it (a die that later splits off takes this as its first appearance).
	grewMS    int64
	grewFrame int
	// provisional: first seen as a sliver at the border; its first
	// appearance moves to when enough of it is in view.
	provisional bool
}

// New returns a Tracker. Its working buffers are sized on the first frame.
func New(cfg Config) *Tracker {
	return &Tracker{cfg: cfg, orig: cfg, phase: Idle}
}

// Phase is the tracker's phase after the last Update.
func (t *Tracker) Phase() Phase { return t.phase }

// Close releases the tracker's Mats. It is safe to call more than once.
func (t *Tracker) Close() error {
	if !t.ready {
		return nil
	}
	for _, m := range []*gocv.Mat{&t.small, &t.prev, &t.bgF, &t.bg8, &t.d3, &t.dBg, &t.dMv, &t.fg, &t.mv, &t.upd, &t.kernel} {
		m.Close()
	}
	t.ready = false
	return nil
}

func (t *Tracker) init(frame gocv.Mat) {
	t.fw, t.fh = frame.Cols(), frame.Rows()
	t.cfg.defaults(frame.Cols(), frame.Rows())
	r, s := t.cfg.ROI, t.cfg.Scale
	t.w, t.h = max(1, r.Dx()/s), max(1, r.Dy()/s)
	t.dieW = t.cfg.DiePx / float64(s)
	area := t.dieW * t.dieW
	t.minPx = max(2, int(0.2*area))
	t.bigPx = int(12 * area)
	// Changed pixels that make a blob moving: enough that compression and
	// sensor noise around a still die does not qualify.
	// (0.3 of a die: a cocked die's skewed, high-contrast rim flickers under
	// MJPG compression by about 0.2 of a die in recordings.)
	t.movePx = max(2, int(math.Round(0.3*area)))
	for _, m := range []*gocv.Mat{&t.small, &t.prev, &t.bgF, &t.bg8, &t.d3, &t.dBg, &t.dMv, &t.fg, &t.mv, &t.upd} {
		*m = gocv.NewMat()
	}
	k := 2*int(math.Ceil(t.dieW)) + 1
	t.kernel = gocv.GetStructuringElement(gocv.MorphRect, image.Pt(k, k))
	t.labels = make([]int32, t.w*t.h)
	t.ready = true
}

// Resume tells the tracker that the next frame follows a break in the
// stream (a camera outage): what happened in between was not seen. That
// frame is not compared with the last one before the break (whatever moved
// in the dark is not this frame's motion, and a die that vanished in the
// dark did not leave through an edge), and a throw still running counts
// its settle window again from it. When that frame shows the landing area
// empty, a throw cut by the outage comes to rest there with no dice and
// the table is clear. When a throw had come to rest before the break and
// nothing lies where its dice were and no stick or hand is in view, they
// were collected in the dark: the table is clear at once, or whatever is
// coming in is a new throw. Waiting out ClearMS as after a throw seen
// collected took a throw entering in the first moments after the camera
// came back for the stickperson's hand, and never reported it.
func (t *Tracker) Resume() { t.gap = true }

// SetBackground makes frame the model of the empty table (for example a
// frame saved at calibration). Without it, the first frame is the model.
func (t *Tracker) SetBackground(frame gocv.Mat) {
	if t.ready && (frame.Cols() != t.fw || frame.Rows() != t.fh) {
		t.Close()
		t.cfg = t.orig
	}
	if !t.ready {
		t.init(frame)
	}
	t.shrink(frame)
	t.small.ConvertTo(&t.bgF, gocv.MatTypeCV32FC3)
	t.small.CopyTo(&t.bg8)
	t.small.CopyTo(&t.prev)
}

// shrink puts the downscaled region of interest of frame into t.small.
func (t *Tracker) shrink(frame gocv.Mat) {
	// Area averaging has a fast path for halving; other factors are much
	// cheaper bilinear (the noise it lets through is under the thresholds).
	interp := gocv.InterpolationLinear
	if t.cfg.Scale <= 2 {
		interp = gocv.InterpolationArea
	}
	r := t.cfg.ROI
	if r == image.Rect(0, 0, frame.Cols(), frame.Rows()) {
		gocv.Resize(frame, &t.small, image.Pt(t.w, t.h), 0, 0, interp)
	} else {
		roi := frame.Region(r)
		gocv.Resize(roi, &t.small, image.Pt(t.w, t.h), 0, 0, interp)
		roi.Close()
	}
	if t.cfg.Scale == 1 {
		// No averaging from the downscale: smooth sensor and compression
		// noise instead.
		gocv.GaussianBlur(t.small, &t.small, image.Pt(3, 3), 0, 0, gocv.BorderReplicate)
	}
}

// Update takes the next frame (BGR, the same size every time) and its
// stream time, and returns what it showed.
func (t *Tracker) Update(frame gocv.Mat, atMS int64) Result {
	idx := t.frame
	t.frame++
	res := Result{Frame: idx, AtMS: atMS}
	if frame.Empty() || frame.Channels() != 3 {
		res.Phase = t.phase
		return res
	}
	if t.ready && (frame.Cols() != t.fw || frame.Rows() != t.fh) {
		// The camera came back at another size: start over.
		t.Close()
		t.cfg, t.phase, t.tracks = t.orig, Idle, nil
		res.Clear = true
	}
	if !t.ready || t.bg8.Empty() {
		t.SetBackground(frame)
		res.Phase = t.phase
		return res
	}
	t.shrink(frame)
	gap := t.gap
	t.gap = false
	if gap {
		t.small.CopyTo(&t.prev)
	}

	// Colour distance to the background and to the previous frame, each
	// against its own noise floor (the frame-wide mean absorbs flicker).
	gocv.AbsDiff(t.small, t.bg8, &t.d3)
	gocv.CvtColor(t.d3, &t.dBg, gocv.ColorBGRToGray)
	gocv.AbsDiff(t.small, t.prev, &t.d3)
	gocv.CvtColor(t.d3, &t.dMv, gocv.ColorBGRToGray)
	t.small.CopyTo(&t.prev)
	gocv.Threshold(t.dBg, &t.fg, float32(floor(t.dBg)+t.cfg.ForegroundThreshold), 255, gocv.ThresholdBinary)
	gocv.Threshold(t.dMv, &t.mv, float32(floor(t.dMv)+t.cfg.MotionThreshold), 255, gocv.ThresholdBinary)

	fg, err1 := t.fg.DataPtrUint8()
	mv, err2 := t.mv.DataPtrUint8()
	if err1 != nil || err2 != nil || len(fg) != t.w*t.h || len(mv) != t.w*t.h {
		res.Phase = t.phase
		return res
	}
	t.label(fg, mv)
	motion := false
	for i := range t.blobs {
		if t.blobs[i].moving {
			motion = true
		}
	}

	if gap && t.phase == Rested && !t.blobsOnTracks() && !t.largeBlob() {
		// Back from a break, and nothing lies where the rested dice
		// were, nor is a stick or hand in view: they were collected in
		// the dark. The table is clear, or what is in view is a new
		// throw coming in.
		t.phase = Idle
		t.tracks = t.tracks[:0]
		t.clearRunning = false
		res.Clear = len(t.blobs) == 0
	}
	exits := t.associate(idx, atMS, &res)
	if gap {
		exits = nil
	}
	if len(exits) > 0 {
		motion = true
	}
	res.Motion = motion
	// Change between the previous frame and this one happened after the
	// previous frame was exposed: the dice have been still at least since
	// then. The settle window counts from that frame's time.
	changeFrom := t.prevAt
	if idx == 0 || changeFrom > atMS || gap {
		changeFrom = atMS
	}
	t.prevAt = atMS
	if motion {
		t.lastAnyMove = atMS
		t.lastChange = atMS
	}

	switch {
	case gap && len(t.blobs) == 0 && t.phase == Throwing:
		// Back from a break on the empty table: the throw cut by it
		// comes to rest here, with no dice.
		res.AtRest = &AtRest{Frame: idx, AtMS: atMS, StillSinceMS: atMS, LastMotionMS: t.lastChange}
		t.phase = Idle
		t.tracks = t.tracks[:0]
		res.Clear = true
	case gap && t.phase == Throwing:
		t.lastMotion = atMS
	}
	switch t.phase {
	case Idle:
		if len(res.Appeared) > 0 {
			t.phase = Throwing
			res.Started = true
			t.lastMotion = changeFrom
		} else if len(t.blobs) > 0 && atMS-t.lastAnyMove >= t.cfg.AbsorbMS {
			t.absorb()
		}
	case Throwing:
		res.Exits = exits
		if motion {
			t.lastMotion = changeFrom
		} else if atMS-t.lastMotion >= t.cfg.SettleMS {
			t.phase = Rested
			t.clearRunning = false
			res.AtRest = &AtRest{Frame: idx, AtMS: atMS, StillSinceMS: t.lastMotion, LastMotionMS: t.lastChange}
		}
	case Rested:
		switch {
		case len(t.blobs) > 0:
			t.clearRunning = false
			if atMS-t.lastAnyMove >= t.cfg.AbsorbMS {
				t.absorb()
				t.phase = Idle
			}
		case !t.clearRunning:
			t.clearRunning, t.clearSince = true, atMS
		}
		if t.clearRunning && atMS-t.clearSince >= t.cfg.ClearMS {
			t.phase = Idle
			t.tracks = t.tracks[:0]
			res.Clear = true
		}
	}
	res.Phase = t.phase
	res.Dice = t.candidates()
	if res.AtRest != nil {
		res.AtRest.Dice = res.Dice
	}
	if t.phase == Idle && res.Clear {
		res.Dice = nil
	}
	if idx%t.cfg.BackgroundEvery == 0 {
		t.updateBackground()
	}
	return res
}

// floor is the noise floor of a distance image: its mean, capped so a large
// foreground object cannot lift it far.
func floor(m gocv.Mat) float64 { return math.Min(m.Mean().Val1, 10) }

// label finds the 8-connected foreground blobs and whether each moved.
func (t *Tracker) label(fg, mv []uint8) {
	for _, i := range t.touched {
		t.labels[i] = 0
	}
	t.touched = t.touched[:0]
	t.blobs = t.blobs[:0]
	w, h := t.w, t.h
	for start, v := range fg {
		if v == 0 || t.labels[start] != 0 {
			continue
		}
		id := int32(len(t.blobs) + 1)
		b := blob{box: image.Rectangle{Min: image.Pt(w, h)}}
		var sx, sy float64
		t.stack = append(t.stack[:0], int32(start))
		t.labels[start] = id
		t.touched = append(t.touched, int32(start))
		for len(t.stack) > 0 {
			p := int(t.stack[len(t.stack)-1])
			t.stack = t.stack[:len(t.stack)-1]
			x, y := p%w, p/w
			b.area++
			sx += float64(x)
			sy += float64(y)
			b.box.Min.X, b.box.Min.Y = min(b.box.Min.X, x), min(b.box.Min.Y, y)
			b.box.Max.X, b.box.Max.Y = max(b.box.Max.X, x+1), max(b.box.Max.Y, y+1)
			for dy := -1; dy <= 1; dy++ {
				yy := y + dy
				if yy < 0 || yy >= h {
					continue
				}
				for dx := -1; dx <= 1; dx++ {
					xx := x + dx
					if xx < 0 || xx >= w {
						continue
					}
					q := yy*w + xx
					if fg[q] != 0 && t.labels[q] == 0 {
						t.labels[q] = id
						t.touched = append(t.touched, int32(q))
						t.stack = append(t.stack, int32(q))
					}
				}
			}
		}
		if b.area < t.minPx {
			continue // noise; its pixels stay labelled so they are not revisited
		}
		b.cx, b.cy = sx/float64(b.area), sy/float64(b.area)
		// Changed pixels in and just around the blob make it moving.
		r := b.box.Inset(-1).Intersect(image.Rect(0, 0, w, h))
		n := 0
		for y := r.Min.Y; y < r.Max.Y && n < t.movePx; y++ {
			row := mv[y*w : y*w+w]
			for x := r.Min.X; x < r.Max.X; x++ {
				if row[x] != 0 {
					n++
				}
			}
		}
		b.moving = n >= t.movePx
		t.blobs = append(t.blobs, b)
	}
}

// associate matches blobs to tracks, starts tracks for new blobs and
// returns the tracks that left the view.
func (t *Tracker) associate(idx int, atMS int64, res *Result) []Exit {
	type pair struct {
		ti, bi int
		d      float64
	}
	var pairs []pair
	for ti, tr := range t.tracks {
		tr.seen = false
		px, py := tr.cx+tr.vx, tr.cy+tr.vy
		if tr.age == 0 {
			// Just entered over an edge: it is heading inwards.
			px, py = tr.cx+tr.inX*6*t.dieW, tr.cy+tr.inY*6*t.dieW
		}
		gate := 4*t.dieW + 2*math.Hypot(tr.vx, tr.vy)
		if tr.age < 3 {
			gate = math.Max(gate, 14*t.dieW)
		}
		for bi := range t.blobs {
			b := &t.blobs[bi]
			if d := math.Hypot(b.cx-px, b.cy-py); d <= gate {
				pairs = append(pairs, pair{ti, bi, d})
			}
		}
	}
	sort.Slice(pairs, func(i, j int) bool { return pairs[i].d < pairs[j].d })
	for _, p := range pairs {
		tr, b := t.tracks[p.ti], &t.blobs[p.bi]
		if tr.seen || b.used {
			continue
		}
		b.used, tr.seen = true, true
		nvx, nvy := b.cx-tr.cx, b.cy-tr.cy
		if tr.age == 0 {
			tr.vx, tr.vy = nvx, nvy
		} else {
			tr.vx, tr.vy = 0.6*nvx+0.4*tr.vx, 0.6*nvy+0.4*tr.vy
		}
		tr.cx, tr.cy, tr.box = b.cx, b.cy, b.box
		tr.moving, tr.large = b.moving, b.area > t.bigPx
		tr.miss = 0
		tr.age++
		// A young blob near its entry edge that suddenly grows has taken
		// in another die coming over the edge behind it.
		if tr.age <= 6 && 5*b.area >= 8*tr.area && t.nearBorder(b.box, int(10*t.dieW)) {
			tr.grewMS, tr.grewFrame = atMS, idx
		}
		tr.area = b.area
		// A die first seen as a sliver at the edge appears when about
		// half of it is in view (or it is clear of the edge).
		if tr.provisional && (float64(b.area) >= t.dieW*t.dieW || !t.nearBorder(b.box, 1)) {
			tr.provisional = false
			tr.firstMS, tr.firstFrame = atMS, idx
		}
	}
	// A track whose die is hidden inside another blob (dice touching, a
	// hand over them) is kept where it is.
	for _, tr := range t.tracks {
		if tr.seen {
			continue
		}
		px, py := tr.cx+tr.vx, tr.cy+tr.vy
		if tr.age == 0 {
			px, py = tr.cx+tr.inX*6*t.dieW, tr.cy+tr.inY*6*t.dieW
		}
		for bi := range t.blobs {
			b := &t.blobs[bi]
			grown := b.box.Inset(-int(math.Ceil(t.dieW)))
			if image.Pt(int(tr.cx), int(tr.cy)).In(grown) || image.Pt(int(px), int(py)).In(grown) {
				tr.seen, tr.miss, tr.moving = true, 0, b.moving
				tr.vx, tr.vy = b.cx-tr.cx, b.cy-tr.cy
				tr.cx, tr.cy, tr.box = b.cx, b.cy, b.box
				tr.age++
				break
			}
		}
	}
	// Tracks not seen: left the view through an edge, or lost.
	var exits []Exit
	keep := t.tracks[:0]
	for _, tr := range t.tracks {
		if tr.seen {
			keep = append(keep, tr)
			continue
		}
		if tr.miss == 0 {
			if e, ok := t.exitOf(tr); ok {
				e.AtMS, e.Frame = atMS, idx
				exits = append(exits, e)
				continue
			}
		}
		tr.miss++
		tr.vx, tr.vy = 0, 0
		if tr.miss <= 3 {
			keep = append(keep, tr)
		}
	}
	t.tracks = keep
	exits = t.dedupExits(exits)
	// New blobs start tracks. A blob that appears inside the view next to
	// a known die is that die split from a clump: it keeps its history.
	for bi := range t.blobs {
		b := &t.blobs[bi]
		if b.used || t.phase == Rested {
			continue // after rest, new blobs are hands and sticks, not dice
		}
		if t.phase == Idle && !b.moving && float64(b.area) < 0.3*t.dieW*t.dieW {
			// On the empty table, a still speck smaller than a third of a
			// die is a glint under flickering light, not a throw: thrown
			// dice come in moving. Taken for one, it would open a throw
			// that swallows the real one after it.
			continue
		}
		tr := &track{id: t.nextID, cx: b.cx, cy: b.cy, box: b.box, area: b.area, firstMS: atMS, firstFrame: idx,
			moving: b.moving, large: b.area > t.bigPx, seen: true}
		m := int(math.Ceil(t.dieW))
		tr.provisional = float64(b.area) < t.dieW*t.dieW && t.nearBorder(b.box, 1)
		if t.nearBorder(b.box, 10*m) {
			// Fast dice are first seen well inside: near an edge, it came
			// in over that edge.
			tr.inX, tr.inY = t.inward(b.cx, b.cy)
		}
		if !t.nearBorder(b.box, m) {
			grown := b.box.Inset(-2 * m)
			for _, o := range t.tracks {
				if !o.box.Overlaps(grown) {
					continue
				}
				ms, f := o.firstMS, o.firstFrame
				if o.grewFrame > f {
					ms, f = o.grewMS, o.grewFrame
				}
				if f < tr.firstFrame {
					tr.firstMS, tr.firstFrame = ms, f
				}
			}
		}
		t.nextID++
		t.tracks = append(t.tracks, tr)
		if tr.firstFrame == idx && t.phase != Rested {
			res.Appeared = append(res.Appeared, tr.id)
		}
	}
	return exits
}

// blobsOnTracks reports whether a foreground blob of this frame lies on
// (within a die of) a tracked candidate's last box.
func (t *Tracker) blobsOnTracks() bool {
	m := int(math.Ceil(t.dieW))
	for _, tr := range t.tracks {
		grown := tr.box.Inset(-m)
		for i := range t.blobs {
			if t.blobs[i].box.Overlaps(grown) {
				return true
			}
		}
	}
	return false
}

// largeBlob reports whether a foreground blob of this frame is much bigger
// than a die (a stick, a hand, dice in a clump).
func (t *Tracker) largeBlob() bool {
	for i := range t.blobs {
		if t.blobs[i].area > t.bigPx {
			return true
		}
	}
	return false
}

// inward is the unit normal pointing into the view from the edge nearest
// to (x, y).
func (t *Tracker) inward(x, y float64) (float64, float64) {
	W, H := float64(t.w), float64(t.h)
	d := []float64{x, W - x, y, H - y}
	n := [][2]float64{{1, 0}, {-1, 0}, {0, 1}, {0, -1}}
	best := 0
	for i := range d {
		if d[i] < d[best] {
			best = i
		}
	}
	return n[best][0], n[best][1]
}

// dedupExits merges exits in one frame whose last centres are within a
// die of each other: one die seen as two tracks (a blurred die in two
// pieces, a clump that split wrongly) leaves once. Two dice that leave
// touching are reported as one; either way the throw has a die off the
// table.
func (t *Tracker) dedupExits(exits []Exit) []Exit {
	if len(exits) < 2 {
		return exits
	}
	d := 1.5 * t.cfg.DiePx
	out := exits[:0]
	for _, e := range exits {
		dup := false
		for i := range out {
			if math.Hypot(out[i].LastX-e.LastX, out[i].LastY-e.LastY) <= d {
				dup = true
				if e.FirstSeenFrame < out[i].FirstSeenFrame {
					out[i].FirstSeenMS, out[i].FirstSeenFrame = e.FirstSeenMS, e.FirstSeenFrame
				}
			}
		}
		if !dup {
			out = append(out, e)
		}
	}
	return out
}

func (t *Tracker) nearBorder(r image.Rectangle, m int) bool {
	return r.Min.X <= m || r.Min.Y <= m || r.Max.X >= t.w-m || r.Max.Y >= t.h-m
}

// exitOf decides whether a track that vanished left through an edge: its
// last box touched the border, or its predicted centre is outside.
func (t *Tracker) exitOf(tr *track) (Exit, bool) {
	m := int(math.Ceil(t.dieW))
	px, py := tr.cx+tr.vx, tr.cy+tr.vy
	W, H := float64(t.w), float64(t.h)
	inside := px > float64(m) && py > float64(m) && px < W-float64(m) && py < H-float64(m)
	if inside && !t.nearBorder(tr.box, 1) {
		return Exit{}, false
	}
	// The edge: the one the predicted centre is nearest to (or furthest
	// beyond), and the point where the path meets it.
	dist := map[Edge]float64{EdgeLeft: px, EdgeRight: W - px, EdgeTop: py, EdgeBottom: H - py}
	edge, best := EdgeLeft, math.Inf(1)
	for _, e := range []Edge{EdgeLeft, EdgeRight, EdgeTop, EdgeBottom} {
		if dist[e] < best {
			edge, best = e, dist[e]
		}
	}
	x, y := tr.cx, tr.cy
	switch edge {
	case EdgeLeft, EdgeRight:
		bx := 0.0
		if edge == EdgeRight {
			bx = W
		}
		if math.Abs(tr.vx) > 1e-6 {
			y = tr.cy + (bx-tr.cx)*tr.vy/tr.vx
		}
		x, y = bx, math.Max(0, math.Min(H, y))
	default:
		by := 0.0
		if edge == EdgeBottom {
			by = H
		}
		if math.Abs(tr.vy) > 1e-6 {
			x = tr.cx + (by-tr.cy)*tr.vx/tr.vy
		}
		x, y = math.Max(0, math.Min(W, x)), by
	}
	fx, fy := t.full(x, y)
	lx, ly := t.full(tr.cx, tr.cy)
	e := Exit{ID: tr.id, Edge: edge, LastX: lx, LastY: ly, X: fx, Y: fy,
		FirstSeenMS: tr.firstMS, FirstSeenFrame: tr.firstFrame}
	if t.cfg.ZoneOf != nil {
		e.Zone = t.cfg.ZoneOf(fx, fy)
	}
	return e, true
}

// full maps a working-image point to full-frame pixels.
func (t *Tracker) full(x, y float64) (float64, float64) {
	s := float64(t.cfg.Scale)
	return float64(t.cfg.ROI.Min.X) + (x+0.5)*s - 0.5, float64(t.cfg.ROI.Min.Y) + (y+0.5)*s - 0.5
}

func (t *Tracker) candidates() []Candidate {
	if len(t.tracks) == 0 {
		return nil
	}
	out := make([]Candidate, 0, len(t.tracks))
	s := t.cfg.Scale
	o := t.cfg.ROI.Min
	for _, tr := range t.tracks {
		if tr.miss > 0 {
			continue
		}
		cx, cy := t.full(tr.cx, tr.cy)
		box := image.Rect(tr.box.Min.X*s, tr.box.Min.Y*s, tr.box.Max.X*s, tr.box.Max.Y*s).Add(o)
		out = append(out, Candidate{ID: tr.id, Box: box, CX: cx, CY: cy, Moving: tr.moving, Large: tr.large,
			FirstSeenMS: tr.firstMS, FirstSeenFrame: tr.firstFrame})
	}
	return out
}

// updateBackground blends the current frame into the model everywhere
// except near foreground or motion.
func (t *Tracker) updateBackground() {
	gocv.BitwiseOr(t.fg, t.mv, &t.upd)
	gocv.Dilate(t.upd, &t.upd, t.kernel)
	gocv.BitwiseNot(t.upd, &t.upd)
	gocv.AccumulatedWeightedWithMask(t.small, &t.bgF, t.cfg.BackgroundRate, t.upd)
	t.bgF.ConvertTo(&t.bg8, gocv.MatTypeCV8UC3)
}

// absorb takes the whole current view into the background.
func (t *Tracker) absorb() {
	t.small.ConvertTo(&t.bgF, gocv.MatTypeCV32FC3)
	t.small.CopyTo(&t.bg8)
	t.tracks = t.tracks[:0]
	t.blobs = t.blobs[:0]
}

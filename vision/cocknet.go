package vision

import (
	"bytes"
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"math"
	"slices"
	"sync"
)

// The cocked net: a small convolutional net of its own (not the face net)
// that looks at a square of die edges around a read or unread die and
// gives the probability that the die is cocked (leaning on something, a
// side face turned up) rather than lying flat. It is given the pixels
// round the die so that it can use what the flatness score (aspect times
// fill of the footprint) leaves out, such as a side face's band of shaded
// body colour along one edge or the pips' place in the face (what it
// learnt to use has not been taken apart). Two numbers join the
// convolutions' output: the footprint's flatness score and the size
// ratio. It learnt from generated stills only (testdata/cocknet/SOURCE.md).
//
// The patch's geometry (samples a side, die edges spanned, the centre
// square that sets the body's colour and the scales, the channels) is
// the weight file's, within cockMax*'s bounds.
const (
	// cockMaxSide is the largest side of the net's input grid, in
	// samples; cockMaxChans its most channels: the luminance, the
	// colour distance from the body, and the distance of the
	// chromaticity (colour over brightness) from the body's, which a
	// shaded side face of the body's own colour keeps small.
	cockMaxSide  = 32
	cockMaxChans = 3
	cockMaxIn    = cockMaxSide * cockMaxSide * cockMaxChans
	// cockExtra is the number of scalars beside the grid: flatness and
	// the log of the size ratio. A net in the DWCK3 format may take
	// cockMaxExtra: the third is the view's tilt at the die's place over
	// cockTiltScale degrees (cockTiltNet).
	cockExtra    = 2
	cockMaxExtra = 3
	cockMagic    = "DWCK2\n"
	cockMagic3   = "DWCK3\n"
	// cockTiltScale is the tilt, in degrees, that a tilt net's third
	// scalar gives as 1 (tools/cocknet/train.py's TILT_SCALE).
	cockTiltScale = 30
	// cockLeak is the hidden layer's slope below zero (a leaky ReLU:
	// with a plain one, a small net learnt to leave every hidden unit
	// at zero for many patches, which then all got the same output).
	cockLeak = 0.05
)

// The largest cocked net cockScratch has room for (the loader refuses a
// larger one).
const (
	cockMaxC1  = 16
	cockMaxC2  = 32
	cockMaxC3  = 32
	cockMaxHid = 256
)

// cockShape is a cocked net's geometry and size, as its file's header
// gives them.
type cockShape struct {
	side, chans int
	// spanMilli is the square's side in thousandths of a die edge.
	spanMilli int
	// core is the side, in samples, of the centre square (about three
	// quarters of the die's face) that sets the body colour and the
	// scales.
	core            int
	c1, c2, c3, hid int
	// extra is the number of scalars beside the grid; 0 means
	// cockExtra (the DWCK2 format's).
	extra int
}

// scalars is the number of scalars the net takes beside its grid.
func (sh cockShape) scalars() int {
	if sh.extra > 0 {
		return sh.extra
	}
	return cockExtra
}

func (sh cockShape) span() float64 { return float64(sh.spanMilli) / 1000 }

// in is the length of the grid (every channel).
func (sh cockShape) in() int { return sh.side * sh.side * sh.chans }

// grid is the side of the last pooled grid and last its channels.
func (sh cockShape) grid() (g, last int) {
	if sh.c3 > 0 {
		return sh.side / 8, sh.c3
	}
	return sh.side / 4, sh.c2
}

func (sh cockShape) flatLen() int {
	g, last := sh.grid()
	return last*g*g + sh.scalars()
}

// ok reports whether the shape is within cockScratch's room.
func (sh cockShape) ok() bool {
	step := 4
	if sh.c3 > 0 {
		step = 8
	}
	return sh.side >= 8 && sh.side <= cockMaxSide && sh.side%step == 0 &&
		sh.chans >= 2 && sh.chans <= cockMaxChans &&
		sh.spanMilli >= 1000 && sh.spanMilli <= 6000 &&
		sh.core >= 2 && sh.core <= sh.side &&
		sh.c1 >= 1 && sh.c1 <= cockMaxC1 && sh.c2 >= 1 && sh.c2 <= cockMaxC2 &&
		sh.c3 >= 0 && sh.c3 <= cockMaxC3 && sh.hid >= 1 && sh.hid <= cockMaxHid &&
		(sh.extra == 0 || sh.extra >= cockExtra && sh.extra <= cockMaxExtra)
}

// params is the number of weights of a net of that shape.
func (sh cockShape) params() int {
	n := sh.c1*sh.chans*9 + sh.c1 + sh.c2*sh.c1*9 + sh.c2
	if sh.c3 > 0 {
		n += sh.c3*sh.c2*9 + sh.c3
	}
	return n + sh.hid*sh.flatLen() + sh.hid + sh.hid + 1
}

// cockNet: conv 3x3 (chans -> c1) ReLU, 2x2 max pool, conv 3x3 (c1 ->
// c2) ReLU, 2x2 max pool, when c3 > 0 a third of each (c2 -> c3), a
// fully connected layer of hid on the pooled grid and the scalars
// (leaky: cockLeak), and one logit.
type cockNet struct {
	cockShape
	w1, b1 []float32
	w2, b2 []float32
	w5, b5 []float32 // the third convolution (empty without one)
	w3, b3 []float32 // hid x flatLen
	w4, b4 []float32 // 1 x hid
}

func (n *cockNet) params() [][]float32 {
	return [][]float32{n.w1, n.b1, n.w2, n.b2, n.w5, n.b5, n.w3, n.b3, n.w4, n.b4}
}

func allocCockNet(sh cockShape) *cockNet {
	n := &cockNet{cockShape: sh}
	n.w1, n.b1 = make([]float32, sh.c1*sh.chans*9), make([]float32, sh.c1)
	n.w2, n.b2 = make([]float32, sh.c2*sh.c1*9), make([]float32, sh.c2)
	n.w5, n.b5 = make([]float32, sh.c3*sh.c2*9), make([]float32, sh.c3)
	n.w3, n.b3 = make([]float32, sh.hid*sh.flatLen()), make([]float32, sh.hid)
	n.w4, n.b4 = make([]float32, sh.hid), make([]float32, 1)
	return n
}

// unmarshalCockNet reads the weights: magic, eight uint32s (side,
// channels, span in thousandths of an edge, core, c1, c2, c3, hidden),
// with the DWCK3 magic a ninth (the scalars beside the grid), then every
// weight as little-endian float32. A damaged file is an error, never a
// panic.
func unmarshalCockNet(data []byte) (*cockNet, error) {
	nsz := 8
	switch {
	case bytes.HasPrefix(data, []byte(cockMagic)):
	case bytes.HasPrefix(data, []byte(cockMagic3)):
		nsz = 9
	default:
		return nil, errors.New("vision: cocked net: bad magic")
	}
	rd := bytes.NewReader(data[len(cockMagic):])
	var szb [9]uint32
	sz := szb[:nsz]
	if err := binary.Read(rd, binary.LittleEndian, sz); err != nil {
		return nil, fmt.Errorf("vision: cocked net: header: %w", err)
	}
	for _, v := range sz {
		if v > 1<<16 {
			return nil, fmt.Errorf("vision: cocked net: shape %v out of bounds", sz)
		}
	}
	sh := cockShape{side: int(sz[0]), chans: int(sz[1]), spanMilli: int(sz[2]), core: int(sz[3]),
		c1: int(sz[4]), c2: int(sz[5]), c3: int(sz[6]), hid: int(sz[7])}
	if nsz == 9 {
		sh.extra = int(sz[8])
		if sh.extra == 0 {
			return nil, errors.New("vision: cocked net: no scalars")
		}
	}
	// The shape's bounds are cockScratch's: a net larger than its
	// buffers could load but never run.
	if !sh.ok() {
		return nil, fmt.Errorf("vision: cocked net: shape %v out of bounds (side at most %d, channels 2..%d, at most %d, %d, %d, %d units, %d..%d scalars)",
			sz, cockMaxSide, cockMaxChans, cockMaxC1, cockMaxC2, cockMaxC3, cockMaxHid, cockExtra, cockMaxExtra)
	}
	// The length is checked before any room is made for the weights.
	if want := len(cockMagic) + 4*len(sz) + 4*sh.params(); len(data) != want {
		return nil, fmt.Errorf("vision: cocked net: %d bytes, want %d", len(data), want)
	}
	n := allocCockNet(sh)
	if err := readWeights(rd, n.params(), "cocked net"); err != nil {
		return nil, err
	}
	return n, nil
}

// The reader ships two cocked nets on the same patch, and a die's
// probability is the lower of theirs. cocknet.bin learnt every patch in
// all eight quarter turns and mirrors, so it cannot tell which side of a
// die a side face shows; cocknet_up.bin learnt them only as they are and
// mirrored left to right, so it can learn that a camera looking aslant
// at the table shows flat dice's near side faces below their tops, where
// a cocked die shows one on any side. That holds for an upright camera
// (the generated stills' tilted ones, a webcam at a table's side) but not
// for one straight overhead, whose dice show side faces towards the
// picture's centre, on any side: the upright net alone called 241 of
// byler's overhead dice not flat. Taking the lower of the two, a die is
// called cocked only when both nets find it so.
var (
	//go:embed cocknet.bin
	builtinCockNetData []byte
	//go:embed cocknet_up.bin
	builtinCockNetUpData []byte
)

// The tilt nets: cocked nets that take, beside the grid and the two
// scalars, the view's tilt at the die's place (off vertical, over
// cockTiltScale degrees: the DWCK3 format's third scalar). A flat die
// seen aslant shows a side face as a cocked one does, and the nets that
// are not told the view (cocknet.bin, cocknet_up.bin) must allow for any
// tilt from straight down to 35 degrees off; told it, a net can expect a
// side face's band as wide as the view gives a flat die, and no more.
// cockLook gives a die to them where ReaderOptions.ViewTiltDeg knows the
// view at its place (cockAsk), else to the nets without it. They read the
// same patch as those, and learnt from the same generated stills' rows
// (testdata/cocknet/SOURCE.md), read as a table calibration with a view
// reads them.
var (
	//go:embed cocknet_tilt.bin
	builtinCockTiltNetData []byte
	//go:embed cocknet_tilt_up.bin
	builtinCockTiltNetUpData []byte
)

// builtinCockTiltNet is the tilt nets, or nil and why they did not load
// (cockLook then gives every die to builtinCockNet's nets with cockCut).
var builtinCockTiltNet = sync.OnceValues(func() (cockNets, error) {
	ns, err := loadCockNets(builtinCockTiltNetData, builtinCockTiltNetUpData)
	if err != nil {
		return nil, err
	}
	if ns[0].scalars() != cockMaxExtra {
		return nil, errors.New("vision: cocked tilt nets: they do not take the view's tilt")
	}
	base, err := builtinCockNet()
	if err != nil {
		return nil, err
	}
	if sh := base[0].cockShape; sh.side != ns[0].side || sh.chans != ns[0].chans || sh.spanMilli != ns[0].spanMilli || sh.core != ns[0].core {
		// The traces (cockTrace, the export) take the patch of
		// builtinCockNet's nets.
		return nil, errors.New("vision: cocked tilt nets: their patch is not the other nets'")
	}
	return ns, nil
})

// cockTiltOff gives every die to the nets without the view (tests: the
// figures before and after).
var cockTiltOff bool

// cockNets are cocked nets with the same patch (cockShape's side,
// channels, span and core): a die's probability is the lowest of theirs.
type cockNets []*cockNet

// builtinCockNet is the cocked nets the reader ships with, or nil and why
// they did not load: Read then keeps the footprint's flat call and caps
// no value by them. A variable so tests can stand in a failed load.
var builtinCockNet = sync.OnceValues(func() (cockNets, error) {
	return loadCockNets(builtinCockNetData, builtinCockNetUpData)
})

// loadCockNets reads each weight file; the nets must read the same
// patch (the first net's input is given to every one).
func loadCockNets(files ...[]byte) (cockNets, error) {
	var ns cockNets
	for _, data := range files {
		n, err := unmarshalCockNet(data)
		if err != nil {
			return nil, err
		}
		if len(ns) > 0 && !ns[0].samePatch(n.cockShape) {
			return nil, errors.New("vision: cocked nets: the nets' patches differ")
		}
		ns = append(ns, n)
	}
	if len(ns) == 0 {
		return nil, errors.New("vision: cocked nets: no weight file")
	}
	return ns, nil
}

// samePatch reports whether a net of shape o reads the same input.
func (sh cockShape) samePatch(o cockShape) bool {
	return sh.side == o.side && sh.chans == o.chans && sh.spanMilli == o.spanMilli && sh.core == o.core &&
		sh.scalars() == o.scalars()
}

// CockNetError is why the cocked net built into the package did not load
// (nil: it loaded). While it is not nil, Detection.Flat is the
// footprint's call (flatness against MinFlatness and the reader's own
// rules) and no value is capped as possibly cocked.
func CockNetError() error {
	_, err := builtinCockNet()
	return err
}

// cockScratch holds one Reader's buffers for the cocked net.
type cockScratch struct {
	x          [cockMaxIn + cockMaxExtra]float32
	a1         [cockMaxC1 * cockMaxSide * cockMaxSide]float32
	p1         [cockMaxC1 * cockMaxSide * cockMaxSide / 4]float32
	a2         [cockMaxC2 * cockMaxSide * cockMaxSide / 4]float32
	p2         [cockMaxC2 * cockMaxSide * cockMaxSide / 16]float32
	a3         [cockMaxC3 * cockMaxSide * cockMaxSide / 16]float32
	p3         [cockMaxC3 * cockMaxSide * cockMaxSide / 64]float32
	i1         [cockMaxC1 * cockMaxSide * cockMaxSide / 4]int32
	i2         [cockMaxC2 * cockMaxSide * cockMaxSide / 16]int32
	i3         [cockMaxC3 * cockMaxSide * cockMaxSide / 64]int32
	pad, acc   [cockMaxC1 * (cockMaxSide/2 + 2) * (cockMaxSide/2 + 2)]float32
	h          [cockMaxHid]float32
	bgr        [cockMaxSide * cockMaxSide][3]float64
	core, dist [cockMaxSide * cockMaxSide]float64
}

// cockInput samples the square of sh.span() times edge around (cx, cy)
// (frame pixels), axis-aligned, into x (sh.in() values): the luminance
// centred on the core's mean over its spread; the colour distance from
// the core's median colour over a high percentile of the core's
// distances; with a third channel, the distance of the chromaticity (each
// colour over the sum of the three, plus a floor that keeps dark pixels'
// noise down) from the median colour's.
func (s *cockScratch) cockInput(sh cockShape, fr bgrImage, cx, cy, edge float64, x []float32) {
	side := sh.side
	n := side * side
	bgr := s.bgr[:n]
	step := edge * sh.span() / float64(side)
	half := float64(side) / 2
	for j := 0; j < side; j++ {
		py := cy + (float64(j)+0.5-half)*step - 0.5
		for i := 0; i < side; i++ {
			bgr[j*side+i] = fr.bilinear(cx+(float64(i)+0.5-half)*step-0.5, py)
		}
	}
	lo, hi := (side-sh.core)/2, (side+sh.core)/2
	var med [3]float64
	for ch := 0; ch < 3; ch++ {
		v := s.core[:0]
		for j := lo; j < hi; j++ {
			for i := lo; i < hi; i++ {
				v = append(v, bgr[j*side+i][ch])
			}
		}
		slices.Sort(v)
		med[ch] = v[len(v)/2]
	}
	var lm, lv float64
	for k := 0; k < n; k++ {
		p := bgr[k]
		s.dist[k] = colDist(p, med)
		x[k] = float32(0.114*p[0] + 0.587*p[1] + 0.299*p[2])
	}
	core := s.core[:0]
	for j := lo; j < hi; j++ {
		for i := lo; i < hi; i++ {
			k := j*side + i
			lm += float64(x[k])
			core = append(core, s.dist[k])
		}
	}
	cc := float64(sh.core * sh.core)
	lm /= cc
	for j := lo; j < hi; j++ {
		for i := lo; i < hi; i++ {
			d := float64(x[j*side+i]) - lm
			lv += d * d
		}
	}
	sd := math.Max(math.Sqrt(lv/cc), 4)
	slices.Sort(core)
	top := math.Max(core[len(core)*90/100], 15)
	ms := med[0] + med[1] + med[2] + 30
	for k := 0; k < n; k++ {
		x[k] = float32(math.Max(-3, math.Min(3, (float64(x[k])-lm)/sd)))
		x[n+k] = float32(math.Min(s.dist[k]/top, 2))
		if sh.chans > 2 {
			p := bgr[k]
			ps := p[0] + p[1] + p[2] + 30
			var c float64
			for ch := 0; ch < 3; ch++ {
				c += math.Abs(p[ch]/ps - med[ch]/ms)
			}
			x[2*n+k] = float32(math.Min(8*c, 3))
		}
	}
}

// cockProb is the nets' probability that detection d (frame pixels
// less off, the region's offset) is cocked; edge is cockEdge's. The
// nets' input is left in s.x[:ns[0].in()+ns[0].scalars()].
func (s *cockScratch) cockProb(ns cockNets, fr bgrImage, d Detection, off image.Point, edge float64) float64 {
	return s.cockProbTilt(ns, fr, d, off, edge, 0)
}

// cockProbTilt is cockProb with the view's tilt at d's place (degrees
// off vertical), for nets that take it (a third scalar); other nets
// ignore it.
func (s *cockScratch) cockProbTilt(ns cockNets, fr bgrImage, d Detection, off image.Point, edge, tilt float64) float64 {
	return s.cockProbUnder(ns, fr, d, off, edge, tilt, cockUnsure)
}

// cockProbUnder is cockProbTilt with forwardUnder's lowest cut.
func (s *cockScratch) cockProbUnder(ns cockNets, fr bgrImage, d Detection, off image.Point, edge, tilt, lowest float64) float64 {
	if edge <= 0 || len(ns) == 0 {
		return 0
	}
	in := ns[0].in()
	x := s.x[:in+ns[0].scalars()]
	s.cockInput(ns[0].cockShape, fr, d.CX-float64(off.X), d.CY-float64(off.Y), edge, x[:in])
	x[in], x[in+1] = cockScalars(d)
	if len(x) > in+cockExtra {
		x[in+cockExtra] = float32(tilt / cockTiltScale)
	}
	return s.forwardUnder(ns, x, lowest)
}

// cockProbAgain is cockProbUnder for the die and edge of the last
// cockProbUnder call, given to nets ns that read the same patch (the tilt
// nets and builtinCockNet's: builtinCockTiltNet checks it): the patch
// and the two scalars are still in s.x, and only the tilt is set anew.
func (s *cockScratch) cockProbAgain(ns cockNets, tilt, lowest float64) float64 {
	in := ns[0].in()
	x := s.x[:in+ns[0].scalars()]
	if len(x) > in+cockExtra {
		x[in+cockExtra] = float32(tilt / cockTiltScale)
	}
	return s.forwardUnder(ns, x, lowest)
}

// forwardAll is the lowest of the nets' probabilities on x (NaN when any
// is NaN), except that once one is under cockUnsure, the lowest cut that
// decides anything, the nets after it are not run and that one's is
// given: no decision would differ. Most dice stop at the first net.
func (s *cockScratch) forwardAll(ns cockNets, x []float32) float64 {
	return s.forwardUnder(ns, x, cockUnsure)
}

// forwardUnder is forwardAll with the lowest cut that decides anything
// given: the nets after one under it are not run.
func (s *cockScratch) forwardUnder(ns cockNets, x []float32, lowest float64) float64 {
	p := 1.0
	for _, n := range ns {
		q := s.forward(n, x)
		if math.IsNaN(q) {
			return q
		}
		p = min(p, q)
		if p < lowest {
			break
		}
	}
	return p
}

// forward runs the net on x (the grid, then the scalars).
func (s *cockScratch) forward(n *cockNet, x []float32) float64 {
	side, in := n.side, n.in()
	s1, s2 := side/2, side/4
	conv3(x[:in], n.chans, side, n.w1, n.b1, n.c1, s.a1[:], s.pad[:], s.acc[:])
	pool2(s.a1[:n.c1*side*side], n.c1, side, s.p1[:], s.i1[:])
	conv3(s.p1[:n.c1*s1*s1], n.c1, s1, n.w2, n.b2, n.c2, s.a2[:], s.pad[:], s.acc[:])
	pool2(s.a2[:n.c2*s1*s1], n.c2, s1, s.p2[:], s.i2[:])
	last := s.p2[:]
	if n.c3 > 0 {
		conv3(s.p2[:n.c2*s2*s2], n.c2, s2, n.w5, n.b5, n.c3, s.a3[:], s.pad[:], s.acc[:])
		pool2(s.a3[:n.c3*s2*s2], n.c3, s2, s.p3[:], s.i3[:])
		last = s.p3[:]
	}
	f := n.flatLen()
	g := f - n.scalars()
	for j := 0; j < n.hid; j++ {
		w := n.w3[j*f : (j+1)*f]
		v := n.b3[j]
		for i, p := range last[:g] {
			v += w[i] * p
		}
		for k := range n.scalars() {
			v += w[g+k] * x[in+k]
		}
		if v < 0 {
			v *= cockLeak
		}
		s.h[j] = v
	}
	z := n.b4[0]
	for j, v := range s.h[:n.hid] {
		z += n.w4[j] * v
	}
	return 1 / (1 + math.Exp(-float64(z)))
}

// cockEdge is the die edge the cocked net's square is scaled by: the
// expected edge at the die's place when the Reader knows it, else the
// face's measured edge.
func (r *Reader) cockEdge(d Detection) float64 {
	if r.knownSize() {
		if e := r.expectedAt(d.CX, d.CY); e > 0 {
			return e
		}
	}
	return d.EdgePx
}

// cockScalars are the two numbers the cocked net takes beside its grid.
func cockScalars(d Detection) (float32, float32) {
	return float32(d.Flatness), float32(math.Log(math.Max(d.SizeRatio, 0.05)))
}

const (
	// cockNotFlat is the cocked net's probability from which a die is
	// called not flat. The net decides the call alone (the footprint's
	// flatness score is one of its inputs), but for a die another rule
	// found not flat (keepNotFlat).
	cockNotFlat = 0.45
	// cockUnsure is the probability from which a value read off the die
	// is not given as sure: it is capped at doubtMaxConf.
	cockUnsure = 0.35
)

// cockOff turns cockLook off (diagnosis and the tests that show what it
// changes).
var cockOff bool

// cockTrace, when set (tests: the net's training export), is called with
// each detection as the net saw it (its flat call still the footprint's)
// and the net's input.
var cockTrace func(d Detection, x []float32)

// cockTraceFrame, when set (tests), is called as cockTrace with also the
// frame, the region's offset and the patch's edge.
var cockTraceFrame func(d Detection, x []float32, fr bgrImage, off image.Point, edge float64)

// cockLook gives each detection the cocked net's probability and calls
// the die flat or not by it; a value read off a die that may be cocked
// is not given as sure (a cocked die called flat is read as its side
// face as often as not). dets are frame pixels; off is the region's
// offset in the frame.
func (r *Reader) cockLook(fr bgrImage, dets []Detection, off image.Point) {
	n, err := builtinCockNet()
	if cockOff || err != nil {
		return
	}
	for i := range dets {
		d := &dets[i]
		edge := r.cockEdge(*d)
		if !(edge > 0) {
			// No scale to sample the patch at: the footprint's
			// call stands.
			continue
		}
		a := r.cockAsk(n, *d)
		p := r.cs.cockProbUnder(a.nets, fr, *d, off, edge, a.tilt, a.unsure)
		if math.IsNaN(p) {
			// Weights that overflow on this patch: likewise.
			continue
		}
		// The traces are given the grid and the two scalars every
		// net takes (the export's rows; the tilt is the view's).
		if cockTrace != nil {
			cockTrace(*d, r.cs.x[:n[0].in()+cockExtra])
		}
		if cockTraceFrame != nil {
			cockTraceFrame(*d, r.cs.x[:n[0].in()+cockExtra], fr, off, edge)
		}
		d.cockP = p
		if d.keepNotFlat {
			continue
		}
		// The tilt nets have their own cut; flatCut's steeper cut is
		// the nets without the view's (cockgeo.go).
		cut := a.cut
		if !a.tilted {
			cut = r.flatCut(*d)
		}
		d.Flat = d.cockP < cut && !r.footAside(*d, edge) && !r.viewCocked(*d)
		unsure := d.cockP >= a.unsure
		if a.tilted && !unsure {
			// The nets without the view still cap a value they
			// doubt: on held-out still 30006 (calibrated, the view
			// given) a clean 6 read 4, which their cap held under
			// 0.9, was given at 1.00 with the tilt nets' alone.
			// The tilt nets make the flat call; they never lift
			// the cap.
			q := r.cs.cockProbAgain(n, 0, cockUnsure)
			unsure = q >= cockUnsure
		}
		if unsure && d.Confidence > doubtMaxConf {
			d.Confidence = doubtMaxConf
		}
	}
}

// cockAsked is which cocked nets a die is given to, the view's tilt
// they take, and their cuts: flat under cut, a value not sure from
// unsure.
type cockAsked struct {
	nets              cockNets
	tilt, cut, unsure float64
	// tilted: nets is the tilt nets.
	tilted bool
}

// cockAsk picks the cocked nets for d: where the view's tilt is known at
// d's place (ReaderOptions.ViewTiltDeg, a number 0..90) and the tilt nets
// loaded, the tilt nets (builtinCockTiltNet) given it, with their cuts
// (cockLook still caps a value that ns doubt); else ns, the nets that
// take no view, with cockCut and cockUnsure.
func (r *Reader) cockAsk(ns cockNets, d Detection) cockAsked {
	a := cockAsked{nets: ns, cut: r.cockCut(d), unsure: cockUnsure}
	if r.opts.ViewTiltDeg == nil || cockTiltOff {
		return a
	}
	t := r.opts.ViewTiltDeg(d.CX, d.CY)
	if !(t >= 0 && t <= 90) {
		return a
	}
	tn, err := builtinCockTiltNet()
	if err != nil {
		return a
	}
	return cockAsked{nets: tn, tilt: t, cut: cockTiltNotFlat, unsure: cockTiltUnsure, tilted: true}
}

// cockCut is the cocked nets' probability from which d is called not
// flat: cockNotFlat, or with a known view (ReaderOptions.ViewTiltDeg)
// cockCutAt the view's tilt at d's place.
func (r *Reader) cockCut(d Detection) float64 {
	if r.opts.ViewTiltDeg == nil {
		return cockNotFlat
	}
	return cockCutAt(r.opts.ViewTiltDeg(d.CX, d.CY))
}

// cockCutAt is the cut for a die seen tilt degrees off vertical. A flat
// die seen at an angle shows a side face as a cocked one does, and the
// nets (trained on views from straight down to 35 degrees off) call
// more flat dice cocked the more the view leans: with the view known,
// the cut rises with it where the nets' false calls are many and is
// lower where they are few.
func cockCutAt(tilt float64) float64 {
	switch {
	case !(tilt >= 0):
		return cockNotFlat
	case tilt < straightView:
		return cockCutStraight
	case tilt < 20:
		return cockCutLeaning
	case tilt < steepView:
		return cockCutAslant
	default:
		return cockCutSteep
	}
}

const (
	// cockTiltNotFlat is the tilt nets' probability from which a die is
	// called not flat, at every tilt (the nets are given it, where the
	// nets without it need cockCutAt's cut for each); cockTiltUnsure the
	// one from which a value read off the die is not given as sure.
	// Chosen on the tilt nets' validation rows (the calibrated read of
	// training stills 23800..23999, 24900..24999, 27700..27999 and
	// 28900..28999 with the view given, which they did not learn from:
	// 1694 clean, 217 cocked dice): the nets without the view at
	// cockCutAt's cuts call 91 cocked (41.9%) and 33 clean (1.95%)
	// there; the tilt nets at 0.35 117 and 34, at 0.40 109 (50.2%) and
	// 24 (1.42%), at 0.45 103 (47.5%) and 18 (1.06%). At 0.40 the
	// stills harness (calibrated, DICEWATCH_STILL_VIEW=tilt) called more
	// clean dice cocked than the nets without the view on held-out
	// 2000..3999 (116 against 115) and fresh 76000..77999 (111 against
	// 95), so the cut is 0.45, with the margin the rows showed there.
	cockTiltNotFlat = 0.45
	cockTiltUnsure  = 0.30
)

const (
	// straightView is the view's tilt off vertical, in degrees, under
	// which a flat die shows no side face worth the name (a side face
	// of sin(3 deg) = 0.05 edges).
	straightView = 3
	// steepView is the view's tilt, in degrees, from which cockCutAt
	// gives cockCutSteep (and flatCut, the view's vertical known,
	// cockCutSteepUp).
	steepView = 30
	// The cocked nets' cuts by the view's tilt (cockCutAt): straight
	// down, under 20 degrees off, 20 to 30, steeper. Set on stills
	// 0..1999 (calibrated, the camera's tilt given) for the most cocked
	// dice caught with no more flat dice called cocked than with
	// cockNotFlat alone; the nets' false calls there by the camera's
	// tilt at cockNotFlat: straight 0.8%, 10..20 degrees 1.3%, 20..30
	// 4.7%, 30..35 9.8%.
	cockCutStraight = 0.40
	cockCutLeaning  = 0.45
	cockCutAslant   = 0.60
	cockCutSteep    = 0.65
	// footAsideMin is the least offset, in die edges, of the
	// footprint's centre from the face's centre from which a die seen
	// straight down is not flat (footAside).
	footAsideMin = 0.20
)

// footAside reports whether d, seen straight down (a known view under
// straightView), has its face well to one side of the footprint it was
// read in: by footAsideMin edges or more. A flat die seen straight down
// shows its top face alone, and its footprint (with its shadow) is
// centred on the face within about 0.12 edge (95% of the clean dice of
// stills 0..1999 so seen); a cocked die shows a side face beside its
// top, which the footprint takes in. edge is cockEdge's. Seen at an
// angle, a flat die's side face moves the footprint as much (0.3 edge
// at 30 degrees), and the offset is no evidence.
func (r *Reader) footAside(d Detection, edge float64) bool {
	if r.opts.ViewTiltDeg == nil || !(edge > 0) || d.foot == ([4]float64{}) || d.foot[2] != d.CX || d.foot[3] != d.CY {
		return false
	}
	if t := r.opts.ViewTiltDeg(d.CX, d.CY); !(t >= 0 && t < straightView) {
		return false
	}
	return math.Hypot(d.foot[0]-d.CX, d.foot[1]-d.CY) >= footAsideMin*edge
}

// earlyCockOff turns earlyCockLook off (tests: before-and-after figures).
var earlyCockOff bool

// earlyCockLook marks (earlyFlat) each unread die whose footprint alone
// called it not flat and that the cocked nets call flat, for the later
// looks that check the face net's "not a clean top face" output (netLook,
// sepLook, tmplNetLook and oneNetLook) to read it.
//
// The later looks read only dice called flat, and until cockLook that
// call is the footprint's (flatness against MinFlatness), which the nets
// overrule at the end. A flat die seen off the camera's axis shows a side
// face beside its top, or sits against a wall or a neighbour whose edge
// joins its outline, and its footprint is then a rectangle or a ragged
// square (byler_d6 at ec29066: 15 unread dice had a footprint under
// MinFlatness, all called flat by the nets). A cocked die's footprint is
// just as often that, and the nets miss many cocked dice, so the
// footprint's call stays for the looks with no cocked cue of their own:
// let through to every later look, such dice took values on generated
// stills 0..599 read without a size where four of seven were cocked dice
// (right values, but a cocked die's value is a void roll given), for 2
// byler dice more. netLook and sepLook need the face net's reject output
// under netMaxReject on the face rectangle and on the frame-size square
// (a net learnt on cocked and stacked dice), a second cue that the face
// is a clean top face, and their values stay under the rules' 0.8.
// The nets are asked what cockLook asks them (the same patch, scale and
// scalars), and called flat as cockLook calls them (cockCut, footAside:
// cockNotFlat without a known view). Not on a die pressed by
// another detection (doubts' pressed): on generated still 925 read
// without a size, an ivory 5 on another die, one corner pip under a
// black die beside it, was read 4 by sepLook so.
func (r *Reader) earlyCockLook(fr bgrImage, dets []Detection, off image.Point) {
	n, err := builtinCockNet()
	if earlyCockOff || cockOff || err != nil {
		return
	}
	for i := range dets {
		d := &dets[i]
		if !d.laterMay() || d.Flat || d.keepNotFlat || pressed(dets, i) {
			// A die pressed by another detection may owe its
			// footprint to the neighbour, and part of its face
			// hidden under it: the footprint's call stands.
			continue
		}
		edge := r.cockEdge(*d)
		if !(edge > 0) {
			continue
		}
		a := r.cockAsk(n, *d)
		if p := r.cs.cockProbUnder(a.nets, fr, *d, off, edge, a.tilt, a.unsure); p < a.cut && !r.footAside(*d, edge) {
			d.earlyFlat = true
		}
	}
}

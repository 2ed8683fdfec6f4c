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
// that looks at the square of cockSpan die edges around a read or unread
// die and gives the probability that the die is cocked (leaning on
// something, a side face turned up) rather than lying flat. It is given
// the pixels round the die so that it can use what the flatness score
// (aspect times fill of the footprint) leaves out, such as a side face's
// band of shaded body colour along one edge or the pips' place in the
// face (what it learnt to use has not been taken apart). Two numbers join the
// convolutions' output: the footprint's flatness score and the size
// ratio. It learnt from generated stills only (testdata/cocknet/SOURCE.md).
const (
	// cockSide is the side of the net's input grid, in samples.
	cockSide = 16
	// cockSpan is the side of the square sampled, in die edges.
	cockSpan = 2.0
	// cockChans: the luminance, and the colour distance from the body.
	cockChans = 2
	cockIn    = cockSide * cockSide * cockChans
	// cockCore is the side, in samples, of the centre square (about
	// three quarters of the die's face) that sets the body colour and
	// the scales.
	cockCore = 6
	// cockExtra is the number of scalars beside the grid: flatness and
	// the log of the size ratio.
	cockExtra = 2
	cockMagic = "DWCK1\n"
	// cockLeak is the hidden layer's slope below zero (a leaky ReLU:
	// with a plain one, a small net learnt to leave every hidden unit
	// at zero for many patches, which then all got the same output).
	cockLeak = 0.05
)

// cockNet: conv 3x3 (cockChans -> c1) ReLU, 2x2 max pool, conv 3x3 (c1 ->
// c2) ReLU, 2x2 max pool, a fully connected ReLU layer of hid on the
// pooled grid and the scalars (leaky: cockLeak), and one logit.
type cockNet struct {
	c1, c2, hid int
	w1, b1      []float32
	w2, b2      []float32
	w3, b3      []float32 // hid x (c2*(cockSide/4)^2 + cockExtra)
	w4, b4      []float32 // 1 x hid
}

func (n *cockNet) flatLen() int { return n.c2*(cockSide/4)*(cockSide/4) + cockExtra }

func (n *cockNet) params() [][]float32 {
	return [][]float32{n.w1, n.b1, n.w2, n.b2, n.w3, n.b3, n.w4, n.b4}
}

// cockNetParams is the number of weights of a cocked net of that shape.
func cockNetParams(c1, c2, hid int) int {
	flat := c2*(cockSide/4)*(cockSide/4) + cockExtra
	return c1*cockChans*9 + c1 + c2*c1*9 + c2 + hid*flat + hid + hid + 1
}

func allocCockNet(c1, c2, hid int) *cockNet {
	n := &cockNet{c1: c1, c2: c2, hid: hid}
	n.w1, n.b1 = make([]float32, c1*cockChans*9), make([]float32, c1)
	n.w2, n.b2 = make([]float32, c2*c1*9), make([]float32, c2)
	n.w3, n.b3 = make([]float32, hid*n.flatLen()), make([]float32, hid)
	n.w4, n.b4 = make([]float32, hid), make([]float32, 1)
	return n
}

// unmarshalCockNet reads the weights: magic, four uint32 sizes (input,
// c1, c2, hidden), then every weight as little-endian float32. A damaged
// file is an error, never a panic.
func unmarshalCockNet(data []byte) (*cockNet, error) {
	if !bytes.HasPrefix(data, []byte(cockMagic)) {
		return nil, errors.New("vision: cocked net: bad magic")
	}
	rd := bytes.NewReader(data[len(cockMagic):])
	var sz [4]uint32
	if err := binary.Read(rd, binary.LittleEndian, sz[:]); err != nil {
		return nil, fmt.Errorf("vision: cocked net: header: %w", err)
	}
	// The shape's bounds are cockScratch's: a net larger than its
	// buffers could load but never run.
	if sz[0] != cockIn || sz[1] == 0 || sz[2] == 0 || sz[3] == 0 || sz[1] > cockMaxC1 || sz[2] > cockMaxC2 || sz[3] > cockMaxHid {
		return nil, fmt.Errorf("vision: cocked net: shape %v, want input %d and at most %d, %d, %d units", sz, cockIn, cockMaxC1, cockMaxC2, cockMaxHid)
	}
	// The length is checked before any room is made for the weights.
	c1, c2, hid := int(sz[1]), int(sz[2]), int(sz[3])
	if want := len(cockMagic) + 16 + 4*cockNetParams(c1, c2, hid); len(data) != want {
		return nil, fmt.Errorf("vision: cocked net: %d bytes, want %d", len(data), want)
	}
	n := allocCockNet(c1, c2, hid)
	if err := readWeights(rd, n.params(), "cocked net"); err != nil {
		return nil, err
	}
	return n, nil
}

//go:embed cocknet.bin
var builtinCockNetData []byte

// builtinCockNet is the cocked net the reader ships with, or nil and why
// it did not load: Read then keeps the footprint's flat call and caps no
// value by it. A variable so tests can stand in a failed load.
var builtinCockNet = sync.OnceValues(func() (*cockNet, error) {
	return unmarshalCockNet(builtinCockNetData)
})

// CockNetError is why the cocked net built into the package did not load
// (nil: it loaded). While it is not nil, Detection.Flat is the
// footprint's call (flatness against MinFlatness and the reader's own
// rules) and no value is capped as possibly cocked.
func CockNetError() error {
	_, err := builtinCockNet()
	return err
}

// The largest cocked net cockScratch has room for (the loader refuses a
// larger one).
const (
	cockMaxC1  = 16
	cockMaxC2  = 32
	cockMaxHid = 256
)

// cockScratch holds one Reader's buffers for the cocked net.
type cockScratch struct {
	x          [cockIn + cockExtra]float32
	a1         [cockMaxC1 * cockSide * cockSide]float32
	p1         [cockMaxC1 * cockSide * cockSide / 4]float32
	a2         [cockMaxC2 * cockSide * cockSide / 4]float32
	p2         [cockMaxC2 * cockSide * cockSide / 16]float32
	i1, i2     [cockMaxC1 * cockSide * cockSide]int32
	pad, acc   [cockMaxC2 * (cockSide + 2) * (cockSide + 2)]float32
	h          [cockMaxHid]float32
	core, dist [cockSide * cockSide]float64
}

// cockInput samples the square of cockSpan times edge around (cx, cy)
// (frame pixels), axis-aligned, into x: the luminance centred on the
// core's mean over its spread, and the colour distance from the core's
// median colour over a high percentile of the core's distances.
func (s *cockScratch) cockInput(fr bgrImage, cx, cy, edge float64, x []float32) {
	const n = cockSide * cockSide
	var bgr [n][3]float64
	step := edge * cockSpan / cockSide
	for j := 0; j < cockSide; j++ {
		py := cy + (float64(j)+0.5-cockSide/2)*step - 0.5
		for i := 0; i < cockSide; i++ {
			bgr[j*cockSide+i] = fr.bilinear(cx+(float64(i)+0.5-cockSide/2)*step-0.5, py)
		}
	}
	const lo, hi = (cockSide - cockCore) / 2, (cockSide + cockCore) / 2
	var med [3]float64
	for ch := 0; ch < 3; ch++ {
		v := s.core[:0]
		for j := lo; j < hi; j++ {
			for i := lo; i < hi; i++ {
				v = append(v, bgr[j*cockSide+i][ch])
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
			k := j*cockSide + i
			lm += float64(x[k])
			core = append(core, s.dist[k])
		}
	}
	lm /= cockCore * cockCore
	for j := lo; j < hi; j++ {
		for i := lo; i < hi; i++ {
			d := float64(x[j*cockSide+i]) - lm
			lv += d * d
		}
	}
	sd := math.Max(math.Sqrt(lv/(cockCore*cockCore)), 4)
	slices.Sort(core)
	top := math.Max(core[len(core)*90/100], 15)
	for k := 0; k < n; k++ {
		x[k] = float32(math.Max(-3, math.Min(3, (float64(x[k])-lm)/sd)))
		x[n+k] = float32(math.Min(s.dist[k]/top, 2))
	}
}

// cockProb is the net's probability that detection d (frame pixels
// less off, the region's offset) is cocked; edge is cockEdge's.
func (s *cockScratch) cockProb(n *cockNet, fr bgrImage, d Detection, off image.Point, edge float64) float64 {
	if edge <= 0 {
		return 0
	}
	x := s.x[:]
	s.cockInput(fr, d.CX-float64(off.X), d.CY-float64(off.Y), edge, x[:cockIn])
	x[cockIn], x[cockIn+1] = cockScalars(d)
	return s.forward(n, x)
}

// forward runs the net on x (the grid, then the scalars).
func (s *cockScratch) forward(n *cockNet, x []float32) float64 {
	const s1 = cockSide / 2
	conv3(x[:cockIn], cockChans, cockSide, n.w1, n.b1, n.c1, s.a1[:], s.pad[:], s.acc[:])
	pool2(s.a1[:n.c1*cockSide*cockSide], n.c1, cockSide, s.p1[:], s.i1[:])
	conv3(s.p1[:n.c1*s1*s1], n.c1, s1, n.w2, n.b2, n.c2, s.a2[:], s.pad[:], s.acc[:])
	pool2(s.a2[:n.c2*s1*s1], n.c2, s1, s.p2[:], s.i2[:])
	f := n.flatLen()
	g := f - cockExtra
	for j := 0; j < n.hid; j++ {
		w := n.w3[j*f : (j+1)*f]
		v := n.b3[j]
		for i, p := range s.p2[:g] {
			v += w[i] * p
		}
		v += w[g]*x[cockIn] + w[g+1]*x[cockIn+1]
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
	cockNotFlat = 0.5
	// cockUnsure is the probability from which a value read off the die
	// is not given as sure: it is capped at doubtMaxConf.
	cockUnsure = 0.4
)

// cockOff turns cockLook off (diagnosis and the tests that show what it
// changes).
var cockOff bool

// cockTrace, when set (tests: the net's training export), is called with
// each detection as the net saw it (its flat call still the footprint's)
// and the net's input.
var cockTrace func(d Detection, x []float32)

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
		p := r.cs.cockProb(n, fr, *d, off, edge)
		if math.IsNaN(p) {
			// Weights that overflow on this patch: likewise.
			continue
		}
		if cockTrace != nil {
			cockTrace(*d, r.cs.x[:])
		}
		d.cockP = p
		if d.keepNotFlat {
			continue
		}
		d.Flat = d.cockP < cockNotFlat
		if d.cockP >= cockUnsure && d.Confidence > doubtMaxConf {
			d.Confidence = doubtMaxConf
		}
	}
}

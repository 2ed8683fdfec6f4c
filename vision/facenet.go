package vision

import (
	"bytes"
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
)

// The face net is a small learned reader of a die's top face: two 3x3
// convolutions over a rectified, normalised patch around the face the
// pip reader settled on, a hidden layer and a softmax over the six
// faces. It is a cue of its own, never a reader: a value comes from it
// only where the pip reader's layout and template read the same face
// (see netLook).
const (
	// netSide is the side of the net's input grid, in samples.
	netSide = 24
	// netChans: the colour distance from the body and the luminance.
	netChans = 2
	netIn    = netSide * netSide * netChans
	// netSpan is the side of the square sampled, in the face rectangle's
	// sides: a little more than the face, so a face a few pixels off
	// still shows every pip.
	netSpan = 1.15
	// netInner is the margin, in samples, around the patch's inner part
	// (about the face itself) that sets the body colour and the scales.
	netInner = netSide / 8
)

// unreadRead is what the pip reader concluded on a detection it left
// unread: its read (cues and face rectangle), whether the face was much
// smaller than its region, and whether its value was held for that
// (heldShrunk: a value giveHeld may give, or frameSizeLook read with the
// held value's pips).
type unreadRead struct {
	fv         faceValue
	shrunk     bool
	heldShrunk bool
	// small: a later look's 1 or 2 for netSmallLook (value 0: none);
	// smallSil: the read found the die's own outline.
	small    faceValue
	smallSil bool
}

// netMinMargin is the least margin of the net's face over its second
// most likely face, on the face rectangle and again on the square of the
// frame's die size, for the net to count as a cue. netConf is the
// confidence of a value the net and a pip cue agree on: a second look's
// at most, never sure.
const (
	netMinMargin = 0.7
	netConf      = 0.7
)

// netLook gives values to flat dice the pip reader left unread where the
// learned face cue and one of the pip reader's own cues agree: the net's
// face, with a wide margin over the second, both on the face rectangle
// and on a square of the frame's die size (the median edge of its read
// faces, or the known die size) at the same centre, must be both the
// layout fitted to the face's blobs and the best template, on a face
// rectangle square enough to read (the cues' own test). One pip cue
// agreeing was not enough, nor a face rectangle far from square (tuning
// stills 1000..1999: a 1 whose one blob the net and the template read as
// a 2, twice; cocked and stacked dice read on a foreshortened face, 6 as
// 3 and 5 as 4; a cocked 5 missing a pip read 4 by the net, the layout
// and the blobs, its template a 2, still 1932 calibrated). The
// seven-output net also says how likely the patch is no clean top face:
// that must be under netMaxReject on both patches (netCueAgrees). With it,
// one pip cue agreeing was tried again in session 12: counted as the
// layout or the blob count it gave no byler die more, and the template
// alone gave a blurred 5 with no blob a 6 (tuning still 826,
// uncalibrated). The veto and the check still apply, and
// the frame's later checks (framePipCheck, doubtCap) see the value as
// any other. Not on shrunk faces (part of a larger region), not for 1s
// (a single pip is too easily a larger face's centre), and not where a
// pip cue (layout, template or blob count) saw a larger face than the
// net's: the net then may have read a part of that face (held-out still
// 2014, calibrated: a cocked 5 whose layout and blobs read 4 and
// template 6, given 4 before this rule).
//
// A net with the seventh output ("not a clean top face", learnt from
// generated cocked and stacked dice) needs one pip cue only (layout,
// template or blob count reading its face, none reading a larger one),
// with that output under netMaxReject on both patches (session 12: on
// byler, cross-validated, 6 values given, all right, against 4 for the
// six-output net and the first rule alone).
//
// Three exceptions, each where the net on the frame-size square answers
// what the pip reader held the value back for (session 14, byler 100 ->
// 96 unread, no wrong value more on byler, matteo or stills 0..599 and
// 2000..2599 in either mode): a 2 the veto withheld for a larger face's
// layout around it (netTwoVeto), a value held only for a shrunk face
// (netHeldShrunk), and a 5 or 6 of the template whose blobs fit only part
// of its pips (netPipsLost).
func (r *Reader) netLook(fr bgrImage, dets []Detection, roi image.Rectangle) {
	if r.net == nil || len(r.unreadReads) == 0 || netLookOff {
		return
	}
	med, ok := readEdgeMedian(dets)
	for i := range dets {
		d := &dets[i]
		ur, found := r.unreadReads[[2]float64{d.CX, d.CY}]
		if !found || !d.laterMay() || !(d.Flat || d.earlyFlat) || (ur.shrunk && !(ur.heldShrunk && netHeldShrunk)) || ur.fv.c.weak {
			continue
		}
		fv := ur.fv
		if ur.shrunk && fv.value != fv.lv {
			continue
		}
		// The pip cues and the frame's die size first (the net's face
		// must be theirs, and the second patch needs the size): the
		// net costs about 0.4 ms of CPU a patch (session 12's net).
		lost := netPipsLost && fv.tmpl >= 5 && (fv.lv == 4 || (fv.lv == 3 && fv.tmpl == 5))
		if !fv.sq || fv.lv < 2 || (fv.lv != fv.tmpl && !lost) || fv.blobs > fv.lv {
			continue
		}
		edge, sized := r.edgeAt(d, med, ok)
		if !sized {
			continue
		}
		p, rej := r.ns.predictReject(r.net, fr, fv.c)
		v, _, m := netTop2(p)
		if m < netMinMargin || !(netCueAgrees(fv, v, rej) || (lost && v == fv.tmpl && rej < netMaxReject)) {
			continue
		}
		sq := fv.c
		sq.w, sq.h, sq.edge = edge, edge, edge
		ps, rejs := r.ns.predictReject(r.net, fr, sq)
		if vs, _, ms := netTop2(ps); vs != v || ms < netMinMargin || rejs >= netMaxReject {
			continue
		}
		fv.value, fv.conf = v, netConf
		given := r.giveLater(fr, d, fv, roi)
		if !given && v == 2 && r.lastVetoLarger2 && netTwoVeto {
			// The veto saw a larger face's layout around the 2 (two of
			// its pips, read alone); the net read the square of the
			// frame's die size around them as a 2 too, with its margin:
			// a larger face there would show it its other pips.
			r.vetoNetTwo = true
			given = r.giveLater(fr, d, fv, roi)
			r.vetoNetTwo = false
		}
		if given && netTrace != nil {
			netTrace(d, fv)
		}
	}
}

// netMaxReject is the most probability a net with the reject output
// may give "not a clean top face" on either patch for netLook to trust
// its face.
const netMaxReject = 0.3

// netCueAgrees says whether the net's face v (its reject probability
// rej, 0 for a six-output net) and the pip reader's cues agree as netLook
// needs: the layout and the template both v, and the net not inclined to
// call the patch no clean top face; 1s never (a single pip is too easily a
// larger face's centre).
func netCueAgrees(fv faceValue, v int, rej float64) bool {
	return v >= 2 && rej < netMaxReject && v == fv.lv && v == fv.tmpl
}

// netTwoVeto: netLook gives a 2 the veto withheld for a larger face
// around it where the net reads the frame-size square as a 2 (tests turn
// it off).
var netTwoVeto = true

// netHeldShrunk: netLook reads a die whose value the first look held for
// a shrunk face (both cues agreeing at the reader's confidence, the face
// much smaller than its region) and giveHeld did not give: a shrunk face
// is withheld as possibly part of a larger face (a 6 less a row read as a
// 4), and the net reading the held value on the square of the frame's
// die size as well, with its margin, sees no such face there (tests turn
// it off).
var netHeldShrunk = true

// netPipsLost: netLook also gives a 5 or a 6 the template reads where
// the blobs fit only the layout of some of its pips (a 6's corners as a
// 4, a 5's corners or diagonal as a 4 or a 3: its faint or merged pips
// lost) and the net reads the template's face on both patches (tests
// turn it off).
var netPipsLost = true

// netLookOff turns netLook off (for tests); netTrace, when set, sees
// each value it gives.
var (
	netLookOff bool
	netTrace   func(d *Detection, fv faceValue)
)

//go:embed facenet.bin
var builtinFaceNetData []byte

// builtinFaceNet is the net the reader ships with (see TestTrainFaceNet
// for how it is trained), or nil and why it did not load: a Reader then
// works without the face cue. TestBuiltinFaceNet checks that it loads.
var builtinFaceNet = sync.OnceValues(func() (*faceNet, error) {
	return unmarshalFaceNet(builtinFaceNetData)
})

// FaceNetError is why the face net built into the package did not load
// (nil: it loaded). Readers made while it is not nil read without the
// learned face cue, as with ReaderOptions.NoFaceNet.
func FaceNetError() error {
	_, err := builtinFaceNet()
	return err
}

// netMagic starts a saved face net of six outputs (the faces);
// netMagicOut one whose header also gives the number of outputs: six, or
// seven, the seventh saying the patch is not a clean top face (a cocked
// or stacked die's, seen foreshortened or from the side).
const (
	netMagic    = "DWFN2\n"
	netMagicOut = "DWFN3\n"
	// netMaxOut is the most outputs a net has.
	netMaxOut = 7
)

// faceNet is a small convolutional net: two 3x3 convolutions with ReLU,
// each followed by 2x2 max pooling, a hidden fully connected ReLU layer
// and a softmax over the six faces (nout 6) or the six faces and "not a
// clean top face" (nout 7).
type faceNet struct {
	c1, c2, hid int
	nout        int
	w1, b1      []float32 // c1 x netChans x 3 x 3
	w2, b2      []float32 // c2 x c1 x 3 x 3
	w3, b3      []float32 // hid x c2*(netSide/4)^2
	w4, b4      []float32 // nout x hid
}

const (
	netS1 = netSide / 2
	netS2 = netSide / 4
)

func (n *faceNet) flat() int { return n.c2 * netS2 * netS2 }

func (n *faceNet) params() [][]float32 {
	return [][]float32{n.w1, n.b1, n.w2, n.b2, n.w3, n.b3, n.w4, n.b4}
}

func allocFaceNet(c1, c2, hid int) *faceNet { return allocFaceNetOut(c1, c2, hid, 6) }

func allocFaceNetOut(c1, c2, hid, nout int) *faceNet {
	n := &faceNet{c1: c1, c2: c2, hid: hid, nout: nout}
	n.w1, n.b1 = make([]float32, c1*netChans*9), make([]float32, c1)
	n.w2, n.b2 = make([]float32, c2*c1*9), make([]float32, c2)
	n.w3, n.b3 = make([]float32, hid*n.flat()), make([]float32, hid)
	n.w4, n.b4 = make([]float32, nout*hid), make([]float32, nout)
	return n
}

func newFaceNet(c1, c2, hid int, rng *rand.Rand) *faceNet {
	n := allocFaceNet(c1, c2, hid)
	for _, l := range []struct {
		w   []float32
		fan int
	}{{n.w1, netChans * 9}, {n.w2, c1 * 9}, {n.w3, n.flat()}, {n.w4, hid}} {
		s := math.Sqrt(2 / float64(l.fan))
		for i := range l.w {
			l.w[i] = float32(rng.NormFloat64() * s)
		}
	}
	return n
}

// marshal writes the net: magic, the four sizes (input, c1, c2, hidden)
// and for a net of other than six outputs (magic netMagicOut) the number
// of outputs, then every weight as little-endian float32.
func (n *faceNet) marshal() []byte {
	var b bytes.Buffer
	sizes := []int{netIn, n.c1, n.c2, n.hid}
	if n.nout == 6 {
		b.WriteString(netMagic)
	} else {
		b.WriteString(netMagicOut)
		sizes = append(sizes, n.nout)
	}
	for _, v := range sizes {
		binary.Write(&b, binary.LittleEndian, uint32(v))
	}
	for _, p := range n.params() {
		binary.Write(&b, binary.LittleEndian, p)
	}
	return b.Bytes()
}

// faceNetSize is the length of a six-output net of those sizes as
// marshal writes it.
func faceNetSize(c1, c2, hid int) int { return faceNetSizeOut(c1, c2, hid, 6) }

// faceNetSizeOut is the length of a net of nout outputs as marshal
// writes it.
func faceNetSizeOut(c1, c2, hid, nout int) int {
	head := len(netMagic) + 4*4
	if nout != 6 {
		head += 4
	}
	return head + 4*faceNetParams(c1, c2, hid, nout)
}

// faceNetParams is the number of weights of a net of those sizes.
func faceNetParams(c1, c2, hid, nout int) int {
	return c1*netChans*9 + c1 + c2*c1*9 + c2 + hid*c2*netS2*netS2 + hid + nout*hid + nout
}

// unmarshalFaceNet reads a net written by marshal. Damaged data (a wrong
// magic or shape, a length other than the shape's, a weight that is not
// a finite number) is an error, never a panic.
func unmarshalFaceNet(data []byte) (*faceNet, error) {
	nsz := 4
	switch {
	case bytes.HasPrefix(data, []byte(netMagic)):
	case bytes.HasPrefix(data, []byte(netMagicOut)):
		nsz = 5
	default:
		return nil, errors.New("vision: face net: bad magic")
	}
	rd := bytes.NewReader(data[len(netMagic):])
	sz := make([]uint32, nsz)
	if err := binary.Read(rd, binary.LittleEndian, sz); err != nil {
		return nil, fmt.Errorf("vision: face net: header: %w", err)
	}
	nout := 6
	if nsz == 5 {
		nout = int(sz[4])
		if nout < 6 || nout > netMaxOut {
			return nil, fmt.Errorf("vision: face net: %d outputs, want 6 or 7", nout)
		}
	}
	if sz[0] != netIn || sz[1] == 0 || sz[2] == 0 || sz[3] == 0 || sz[1] > 256 || sz[2] > 256 || sz[3] > 4096 {
		return nil, fmt.Errorf("vision: face net: shape %v, want input %d", sz, netIn)
	}
	// The length is checked before the weights are made room for: a
	// damaged header must not ask for hundreds of megabytes. The header's
	// length follows the magic: tools/facenet/train.py writes DWFN3 with
	// its output count for a six-output net too (--reject 0).
	if want := len(netMagic) + 4*nsz + 4*faceNetParams(int(sz[1]), int(sz[2]), int(sz[3]), nout); len(data) != want {
		return nil, fmt.Errorf("vision: face net: %d bytes, want %d for shape %v", len(data), want, sz[1:])
	}
	n := allocFaceNetOut(int(sz[1]), int(sz[2]), int(sz[3]), nout)
	if err := readWeights(rd, n.params(), "face net"); err != nil {
		return nil, err
	}
	return n, nil
}

// readWeights fills params from rd, little-endian float32s in turn, and
// then wants rd at its end: a short read, a weight that is not a finite
// number or bytes left over are an error naming what (the net).
func readWeights(rd *bytes.Reader, params [][]float32, what string) error {
	for _, p := range params {
		if err := binary.Read(rd, binary.LittleEndian, p); err != nil {
			return fmt.Errorf("vision: %s: %w", what, err)
		}
		for _, v := range p {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return fmt.Errorf("vision: %s: a weight is not a finite number", what)
			}
		}
	}
	if _, err := rd.ReadByte(); err != io.EOF {
		return fmt.Errorf("vision: %s: trailing bytes", what)
	}
	return nil
}

// netAct holds one sample's activations (and, in training, gradients).
type netAct struct {
	a1, p1 []float32 // c1 x S x S after ReLU; pooled c1 x S/2 x S/2
	i1     []int32   // index into a1 of each pooled maximum
	a2, p2 []float32
	i2     []int32
	h      []float32
	p      [netMaxOut]float32 // the softmax (the first nout)
	// pad, acc: conv3's scratch.
	pad, acc []float32
}

func newNetAct(n *faceNet) *netAct {
	return &netAct{
		a1: make([]float32, n.c1*netSide*netSide), p1: make([]float32, n.c1*netS1*netS1), i1: make([]int32, n.c1*netS1*netS1),
		a2: make([]float32, n.c2*netS1*netS1), p2: make([]float32, n.c2*netS2*netS2), i2: make([]int32, n.c2*netS2*netS2),
		h:   make([]float32, n.hid),
		pad: make([]float32, max(netChans*(netSide+2)*(netSide+2), n.c1*(netS1+2)*(netS1+2))),
		acc: make([]float32, netSide*(netSide+2)),
	}
}

// conv3 is a 3x3 convolution with zero padding of cin planes of s x s
// into cout planes, then ReLU. pad and acc are scratch of at least
// cin*(s+2)^2 and s*(s+2) values. The input is copied into planes with a
// zero border, so that each of the nine taps of a plane is one run over
// the output laid out in rows of s+2 (the last two of each row are
// dropped): every output sums the same terms in the same order as the
// taps inside the plane alone would (the border's add zero).
func conv3(in []float32, cin, s int, w, b []float32, cout int, out, pad, acc []float32) {
	p := s + 2
	pp := p * p
	pad = pad[:cin*pp]
	clear(pad)
	for ci := 0; ci < cin; ci++ {
		for y := 0; y < s; y++ {
			copy(pad[ci*pp+(y+1)*p+1:ci*pp+(y+1)*p+1+s], in[ci*s*s+y*s:ci*s*s+(y+1)*s])
		}
	}
	n := (s-1)*p + s
	o := acc[:n]
	for co := 0; co < cout; co++ {
		for i := range o {
			o[i] = b[co]
		}
		if useSIMD && n >= 8 {
			conv3Planes(o, pad, w[co*cin*9:(co+1)*cin*9], cin, p)
		} else {
			for ci := 0; ci < cin; ci++ {
				for ky := 0; ky < 3; ky++ {
					for kx := 0; kx < 3; kx++ {
						wv := w[((co*cin+ci)*3+ky)*3+kx]
						src := pad[ci*pp+ky*p+kx : ci*pp+ky*p+kx+n]
						src = src[:len(o)]
						for i, v := range src {
							o[i] += wv * v
						}
					}
				}
			}
		}
		dst := out[co*s*s : (co+1)*s*s]
		for y := 0; y < s; y++ {
			row := o[y*p : y*p+s]
			drow := dst[y*s : (y+1)*s]
			for x, v := range row {
				if v < 0 {
					v = 0
				}
				drow[x] = v
			}
		}
	}
}

// conv3Planes adds one output plane's taps over the cin padded input
// planes (rows of p) to o, as conv3's loops do: the nine taps of a plane
// in a single pass on AVX2 (conv9), eight outputs at a time, the last
// few in Go. Each output still sums its terms in the loops' order, plane
// by plane and tap by tap, a multiply then an add each, so the sums are
// bit-identical (TestConv3Exact).
func conv3Planes(o, pad, w []float32, cin, p int) {
	n := len(o)
	pp := p * p
	g := n / 8
	for ci := 0; ci < cin; ci++ {
		pl := pad[ci*pp : (ci+1)*pp]
		wc := w[ci*9 : ci*9+9]
		// The farthest tap of the last output is pl[n-1+2*p+2]; conv9
		// reads no further than that for its groups.
		_ = pl[n-1+2*p+2]
		conv9(&o[0], &pl[0], p, &wc[0], g)
		for i := g * 8; i < n; i++ {
			v := o[i]
			for t := 0; t < 9; t++ {
				v += wc[t] * pl[i+(t/3)*p+t%3]
			}
			o[i] = v
		}
	}
}

// conv3Back adds the gradients of conv3's weights and biases given dout,
// the gradient at its output before ReLU, and (din not nil) adds the
// gradient at its input.
func conv3Back(in []float32, cin, s int, w []float32, cout int, dout, dw, db, din []float32) {
	ss := s * s
	for co := 0; co < cout; co++ {
		d := dout[co*ss : (co+1)*ss]
		var sum float32
		for _, v := range d {
			sum += v
		}
		db[co] += sum
		for ci := 0; ci < cin; ci++ {
			src := in[ci*ss : (ci+1)*ss]
			for ky := 0; ky < 3; ky++ {
				dy := ky - 1
				for kx := 0; kx < 3; kx++ {
					dx := kx - 1
					wi := ((co*cin+ci)*3+ky)*3 + kx
					wv := w[wi]
					x0, x1 := max(0, -dx), min(s, s-dx)
					var g float32
					for y := max(0, -dy); y < min(s, s-dy); y++ {
						row := src[(y+dy)*s : (y+dy+1)*s]
						drow := d[y*s : (y+1)*s]
						for x := x0; x < x1; x++ {
							g += drow[x] * row[x+dx]
						}
						if din != nil {
							irow := din[ci*ss+(y+dy)*s : ci*ss+(y+dy+1)*s]
							for x := x0; x < x1; x++ {
								irow[x+dx] += wv * drow[x]
							}
						}
					}
					dw[wi] += g
				}
			}
		}
	}
}

// pool2 is 2x2 max pooling of c planes of s x s, keeping where each
// maximum came from.
func pool2(in []float32, c, s int, out []float32, idx []int32) {
	h := s / 2
	for ch := 0; ch < c; ch++ {
		for y := 0; y < h; y++ {
			for x := 0; x < h; x++ {
				b := ch*s*s + 2*y*s + 2*x
				m, mi := in[b], b
				if v := in[b+1]; v > m {
					m, mi = v, b+1
				}
				if v := in[b+s]; v > m {
					m, mi = v, b+s
				}
				if v := in[b+s+1]; v > m {
					m, mi = v, b+s+1
				}
				o := ch*h*h + y*h + x
				out[o], idx[o] = m, int32(mi)
			}
		}
	}
}

// forward runs the net on x, leaving the activations and the softmax in a.
func (n *faceNet) forward(x []float32, a *netAct) {
	conv3(x, netChans, netSide, n.w1, n.b1, n.c1, a.a1, a.pad, a.acc)
	pool2(a.a1, n.c1, netSide, a.p1, a.i1)
	conv3(a.p1, n.c1, netS1, n.w2, n.b2, n.c2, a.a2, a.pad, a.acc)
	pool2(a.a2, n.c2, netS1, a.p2, a.i2)
	f := n.flat()
	for j := 0; j < n.hid; j++ {
		w := n.w3[j*f : (j+1)*f]
		s := n.b3[j]
		for i, v := range a.p2 {
			s += w[i] * v
		}
		a.h[j] = max(s, 0)
	}
	var z [netMaxOut]float64
	mx := math.Inf(-1)
	for k := 0; k < n.nout; k++ {
		w := n.w4[k*n.hid : (k+1)*n.hid]
		s := n.b4[k]
		for j, v := range a.h {
			s += w[j] * v
		}
		z[k] = float64(s)
		mx = max(mx, z[k])
	}
	var sum float64
	for k := range z[:n.nout] {
		z[k] = math.Exp(z[k] - mx)
		sum += z[k]
	}
	for k := range z[:n.nout] {
		a.p[k] = float32(z[k] / sum)
	}
}

// netScratch holds a Reader's buffers for the face net.
type netScratch struct {
	x, t [netIn]float32
	a    *netAct
	net  *faceNet
	dist [netSide * netSide]float64
	in   [netSide * netSide]float64
	vals [netSide * netSide]float64 // one channel's inner values, for its median
}

// dihedral maps grid index i to its place under turn k (0..7: four
// quarter turns, then each mirrored). A face's value does not change
// under any of them.
var dihedral = func() (t [8][netSide * netSide]int) {
	for k := 0; k < 8; k++ {
		for y := 0; y < netSide; y++ {
			for x := 0; x < netSide; x++ {
				u, v := x, y
				if k >= 4 {
					u = netSide - 1 - u
				}
				for r := 0; r < k%4; r++ {
					u, v = netSide-1-v, u
				}
				t[k][y*netSide+x] = v*netSide + u
			}
		}
	}
	return t
}()

// turnInput writes x under dihedral turn k into dst.
func turnInput(x, dst []float32, k int) {
	m := &dihedral[k]
	for c := 0; c < netChans; c++ {
		o := c * netSide * netSide
		for i, j := range m {
			dst[o+j] = x[o+i]
		}
	}
}

// bilinear is the frame's colour (BGR) at (px, py), pixel centres at
// whole numbers, the frame's edge pixels standing in past its border.
func (fr bgrImage) bilinear(px, py float64) (c [3]float64) {
	x0, y0 := floorInt(px), floorInt(py)
	fx, fy := px-float64(x0), py-float64(y0)
	xa, xb := min(max(x0, 0), fr.w-1), min(max(x0+1, 0), fr.w-1)
	ya, yb := min(max(y0, 0), fr.h-1), min(max(y0+1, 0), fr.h-1)
	o00, o10 := (ya*fr.w+xa)*3, (ya*fr.w+xb)*3
	o01, o11 := (yb*fr.w+xa)*3, (yb*fr.w+xb)*3
	w00, w10 := (1-fx)*(1-fy), fx*(1-fy)
	w01, w11 := (1-fx)*fy, fx*fy
	for ch := 0; ch < 3; ch++ {
		c[ch] = float64(fr.pix[o00+ch])*w00 + float64(fr.pix[o10+ch])*w10 +
			float64(fr.pix[o01+ch])*w01 + float64(fr.pix[o11+ch])*w11
	}
	return c
}

// netInput samples the square of netSpan times the candidate's rectangle
// around its centre, turned as the candidate, into x: the first channel
// is each sample's colour distance from the body's colour (the median of
// the inner part), over a high percentile of that distance; the second
// is the luminance, centred and scaled to unit spread. Both hold for
// dark pips on a light body and light pips on a dark one alike.
func (s *netScratch) netInput(fr bgrImage, c candidate, x []float32) {
	co, si := math.Cos(c.angle), math.Sin(c.angle)
	const n = netSide * netSide
	var bgr [n][3]float64
	for j := 0; j < netSide; j++ {
		v := ((float64(j)+0.5)/netSide - 0.5) * c.h * netSpan
		for i := 0; i < netSide; i++ {
			u := ((float64(i)+0.5)/netSide - 0.5) * c.w * netSpan
			bgr[j*netSide+i] = fr.bilinear(c.cx+u*co-v*si-0.5, c.cy+u*si+v*co-0.5)
		}
	}
	// The body's colour: the per-channel median of the inner part (the
	// face without the margin the span adds).
	var med [3]float64
	for ch := 0; ch < 3; ch++ {
		vals := s.vals[:0]
		for j := netInner; j < netSide-netInner; j++ {
			for i := netInner; i < netSide-netInner; i++ {
				vals = append(vals, bgr[j*netSide+i][ch])
			}
		}
		slices.Sort(vals)
		med[ch] = vals[len(vals)/2]
	}
	// Both channels are scaled by the inner part alone: the floor
	// around the die, often far lighter or darker, would drown the pips.
	var lm, lv float64
	inner := 0
	for k := 0; k < n; k++ {
		p := bgr[k]
		s.dist[k] = colDist(p, med)
		l := 0.114*p[0] + 0.587*p[1] + 0.299*p[2]
		x[n+k] = float32(l)
		if i, j := k%netSide, k/netSide; i >= netInner && i < netSide-netInner && j >= netInner && j < netSide-netInner {
			lm += l
			s.in[inner] = s.dist[k]
			inner++
		}
	}
	lm /= float64(inner)
	for k := 0; k < n; k++ {
		if i, j := k%netSide, k/netSide; i >= netInner && i < netSide-netInner && j >= netInner && j < netSide-netInner {
			d := float64(x[n+k]) - lm
			lv += d * d
		}
	}
	sd := math.Max(math.Sqrt(lv/float64(inner)), 4)
	for k := 0; k < n; k++ {
		x[n+k] = float32(math.Max(-3, math.Min(3, (float64(x[n+k])-lm)/sd)))
	}
	in := s.in[:inner]
	slices.Sort(in)
	top := math.Max(in[inner*90/100], 15)
	for k := 0; k < n; k++ {
		x[k] = float32(math.Min(s.dist[k]/top, 2))
	}
}

// predict returns the net's probabilities for faces 1..6 of the
// candidate's face, averaged over the first netTurns of the eight turns
// of its patch (see predictTurns). A net with the reject output gives
// the six faces' own probabilities, which then sum to one less the
// reject's (see predictReject).
func (s *netScratch) predict(n *faceNet, fr bgrImage, c candidate) [6]float32 {
	p, _ := s.predictReject(n, fr, c)
	return p
}

// predictReject is predict and the net's probability that the patch is
// not a clean top face (0 for a net without that output).
func (s *netScratch) predictReject(n *faceNet, fr bgrImage, c candidate) ([6]float32, float64) {
	if s.a == nil || s.net != n {
		s.a, s.net = newNetAct(n), n
	}
	s.netInput(fr, c, s.x[:])
	return n.predictTurnsReject(s.x[:], s.t[:], s.a)
}

// netTurns is how many of the eight turns of a patch the net reads it
// under (the net learnt every turn): two, for speed; each is a forward
// pass of about 0.25M multiply-adds.
const netTurns = 2

// netTurnOrder is the order in which predictTurns takes the turns.
var netTurnOrder = [8]int{0, 5, 2, 7, 1, 4, 3, 6}

// predictTurns is the softmax averaged over the first netTurns turns of
// x: as given, and mirrored and turned a quarter (t is scratch of x's
// size).
func (n *faceNet) predictTurns(x, t []float32, a *netAct) [6]float32 {
	p, _ := n.predictTurnsReject(x, t, a)
	return p
}

// predictTurnsReject is predictTurns and the reject output's probability
// averaged alike (0 for a six-output net).
func (n *faceNet) predictTurnsReject(x, t []float32, a *netAct) ([6]float32, float64) {
	var avg [6]float32
	var rej float64
	for _, k := range netTurnOrder[:netTurns] {
		turnInput(x, t, k)
		n.forward(t, a)
		for v := range avg {
			avg[v] += a.p[v] / netTurns
		}
		if n.nout > 6 {
			rej += float64(a.p[6]) / netTurns
		}
	}
	return avg, rej
}

// netTop is the most likely face (1..6) and its probability.
func netTop(p [6]float32) (int, float64) {
	best := 0
	for v := 1; v < 6; v++ {
		if p[v] > p[best] {
			best = v
		}
	}
	return best + 1, float64(p[best])
}

// netSample is one training example: a patch and its face (1..6).
type netSample struct {
	x     [netIn]float32
	value int
}

// netTrainOptions tune trainFaceNet.
type netTrainOptions struct {
	C1, C2, Hidden int
	Epochs         int
	Rate           float64 // Adam's step
	Decay          float64 // L2 weight decay
	Seed           uint64
}

// netGrad holds one pass's gradients and the buffers behind them.
type netGrad struct {
	g                  *faceNet // gradients, shaped as the net
	a                  *netAct
	da1, dp1, da2, dp2 []float32
	dh                 []float32
	xt                 [netIn]float32
}

// backward adds the gradient of the cross-entropy of sample x (face v)
// to gr, after forward left gr.a.
func (n *faceNet) backward(x []float32, v int, gr *netGrad) {
	a, g := gr.a, gr.g
	clear(gr.dh)
	for k := 0; k < n.nout; k++ {
		dz := a.p[k]
		if k == v-1 {
			dz--
		}
		g.b4[k] += dz
		w := n.w4[k*n.hid : (k+1)*n.hid]
		gw := g.w4[k*n.hid : (k+1)*n.hid]
		for j, h := range a.h {
			gw[j] += dz * h
			gr.dh[j] += dz * w[j]
		}
	}
	f := n.flat()
	clear(gr.dp2)
	for j, h := range a.h {
		if h <= 0 {
			continue
		}
		d := gr.dh[j]
		g.b3[j] += d
		w := n.w3[j*f : (j+1)*f]
		gw := g.w3[j*f : (j+1)*f]
		for i, p := range a.p2 {
			gw[i] += d * p
			gr.dp2[i] += d * w[i]
		}
	}
	clear(gr.da2)
	for i, ix := range a.i2 {
		if a.a2[ix] > 0 {
			gr.da2[ix] += gr.dp2[i]
		}
	}
	clear(gr.dp1)
	conv3Back(a.p1, n.c1, netS1, n.w2, n.c2, gr.da2, g.w2, g.b2, gr.dp1)
	clear(gr.da1)
	for i, ix := range a.i1 {
		if a.a1[ix] > 0 {
			gr.da1[ix] += gr.dp1[i]
		}
	}
	conv3Back(x, netChans, netSide, n.w1, n.c1, gr.da1, g.w1, g.b1, nil)
}

// trainFaceNet fits a face net to the samples by Adam on the
// cross-entropy, each sample seen under a random one of the eight turns
// per epoch. It is deterministic for a seed.
func trainFaceNet(samples []netSample, o netTrainOptions) *faceNet {
	rng := rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15))
	n := newFaceNet(o.C1, o.C2, o.Hidden, rng)
	params := n.params()
	gr := &netGrad{g: allocFaceNet(o.C1, o.C2, o.Hidden), a: newNetAct(n)}
	gr.da1 = make([]float32, len(gr.a.a1))
	gr.dp1 = make([]float32, len(gr.a.p1))
	gr.da2 = make([]float32, len(gr.a.a2))
	gr.dp2 = make([]float32, len(gr.a.p2))
	gr.dh = make([]float32, o.Hidden)
	grads := gr.g.params()
	m1 := make([][]float32, len(params))
	m2 := make([][]float32, len(params))
	for i, p := range params {
		m1[i] = make([]float32, len(p))
		m2[i] = make([]float32, len(p))
	}
	const batch = 32
	const b1, b2, eps = 0.9, 0.999, 1e-8
	order := make([]int, len(samples))
	for i := range order {
		order[i] = i
	}
	step := 0
	for ep := 0; ep < o.Epochs; ep++ {
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		rate := o.Rate
		if ep >= o.Epochs*2/3 {
			rate /= 5
		}
		for b0 := 0; b0 < len(order); b0 += batch {
			for _, g := range grads {
				clear(g)
			}
			bn := min(len(order), b0+batch)
			for _, si := range order[b0:bn] {
				s := &samples[si]
				turnInput(s.x[:], gr.xt[:], rng.IntN(8))
				n.forward(gr.xt[:], gr.a)
				n.backward(gr.xt[:], s.value, gr)
			}
			step++
			scale := float32(1) / float32(bn-b0)
			c1 := 1 - math.Pow(b1, float64(step))
			c2 := 1 - math.Pow(b2, float64(step))
			for i, pr := range params {
				g, a, v := grads[i], m1[i], m2[i]
				decay := float32(o.Decay)
				if i%2 == 1 {
					decay = 0 // no decay on biases
				}
				for k := range pr {
					gk := g[k]*scale + decay*pr[k]
					a[k] = b1*a[k] + (1-b1)*gk
					v[k] = b2*v[k] + (1-b2)*gk*gk
					pr[k] -= float32(rate * (float64(a[k]) / c1) / (math.Sqrt(float64(v[k])/c2) + eps))
				}
			}
		}
	}
	return n
}

// netTop2 is the most likely face (1..6), its probability and the
// margin over the second most likely face's probability.
func netTop2(p [6]float32) (v int, prob, margin float64) {
	v, prob = netTop(p)
	second := 0.0
	for k := range p {
		if k != v-1 {
			second = max(second, float64(p[k]))
		}
	}
	return v, prob, prob - second
}

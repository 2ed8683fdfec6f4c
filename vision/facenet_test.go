package vision

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/dicewatch/dicewatch/vision/scene"
	"gocv.io/x/gocv"
)

// TestFaceNetGradient checks backward against central differences of the
// cross-entropy on a small random net.
func TestFaceNetGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := newFaceNet(3, 4, 5, rng)
	for _, p := range n.params() {
		for i := range p {
			p[i] += float32(rng.NormFloat64() * 0.05) // biases off zero too
		}
	}
	var x [netIn]float32
	for i := range x {
		x[i] = float32(rng.Float64()*2 - 1)
	}
	const v = 4
	gr := &netGrad{g: allocFaceNet(3, 4, 5), a: newNetAct(n)}
	gr.da1 = make([]float32, len(gr.a.a1))
	gr.dp1 = make([]float32, len(gr.a.p1))
	gr.da2 = make([]float32, len(gr.a.a2))
	gr.dp2 = make([]float32, len(gr.a.p2))
	gr.dh = make([]float32, 5)
	n.forward(x[:], gr.a)
	n.backward(x[:], v, gr)
	loss := func() float64 {
		a := newNetAct(n)
		n.forward(x[:], a)
		return -math.Log(float64(a.p[v-1]))
	}
	grads := gr.g.params()
	checked := 0
	for li, p := range n.params() {
		for k := 0; k < len(p); k += 1 + len(p)/7 {
			old := p[k]
			const h = 1e-3
			p[k] = old + h
			lp := loss()
			p[k] = old - h
			lm := loss()
			p[k] = old
			num := (lp - lm) / (2 * h)
			got := float64(grads[li][k])
			if math.Abs(num-got) > 2e-3+0.05*math.Abs(num) {
				t.Errorf("param %d[%d]: backward %.5f, numeric %.5f", li, k, got, num)
			}
			checked++
		}
	}
	if checked < 40 {
		t.Fatalf("checked only %d weights", checked)
	}
}

// TestFaceNetRoundTrip: a net written and read back predicts the same;
// damaged data is refused.
func TestFaceNetRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n := newFaceNet(2, 3, 4, rng)
	b := n.marshal()
	m, x, tt := readBackWithInput(t, b, rng)
	if p, q := n.predictTurns(x, tt, newNetAct(n)), m.predictTurns(x, tt, newNetAct(m)); p != q {
		t.Errorf("read back predicts %v, want %v", q, p)
	}
	for _, bad := range [][]byte{nil, b[:len(b)-1], append(append([]byte{}, b...), 0), []byte("DWFN2\n\x00\x00")} {
		if _, err := unmarshalFaceNet(bad); err == nil {
			t.Errorf("%d bytes: no error", len(bad))
		}
	}
}

// TestFaceNetDamaged: every truncation of a saved net, a header asking
// for the largest shape with too few bytes behind it, and a weight that
// is not a number are refused with an error, never a panic.
func TestFaceNetDamaged(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	b := newFaceNet(2, 3, 4, rng).marshal()
	if len(b) != faceNetSize(2, 3, 4) {
		t.Fatalf("marshal wrote %d bytes, faceNetSize says %d", len(b), faceNetSize(2, 3, 4))
	}
	for k := 0; k < len(b); k++ {
		if _, err := unmarshalFaceNet(b[:k]); err == nil {
			t.Fatalf("%d of %d bytes: no error", k, len(b))
		}
	}
	for _, k := range []int{len(netMagic) + 16, len(builtinFaceNetData) / 2, len(builtinFaceNetData) - 4} {
		if _, err := unmarshalFaceNet(builtinFaceNetData[:k]); err == nil {
			t.Errorf("built-in net cut to %d bytes: no error", k)
		}
	}
	big := slices.Clone(b)
	binary.LittleEndian.PutUint32(big[len(netMagic)+4:], 256)
	binary.LittleEndian.PutUint32(big[len(netMagic)+8:], 256)
	binary.LittleEndian.PutUint32(big[len(netMagic)+12:], 4096)
	if _, err := unmarshalFaceNet(big); err == nil {
		t.Error("largest shape on a small net's bytes: no error")
	}
	for _, v := range []float32{float32(math.NaN()), float32(math.Inf(1))} {
		bad := slices.Clone(b)
		binary.LittleEndian.PutUint32(bad[len(bad)-4:], math.Float32bits(v))
		if _, err := unmarshalFaceNet(bad); err == nil {
			t.Errorf("last weight %v: no error", v)
		}
	}
}

// TestDihedral: the eight turns are distinct permutations of the grid.
func TestDihedral(t *testing.T) {
	seen := map[[netSide * netSide]int]bool{}
	for k := 0; k < 8; k++ {
		used := make([]bool, netSide*netSide)
		for _, j := range dihedral[k] {
			if used[j] {
				t.Fatalf("turn %d is not a permutation", k)
			}
			used[j] = true
		}
		seen[dihedral[k]] = true
	}
	if len(seen) != 8 {
		t.Errorf("%d distinct turns, want 8", len(seen))
	}
}

// TestBuiltinFaceNet: the shipped net loads, and a Reader has it unless
// told not to.
func TestBuiltinFaceNet(t *testing.T) {
	if n, err := builtinFaceNet(); n == nil || err != nil || FaceNetError() != nil {
		t.Fatalf("the embedded face net does not load: %v", err)
	}
	r := NewReader(ReaderOptions{})
	defer r.Close()
	if r.net == nil {
		t.Error("a Reader has no face net")
	}
	q := NewReader(ReaderOptions{NoFaceNet: true})
	defer q.Close()
	if q.net != nil {
		t.Error("a Reader told NoFaceNet has one")
	}
}

// TestNetLookByler: on the byler photos, each read by the fold net that
// never saw it, netLook gives values to dice the pip reader left unread,
// every one of them the labelled face; read again with netLook off, each
// of those dice is unread (the values were netLook's alone).
func TestNetLookByler(t *testing.T) {
	ps := loadPhotoSet(t, "byler_d6")
	type given struct{ x, y float64 }
	gave := map[string][]given{} // by photo, the dice netLook gave a value
	for _, off := range []bool{false, true} {
		r := NewReader(ReaderOptions{})
		netOf := heldOutNets(t, ps.name, r)
		var got []given
		netTrace = func(d *Detection, fv faceValue) {
			got = append(got, given{d.CX, d.CY})
			t.Logf("given %d flatness %.3f lv %d tmpl %d blobs %d sq %v aspect %.3f lscore %.2f ncc %.2f junk %v",
				fv.value, d.Flatness, fv.lv, fv.tmpl, fv.blobs, fv.sq, min(fv.c.w, fv.c.h)/max(fv.c.w, fv.c.h), fv.lscore, fv.nccScore, fv.junk)
		}
		// sepLook (the separated pips' layout with the net) and
		// mapsAgreeLook (the pip maps' layouts without it) read some of
		// netLook's dice too, and lowNetLook (netLook's rule without its
		// margin) all of them: they are off with netLook.
		netLookOff, sepLookOff, mapsAgreeLookOff, lowNetOff = off, off, off, off
		var n, right, unreadOff int
		for _, name := range ps.images {
			r.net = netOf[name]
			img := gocv.IMRead(filepath.Join(photoRoot, ps.name, "images", name), gocv.IMReadColor)
			got = got[:0]
			dets, err := r.Read(img)
			img.Close()
			if err != nil {
				t.Fatal(err)
			}
			if off {
				for _, g := range gave[name] {
					found := false
					for _, d := range dets {
						if d.CX == g.x && d.CY == g.y {
							found = true
							if d.Value != 0 {
								t.Errorf("%s: the die at (%.0f, %.0f) reads %d with netLook off too", name, g.x, g.y, d.Value)
							} else {
								unreadOff++
							}
						}
					}
					if !found {
						t.Errorf("%s: no die at (%.0f, %.0f) with netLook off", name, g.x, g.y)
					}
				}
				continue
			}
			gave[name] = slices.Clone(got)
			truth := ps.dice[name]
			for _, p := range matchBoxes(truth, dets, false) {
				d := dets[p[1]]
				if !slices.Contains(got, given{d.CX, d.CY}) {
					continue
				}
				n++
				if d.Value == truth[p[0]].value {
					right++
				} else if d.Value != 0 {
					t.Errorf("%s: netLook gave %d to a labelled %d", name, d.Value, truth[p[0]].value)
				}
			}
		}
		netTrace, netLookOff, sepLookOff, mapsAgreeLookOff, lowNetOff = nil, false, false, false, false
		r.Close()
		if off {
			t.Logf("netLook off: %d of the dice it gave a value unread", unreadOff)
			continue
		}
		t.Logf("netLook on: %d values given to labelled dice, %d right", n, right)
		if right < netLookBylerFloor {
			t.Errorf("netLook gave %d right values on byler, want >= %d", right, netLookBylerFloor)
		}
	}
}

// netLookBylerFloor: the right values netLook gives on byler, cross-
// validated: 5 with session 12's seven-output net (4 with session 11's
// six-output net; 6 with a one-cue rule that counted the template alone,
// dropped after tuning still 826).
const netLookBylerFloor = 5

// TestNetLookStills: generated stills where netLook once gave a wrong
// value, each read in the mode it was given in; the die must not read
// that value again. Still 2014 (held out, calibrated): a cocked 5 whose
// layout and blob count read 4 and template 6, the net 4 (a pip cue saw
// a larger face). Tuning stills: 1017 (uncalibrated), a 1 whose one blob
// the net and the template read as a 2 (the layout did not agree);
// 1342 (calibrated) a cocked 6 and 1119 (calibrated) a stacked 5, each
// read on a foreshortened face rectangle as a 3 and a 4 (not square);
// 1932 (calibrated) a cocked 5 missing a pip, read 4 by the net, the
// layout and the blobs (the template, a 2, did not agree). Final-check
// still 14965 (calibrated): a black 5 cocked 36 degrees against a blue
// die, read 4 at 0.70 with session 11's six-output net (this test fails
// with it); the seven-output net leaves it. Tuning still 826
// (uncalibrated): a blurred white 5 with no blob read 6 by the net and
// the template alone, before the one cue had to count pips.
func TestNetLookStills(t *testing.T) {
	for _, tc := range []struct {
		seed        int64
		cal         bool
		truth, read int
	}{
		{2014, true, 5, 4},
		{1017, false, 1, 2},
		{1342, true, 6, 3},
		{1119, true, 5, 4},
		{1932, true, 5, 4},
		{14965, true, 5, 4},
		{826, false, 5, 6},
	} {
		img, tr, err := scene.Still(tc.seed, scene.StillOptions{})
		if err != nil {
			t.Fatal(err)
		}
		opts := ReaderOptions{}
		if tc.cal {
			opts.DiePx = tr.EdgePx
		}
		r := NewReader(opts)
		dets, err := r.Read(img)
		img.Close()
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		checked := 0
		for _, p := range matchStill(tr.Dice, dets) {
			g, d := tr.Dice[p[0]], dets[p[1]]
			if g.Value != tc.truth {
				continue
			}
			checked++
			if d.Value == tc.read {
				t.Errorf("still %d (calibrated %v): the %d at (%.0f, %.0f) read %d at %.2f", tc.seed, tc.cal, g.Value, d.CX, d.CY, d.Value, d.Confidence)
			}
		}
		if checked == 0 {
			t.Errorf("still %d: no %d detected", tc.seed, tc.truth)
		}
	}
}

// TestFaceNetRejectFormat: a net with the seventh (reject) output is
// written with its output count and read back predicting the same; its
// six faces' probabilities and the reject's sum to one; a damaged copy
// (cut short, an output count other than 6 or 7) is refused.
func TestFaceNetRejectFormat(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	n := allocFaceNetOut(2, 3, 4, 7)
	for _, p := range n.params() {
		for i := range p {
			p[i] = float32(0.1 * rng.NormFloat64())
		}
	}
	b := n.marshal()
	if len(b) != faceNetSizeOut(2, 3, 4, 7) || !bytes.HasPrefix(b, []byte(netMagicOut)) {
		t.Fatalf("marshal wrote %d bytes starting %q, want %d starting %q", len(b), b[:6], faceNetSizeOut(2, 3, 4, 7), netMagicOut)
	}
	m, x, tt := readBackWithInput(t, b, rng)
	p, pr := n.predictTurnsReject(x, tt, newNetAct(n))
	q, qr := m.predictTurnsReject(x, tt, newNetAct(m))
	if p != q || pr != qr {
		t.Errorf("read back predicts %v %v, want %v %v", q, qr, p, pr)
	}
	sum := pr
	for _, v := range p {
		sum += float64(v)
	}
	if math.Abs(sum-1) > 1e-5 || pr <= 0 {
		t.Errorf("faces and reject sum to %v (reject %v), want 1", sum, pr)
	}
	for k := 0; k < len(b); k++ {
		if _, err := unmarshalFaceNet(b[:k]); err == nil {
			t.Fatalf("%d of %d bytes: no error", k, len(b))
		}
	}
	for _, out := range []uint32{0, 5, 8, 1 << 30} {
		bad := slices.Clone(b)
		binary.LittleEndian.PutUint32(bad[len(netMagicOut)+16:], out)
		if _, err := unmarshalFaceNet(bad); err == nil {
			t.Errorf("%d outputs: no error", out)
		}
	}
	// A six-output net as tools/facenet/train.py writes it without the
	// reject output (--reject 0): DWFN3 and the count 6. It reads as the
	// same net written DWFN2.
	six := newFaceNet(2, 3, 4, rng)
	b6 := six.marshal()
	b3 := slices.Concat([]byte(netMagicOut), b6[len(netMagic):len(netMagic)+16], binary.LittleEndian.AppendUint32(nil, 6), b6[len(netMagic)+16:])
	if m6, err := unmarshalFaceNet(b3); err != nil {
		t.Errorf("six outputs under DWFN3: %v", err)
	} else if m6.nout != 6 || !bytes.Equal(m6.marshal(), b6) {
		t.Errorf("six outputs under DWFN3 read as %d outputs, other weights", m6.nout)
	}
	// A DWFN3 header asking for the largest shape over a small net's
	// bytes.
	big := slices.Clone(b)
	for i, v := range []uint32{256, 256, 4096} {
		binary.LittleEndian.PutUint32(big[len(netMagicOut)+4+4*i:], v)
	}
	if _, err := unmarshalFaceNet(big); err == nil {
		t.Error("largest shape on a small net's bytes: no error")
	}
	// A weight that is not a finite number, first and last (the reject
	// output's bias).
	for _, at := range []int{len(netMagicOut) + 20, len(b) - 4} {
		for _, v := range []float32{float32(math.NaN()), float32(math.Inf(-1))} {
			bad := slices.Clone(b)
			binary.LittleEndian.PutUint32(bad[at:], math.Float32bits(v))
			if _, err := unmarshalFaceNet(bad); err == nil {
				t.Errorf("weight at byte %d %v: no error", at, v)
			}
		}
	}
}

// weightsFinite fails the fuzz case for a net loaded with a weight that
// is not a finite number (the loaders must refuse it).
func weightsFinite(t *testing.T, params [][]float32) {
	t.Helper()
	for _, p := range params {
		for _, v := range p {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				t.Fatalf("weight %v accepted", v)
			}
		}
	}
}

// FuzzFaceNet: unmarshalFaceNet on any bytes returns an error or a net
// whose every weight is finite and which marshal writes back byte for
// byte (so it took no more room than the data's own length asks); it
// never panics.
func FuzzFaceNet(f *testing.F) {
	rng := rand.New(rand.NewPCG(10, 11))
	f.Add(newFaceNet(1, 1, 1, rng).marshal())
	n7 := allocFaceNetOut(1, 2, 2, 7)
	for _, p := range n7.params() {
		for i := range p {
			p[i] = float32(rng.NormFloat64())
		}
	}
	f.Add(n7.marshal())
	f.Add([]byte(netMagicOut))
	f.Fuzz(func(t *testing.T, data []byte) {
		n, err := unmarshalFaceNet(data)
		if err != nil {
			return
		}
		weightsFinite(t, n.params())
		b := n.marshal()
		if n.nout == 6 && bytes.HasPrefix(data, []byte(netMagicOut)) {
			// marshal writes a six-output net DWFN2, without the count.
			b = slices.Concat([]byte(netMagicOut), b[len(netMagic):len(netMagic)+16], binary.LittleEndian.AppendUint32(nil, 6), b[len(netMagic)+16:])
		}
		if !bytes.Equal(b, data) {
			t.Fatalf("read %d bytes, written back %d differing", len(data), len(b))
		}
	})
}

// TestNetCueAgrees pins netLook's agreement rule: the layout and the
// template must both read the net's face, 2 to 6, and the seven-output
// net's "no clean top face" must stay under netMaxReject.
func TestNetCueAgrees(t *testing.T) {
	for _, tc := range []struct {
		fv   faceValue
		v    int
		rej  float64
		want bool
	}{
		{faceValue{lv: 4, tmpl: 4}, 4, 0, true},
		{faceValue{lv: 4, tmpl: 4}, 4, netMaxReject - 0.01, true},
		{faceValue{lv: 4, tmpl: 4}, 4, netMaxReject, false},
		{faceValue{lv: 4, tmpl: 6}, 4, 0, false},
		{faceValue{lv: 6, tmpl: 6, blobs: 0}, 6, 0, true},
		{faceValue{lv: 0, tmpl: 6}, 6, 0, false},
		{faceValue{lv: 5, tmpl: 5}, 4, 0, false},
		{faceValue{lv: 1, tmpl: 1}, 1, 0, false},
	} {
		if got := netCueAgrees(tc.fv, tc.v, tc.rej); got != tc.want {
			t.Errorf("netCueAgrees(lv %d tmpl %d, %d, %.2f) = %v, want %v", tc.fv.lv, tc.fv.tmpl, tc.v, tc.rej, got, tc.want)
		}
	}
}

// readBackWithInput reads back a saved net (failing the test if it is
// refused), and gives a random input patch for it and the scratch its
// turns need.
func readBackWithInput(t *testing.T, b []byte, rng *rand.Rand) (m *faceNet, x, turned []float32) {
	t.Helper()
	m, err := unmarshalFaceNet(b)
	if err != nil {
		t.Fatal(err)
	}
	x = make([]float32, netIn)
	for i := range x {
		x[i] = float32(rng.Float64())
	}
	return m, x, make([]float32, netIn)
}

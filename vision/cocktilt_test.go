package vision

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"slices"
	"testing"
)

// TestCockTiltNetParity runs the shipped tilt nets on twelve exported
// inputs each (grid, the two scalars and the view's tilt over
// cockTiltScale) and checks their outputs against torch's for them
// (testdata/cocknet/parity_tilt.bin, parity_tilt_up.bin, written by
// tools/cocknet/train.py --parity with --tilts).
func TestCockTiltNetParity(t *testing.T) {
	ns, err := builtinCockTiltNet()
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"testdata/cocknet/parity_tilt.bin", "testdata/cocknet/parity_tilt_up.bin"}
	if len(ns) != len(files) {
		t.Fatalf("%d nets, %d parity files", len(ns), len(files))
	}
	var s cockScratch
	for k, n := range ns {
		if n.scalars() != cockMaxExtra {
			t.Fatalf("net %d takes %d scalars", k, n.scalars())
		}
		data, err := os.ReadFile(files[k])
		if err != nil {
			t.Fatal(err)
		}
		row := n.in() + n.scalars() + 1
		if len(data)%(4*row) != 0 || len(data) == 0 {
			t.Fatalf("%s: %d bytes, not rows of %d float32s", files[k], len(data), row)
		}
		x := make([]float32, row)
		tilted := 0
		for r := 0; r < len(data)/(4*row); r++ {
			if err := binary.Read(bytes.NewReader(data[4*row*r:4*row*(r+1)]), binary.LittleEndian, x); err != nil {
				t.Fatal(err)
			}
			if x[row-2] != 0 {
				tilted++
			}
			got := s.forward(n, x[:row-1])
			if want := float64(x[row-1]); math.Abs(got-want) > 1e-4 {
				t.Errorf("%s row %d: Go %.5f, torch %.5f", files[k], r, got, want)
			}
		}
		if tilted == 0 {
			t.Errorf("%s: every row seen straight down; the tilt's weights are not checked", files[k])
		}
	}
}

// TestCockTiltNetFormat: a DWCK3 file round-trips, takes its third
// scalar, and damaged ones (no scalars, too many, the DWCK2 magic on a
// DWCK3 body) are errors.
func TestCockTiltNetFormat(t *testing.T) {
	sh := cockShape{side: 16, chans: 2, spanMilli: 2000, core: 6, c1: 2, c2: 3, hid: 4, extra: 3}
	n := randomCockNet(sh, 11)
	good := marshalCockNet(n)
	m, err := unmarshalCockNet(good)
	if err != nil {
		t.Fatal(err)
	}
	if m.scalars() != 3 || !bytes.Equal(marshalCockNet(m), good) {
		t.Fatalf("DWCK3 round trip: %d scalars", m.scalars())
	}
	// The third scalar counts: the same grid and two scalars with
	// another tilt give another probability.
	var s cockScratch
	x := make([]float32, n.in()+3)
	for i := range x {
		x[i] = float32(i%5) / 5
	}
	x[n.in()+2] = 0
	a := s.forward(m, x)
	x[n.in()+2] = 1
	if b := s.forward(m, x); a == b {
		t.Errorf("the tilt changes nothing: %v", a)
	}
	bad := map[string][]byte{}
	for name, extra := range map[string]uint32{"no scalars": 0, "four": 4, "one": 1} {
		b := slices.Clone(good)
		binary.LittleEndian.PutUint32(b[len(cockMagic3)+32:], extra)
		bad[name] = b
	}
	bad["DWCK2 magic"] = append([]byte(cockMagic), good[len(cockMagic3):]...)
	bad["truncated"] = good[:len(good)-4]
	for name, b := range bad {
		if _, err := unmarshalCockNet(b); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	// A tilt net and a net without the tilt do not load together.
	if _, err := loadCockNets(good, marshalCockNet(randomCockNet(cockShape{side: 16, chans: 2, spanMilli: 2000, core: 6, c1: 2, c2: 3, hid: 4}, 12))); err == nil {
		t.Error("nets taking two and three scalars loaded together")
	}
}

// TestCockAsk: a die goes to the tilt nets only where the view's tilt is
// known at its place (a number 0..90); no view, NaN, a negative or
// impossible tilt, or cockTiltOff give it to the nets without the view
// with cockCut and cockUnsure.
func TestCockAsk(t *testing.T) {
	ns, err := builtinCockNet()
	if err != nil {
		t.Fatal(err)
	}
	tn, err := builtinCockTiltNet()
	if err != nil {
		t.Fatal(err)
	}
	d := Detection{CX: 10, CY: 10}
	for _, c := range []struct {
		name string
		view func(x, y float64) float64
		tilt bool
	}{
		{"no view", nil, false},
		{"not known here", func(x, y float64) float64 { return math.NaN() }, false},
		{"negative", func(x, y float64) float64 { return -1 }, false},
		{"past 90", func(x, y float64) float64 { return 91 }, false},
		{"infinite", func(x, y float64) float64 { return math.Inf(1) }, false},
		{"straight", func(x, y float64) float64 { return 0 }, true},
		{"aslant", func(x, y float64) float64 { return 25 }, true},
	} {
		r := &Reader{opts: ReaderOptions{ViewTiltDeg: c.view}}
		a := r.cockAsk(ns, d)
		if c.tilt {
			if &a.nets[0] != &tn[0] || a.cut != cockTiltNotFlat || a.unsure != cockTiltUnsure || a.tilt != c.view(0, 0) {
				t.Errorf("%s: %+v, want the tilt nets", c.name, a)
			}
			cockTiltOff = true
			if b := r.cockAsk(ns, d); &b.nets[0] != &ns[0] || b.cut != r.cockCut(d) {
				t.Errorf("%s with cockTiltOff: not the nets without the view", c.name)
			}
			cockTiltOff = false
			continue
		}
		if &a.nets[0] != &ns[0] || a.cut != r.cockCut(d) || a.unsure != cockUnsure {
			t.Errorf("%s: %+v, want the nets without the view", c.name, a)
		}
	}
	// forwardUnder stops only under a cut that decides nothing more:
	// the tilt nets' unsure cut is not over their flat cut.
	if cockTiltUnsure > cockTiltNotFlat {
		t.Errorf("unsure %v over the cut %v", cockTiltUnsure, cockTiltNotFlat)
	}
}

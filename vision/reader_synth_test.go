package vision

import (
	"image"
	"math"
	"math/rand/v2"
	"testing"

	"gocv.io/x/gocv"
)

// synthDie is one die drawn by drawTable: centre, edge (px), rotation
// (radians) and face value.
type synthDie struct {
	cx, cy, edge, angle float64
	value               int
}

// pipOffsets are the canonical pip centres in units of the pip offset.
var pipOffsets = map[int][][2]float64{
	1: {{0, 0}},
	2: {{-1, -1}, {1, 1}},
	3: {{-1, -1}, {0, 0}, {1, 1}},
	4: {{-1, -1}, {1, -1}, {-1, 1}, {1, 1}},
	5: {{-1, -1}, {1, -1}, {0, 0}, {-1, 1}, {1, 1}},
	6: {{-1, -1}, {-1, 0}, {-1, 1}, {1, -1}, {1, 0}, {1, 1}},
}

// drawTable renders red casino dice with white pips on green felt, seen
// from above, with sensor noise and a slight blur. The caller closes the
// Mat.
func drawTable(w, h int, dice []synthDie, seed uint64) gocv.Mat {
	rng := rand.New(rand.NewPCG(seed, 7))
	pix := make([]byte, w*h*3)
	felt := [3]float64{45, 115, 35} // BGR
	body := [3]float64{40, 30, 175}
	pip := [3]float64{235, 240, 245}
	for y := 0; y < h; y++ {
		shade := 0.9 + 0.2*float64(y)/float64(h)
		for x := 0; x < w; x++ {
			for c := 0; c < 3; c++ {
				pix[(y*w+x)*3+c] = uint8(clamp(felt[c]*shade, 0, 255))
			}
		}
	}
	const ss = 3 // supersampling per axis
	for _, d := range dice {
		co, si := math.Cos(d.angle), math.Sin(d.angle)
		r := int(d.edge) + 2
		for y := int(d.cy) - r; y <= int(d.cy)+r; y++ {
			for x := int(d.cx) - r; x <= int(d.cx)+r; x++ {
				if x < 0 || y < 0 || x >= w || y >= h {
					continue
				}
				var acc [3]float64
				hits := 0
				for sy := 0; sy < ss; sy++ {
					for sx := 0; sx < ss; sx++ {
						px := float64(x) + (float64(sx)+0.5)/ss - d.cx
						py := float64(y) + (float64(sy)+0.5)/ss - d.cy
						u := (px*co + py*si) / d.edge
						v := (-px*si + py*co) / d.edge
						if math.Abs(u) > 0.5 || math.Abs(v) > 0.5 {
							continue
						}
						// Rounded corners.
						cu, cv := math.Abs(u)-0.38, math.Abs(v)-0.38
						if cu > 0 && cv > 0 && math.Hypot(cu, cv) > 0.12 {
							continue
						}
						col := body
						for _, p := range pipOffsets[d.value] {
							if math.Hypot(u-p[0]*0.25, v-p[1]*0.25) < 0.09 {
								col = pip
							}
						}
						for c := 0; c < 3; c++ {
							acc[c] += col[c]
						}
						hits++
					}
				}
				if hits == 0 {
					continue
				}
				a := float64(hits) / ss / ss
				for c := 0; c < 3; c++ {
					o := (y*w+x)*3 + c
					pix[o] = uint8(clamp(float64(pix[o])*(1-a)+acc[c]/ss/ss, 0, 255))
				}
			}
		}
	}
	for i := range pix {
		pix[i] = uint8(clamp(float64(pix[i])+rng.NormFloat64()*4, 0, 255))
	}
	m, err := gocv.NewMatFromBytes(h, w, gocv.MatTypeCV8UC3, pix)
	if err != nil {
		panic(err)
	}
	gocv.GaussianBlur(m, &m, image.Pt(3, 3), 0.7, 0.7, gocv.BorderReflect)
	return m
}

// TestReadSynthetic reads rendered casino dice of every value at several
// angles and sizes, uncalibrated and calibrated.
func TestReadSynthetic(t *testing.T) {
	tests := []struct {
		name  string
		edge  float64
		angle float64
		opts  ReaderOptions
	}{
		{"upright 28px", 28, 0, ReaderOptions{}},
		{"turned 20deg 28px", 28, 20 * math.Pi / 180, ReaderOptions{}},
		{"turned 40deg 28px calibrated", 28, 40 * math.Pi / 180, ReaderOptions{ExpectedEdgePx: func(x, y float64) float64 { return 28 }}},
		{"turned 65deg 40px die-px", 40, 65 * math.Pi / 180, ReaderOptions{DiePx: 40}},
		{"1080p casino 17px calibrated", 17, 10 * math.Pi / 180, ReaderOptions{ExpectedEdgePx: func(x, y float64) float64 { return 17 }}},
		{"1080p casino 17px uncalibrated", 17, 30 * math.Pi / 180, ReaderOptions{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var dice []synthDie
			for v := 1; v <= 6; v++ {
				dice = append(dice, synthDie{cx: float64(100 + 150*(v-1)), cy: 200 + float64(v%2)*120, edge: tc.edge, angle: tc.angle + float64(v)*0.05, value: v})
			}
			img := drawTable(1000, 500, dice, uint64(len(tc.name)))
			defer img.Close()
			r := NewReader(tc.opts)
			defer r.Close()
			got, err := r.Read(img)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(dice) {
				t.Fatalf("found %d dice, want %d: %+v", len(got), len(dice), got)
			}
			for _, d := range dice {
				found := false
				for _, g := range got {
					if math.Hypot(g.CX-d.cx, g.CY-d.cy) > d.edge/4 {
						continue
					}
					found = true
					if g.Value != d.value {
						t.Errorf("die at %.0f,%.0f: read %d (conf %.2f), want %d", d.cx, d.cy, g.Value, g.Confidence, d.value)
					}
					if !g.Flat {
						t.Errorf("die at %.0f,%.0f: not flat (flatness %.2f)", d.cx, d.cy, g.Flatness)
					}
					if math.Abs(g.EdgePx-d.edge) > 0.15*d.edge {
						t.Errorf("die at %.0f,%.0f: edge %.1f px, want about %.0f", d.cx, d.cy, g.EdgePx, d.edge)
					}
				}
				if !found {
					t.Errorf("die at %.0f,%.0f not found", d.cx, d.cy)
				}
			}
		})
	}
}

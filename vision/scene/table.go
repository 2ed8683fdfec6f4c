package scene

import (
	"image"
	"image/color"
	"math"
	"math/rand/v2"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/calibration"
)

// Table geometry in mm (the 12-foot template of calibration.Craps12Zones).
const (
	tableL    = calibration.Craps12Length
	tableW    = calibration.Craps12Width
	railW     = calibration.Craps12Rail
	bowlX     = tableL / 2
	bowlY     = tableW - railW - 110
	bowlZoneR = 95.0
	bowlOuter = 88.0 // the wooden bowl's outer radius, inside the zone
	bowlInner = 72.0
	bankX0    = tableL/2 - 330
	bankX1    = tableL/2 + 330
	bankY0    = railW
	bankY1    = railW + 200
	wallX     = tableL - railW // inner face of the far rail: the back wall
	rubberMM  = 14.0           // pyramid rubber on the back wall
	chipR     = 19.5           // a 39 mm chip
)

// chip is one stack of chips seen from above.
type chip struct {
	X, Y   float64
	Colour [3]float64
	Stripe [3]float64
	Bank   bool
	// Shadow is the colour of its shadow on the surface (zero: dark felt).
	Shadow [3]float64
}

// tableScene is the static part of a session: felt, layout, rail, bowl,
// chips. Its positions are in table mm.
type tableScene struct {
	felt  [3]float64
	chips []chip
	// bankFree are bank spots left without chips, where a die may rest.
	bankFree []pt
	// light is the lighting gradient: gain at the image corners.
	lightA, lightB, lightC float64
}

var chipColours = [][3]float64{
	{40, 40, 200},   // red
	{60, 140, 40},   // green
	{35, 35, 35},    // black
	{225, 225, 225}, // white
	{140, 40, 120},  // purple
	{20, 160, 230},  // orange/yellow
	{170, 100, 30},  // blue
}

func newTableScene(rng *rand.Rand) *tableScene {
	t := &tableScene{
		felt:   [3]float64{58 + rng.Float64()*12, 110 + rng.Float64()*20, 28 + rng.Float64()*12},
		lightA: 0.06 + rng.Float64()*0.08,
		lightB: (rng.Float64() - 0.5) * 0.12,
		lightC: (rng.Float64() - 0.5) * 0.08,
	}
	// The bank: rows of stacks in front of the boxperson, some spots empty.
	pitch := 2*chipR + 3
	for row := 0; row < 4; row++ {
		for col := 0; col < 14; col++ {
			x := bankX0 + 45 + float64(col)*pitch
			y := bankY0 + 32 + float64(row)*pitch
			if x > bankX1-40 || y > bankY1-25 {
				continue
			}
			if rng.Float64() < 0.22 {
				t.bankFree = append(t.bankFree, pt{x, y})
				continue
			}
			c := chipColours[(col/3+row)%len(chipColours)]
			t.chips = append(t.chips, chip{X: x, Y: y, Colour: c, Stripe: stripeFor(c), Bank: true})
		}
	}
	if len(t.bankFree) == 0 {
		// keep at least one place on the bank a die can land
		t.bankFree = append(t.bankFree, pt{bankX0 + 45, bankY0 + 32})
		t.chips = t.chips[1:]
	}
	// Bets on the layout: a few stacks on the place numbers and come.
	n := 4 + rng.IntN(4)
	for len(t.chips) < 1000 && n > 0 {
		x := 2450 + rng.Float64()*950
		y := 380 + rng.Float64()*650
		ok := true
		for _, c := range t.chips {
			if !c.Bank && math.Hypot(c.X-x, c.Y-y) < 160 {
				ok = false
			}
		}
		if !ok {
			continue
		}
		col := chipColours[rng.IntN(len(chipColours))]
		t.chips = append(t.chips, chip{X: x, Y: y, Colour: col, Stripe: stripeFor(col)})
		n--
	}
	return t
}

func stripeFor(c [3]float64) [3]float64 {
	if c[0]+c[1]+c[2] > 500 {
		return [3]float64{200, 60, 40}
	}
	return [3]float64{235, 235, 235}
}

// betChips are the stacks on the layout (not the bank).
func (t *tableScene) betChips() []chip {
	var out []chip
	for _, c := range t.chips {
		if !c.Bank {
			out = append(out, c)
		}
	}
	return out
}

func hash2(x, y int, seed uint32) float64 {
	h := uint32(x)*374761393 + uint32(y)*668265263 + seed*2246822519
	h = (h ^ (h >> 13)) * 1274126177
	h ^= h >> 16
	return float64(h&0xffffff) / float64(0xffffff)
}

// vnoise is smooth value noise in 0..1 with lattice cell size 1.
func vnoise(x, y float64, seed uint32) float64 {
	xi, yi := math.Floor(x), math.Floor(y)
	fx, fy := x-xi, y-yi
	fx = fx * fx * (3 - 2*fx)
	fy = fy * fy * (3 - 2*fy)
	ix, iy := int(xi), int(yi)
	a := hash2(ix, iy, seed)
	b := hash2(ix+1, iy, seed)
	c := hash2(ix, iy+1, seed)
	d := hash2(ix+1, iy+1, seed)
	return a + (b-a)*fx + (c-a)*fy + (a-b-c+d)*fx*fy
}

func bgr(c [3]float64) color.RGBA {
	return color.RGBA{R: uint8(clampF(c[2])), G: uint8(clampF(c[1])), B: uint8(clampF(c[0])), A: 255}
}

func clampF(v float64) float64 {
	if v < 0 {
		return 0
	}
	if v > 255 {
		return 255
	}
	return v
}

// renderBackground draws the empty table into a new 8UC3 Mat.
func (t *tableScene) renderBackground(v *view, seed uint32) (gocv.Mat, error) {
	w, h := v.cam.Width, v.cam.Height
	buf := make([]byte, w*h*3)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			X, Y := v.tab(float64(x)+0.5, float64(y)+0.5)
			var c [3]float64
			switch {
			case X > tableL || Y < 0 || Y > tableW:
				// the casino carpet beyond the table
				n := vnoise(X/9, Y/9, seed+7)
				c = [3]float64{45 + 12*n, 28 + 8*n, 75 + 15*n}
			case X > wallX && X < wallX+4 || (Y < railW && Y > railW-4) || (Y > tableW-railW && Y < tableW-railW+4):
				c = [3]float64{25, 30, 35} // the rail's inner lip
			case X > wallX || Y < railW || Y > tableW-railW:
				// padded leather arm rest over a wooden rail with a chip groove
				d := math.Min(math.Min(Y, tableW-Y), tableL-X) // distance to the table's outer edge
				grain := 0.5 + 0.5*(vnoise(X/80, Y/7, seed+3)-0.5)
				switch {
				case d < 70:
					l := 0.75 + 0.25*math.Sin(d/70*math.Pi)
					c = [3]float64{30 * l, 32 * l, 45 * l}
					c[2] += 4 * vnoise(X/8, Y/8, seed+5)
				case d < 90:
					c = [3]float64{40 + 20*grain, 70 + 30*grain, 110 + 40*grain}
				default:
					g := 0.6 + 0.4*math.Abs(math.Sin((d-90)/40*math.Pi))
					c = [3]float64{(35 + 20*grain) * g, (60 + 30*grain) * g, (95 + 40*grain) * g}
				}
			case X > wallX-rubberMM:
				// pyramid rubber on the back wall
				u := math.Mod(Y, 16) / 16
				s := math.Abs(u-0.5) * 2
				e := (wallX - X) / rubberMM
				l := 0.5 + 0.5*math.Abs(s-e)
				c = [3]float64{28 * l, 28 * l, 30 * l}
			default:
				n := vnoise(X/3, Y/3, seed) - 0.5
				n2 := vnoise(X/40, Y/40, seed+1) - 0.5
				l := 1 + 0.015*n + 0.07*n2
				c = [3]float64{t.felt[0] * l, t.felt[1] * l, t.felt[2] * l}
			}
			i := 3 * (y*w + x)
			buf[i], buf[i+1], buf[i+2] = uint8(clampF(c[0])), uint8(clampF(c[1])), uint8(clampF(c[2]))
		}
	}
	m := gocv.NewMatWithSize(h, w, gocv.MatTypeCV8UC3)
	dst, err := m.DataPtrUint8()
	if err != nil {
		m.Close()
		return gocv.Mat{}, err
	}
	copy(dst, buf)
	t.drawLayout(&m, v)
	t.drawBowl(&m, v)
	for _, c := range t.chips {
		drawChip(&m, v, c)
	}
	// lighting: a gentle gradient and vignette, as from overhead lamps
	d, _ := m.DataPtrUint8()
	for y := 0; y < h; y++ {
		ny := float64(y)/float64(h)*2 - 1
		for x := 0; x < w; x++ {
			nx := float64(x)/float64(w)*2 - 1
			g := 1 - t.lightA*(nx*nx+ny*ny)/2 + t.lightB*nx + t.lightC*ny
			i := 3 * (y*w + x)
			for k := 0; k < 3; k++ {
				d[i+k] = uint8(clampF(float64(d[i+k]) * g))
			}
		}
	}
	return m, nil
}

// polyMM fills a polygon given in table mm.
func polyMM(m *gocv.Mat, v *view, pts [][2]float64, c [3]float64) {
	ip := make([]image.Point, len(pts))
	for i, p := range pts {
		x, y := v.img(p[0], p[1])
		ip[i] = image.Pt(int(math.Round(x*16)), int(math.Round(y*16)))
	}
	pv := gocv.NewPointsVectorFromPoints([][]image.Point{ip})
	defer pv.Close()
	gocv.FillPolyWithParams(m, pv, bgr(c), gocv.LineAA, 4, image.Point{})
}

// outlineMM strokes a closed polygon in table mm with a line widthMM wide.
func outlineMM(m *gocv.Mat, v *view, pts [][2]float64, widthMM float64, c [3]float64) {
	for i := range pts {
		a, b := pts[i], pts[(i+1)%len(pts)]
		lineMM(m, v, a, b, widthMM, c)
	}
}

func lineMM(m *gocv.Mat, v *view, a, b [2]float64, widthMM float64, c [3]float64) {
	dx, dy := b[0]-a[0], b[1]-a[1]
	l := math.Hypot(dx, dy)
	if l == 0 {
		return
	}
	nx, ny := -dy/l*widthMM/2, dx/l*widthMM/2
	polyMM(m, v, [][2]float64{{a[0] + nx, a[1] + ny}, {b[0] + nx, b[1] + ny}, {b[0] - nx, b[1] - ny}, {a[0] - nx, a[1] - ny}}, c)
}

func textMM(m *gocv.Mat, v *view, s string, x, y, heightMM float64, c [3]float64) {
	px, py := v.img(x, y)
	scale := heightMM * v.cam.PxPerMM / 22
	th := int(math.Max(1, math.Round(heightMM*v.cam.PxPerMM/9)))
	sz := gocv.GetTextSize(s, gocv.FontHersheyDuplex, scale, th)
	gocv.PutTextWithParams(m, s, image.Pt(int(px)-sz.X/2, int(py)+sz.Y/2), gocv.FontHersheyDuplex, scale, bgr(c), th, gocv.LineAA, false)
}

func circleMM(cx, cy, r float64, n int) [][2]float64 {
	p := make([][2]float64, n)
	for i := range p {
		a := 2 * math.Pi * float64(i) / float64(n)
		p[i] = [2]float64{cx + r*math.Cos(a), cy + r*math.Sin(a)}
	}
	return p
}

func rectMM(x0, y0, x1, y1 float64) [][2]float64 {
	return [][2]float64{{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}}
}

// drawLayout prints the landing half of a craps layout on the felt.
func (t *tableScene) drawLayout(m *gocv.Mat, v *view) {
	white := [3]float64{225, 232, 235}
	yellow := [3]float64{60, 200, 230}
	red := [3]float64{40, 40, 190}
	const lw = 7
	in0, in1 := railW+170, tableW-railW-170 // layout band across the table
	// place numbers along the far end
	nums := []string{"4", "5", "SIX", "8", "NINE", "10"}
	bx0, bx1 := 3120.0, 3400.0
	step := (in1 - in0) / 6
	for i, s := range nums {
		y0 := in0 + float64(i)*step
		outlineMM(m, v, rectMM(bx0, y0, bx1, y0+step), lw, white)
		textMM(m, v, s, (bx0+bx1)/2, y0+step/2, 50, white)
		lineMM(m, v, [2]float64{bx0 + 30, y0 + 18}, [2]float64{bx1 - 30, y0 + 18}, 4, white)
	}
	// come
	outlineMM(m, v, rectMM(2560, in0, bx0, in1), lw, white)
	textMM(m, v, "COME", 2840, (in0+in1)/2, 110, red)
	// field
	outlineMM(m, v, rectMM(2280, in0, 2560, in1), lw, white)
	textMM(m, v, "FIELD", 2470, (in0+in1)/2, 34, yellow)
	fn := []string{"2", "3", "4", "9", "10", "11", "12"}
	for i, s := range fn {
		textMM(m, v, s, 2350, in0+40+float64(i)*(in1-in0-80)/6, 34, white)
	}
	// pass line and don't pass bar wrapping the boxes on the stick side
	outlineMM(m, v, rectMM(2050, in1+10, 3440, in1+75), lw, white)
	textMM(m, v, "PASS LINE", 2750, in1+43, 45, white)
	outlineMM(m, v, rectMM(2050, in1-60, 2270, in1), lw, white)
	textMM(m, v, "DON'T PASS BAR", 2160, in1-30, 20, white)
	// big 6 / 8
	outlineMM(m, v, rectMM(2050, in0, 2270, in0+200), lw, white)
	textMM(m, v, "6", 2120, in0+100, 80, red)
	textMM(m, v, "8", 2200, in0+100, 80, red)
	// the proposition bets in the middle, in front of the stickperson
	outlineMM(m, v, rectMM(1600, 520, 2060, 1000), lw, yellow)
	textMM(m, v, "SEVEN", 1830, 560, 40, red)
	textMM(m, v, "ANY CRAPS", 1830, 960, 34, red)
	for i := 0; i < 2; i++ {
		for j := 0; j < 2; j++ {
			x0, y0 := 1620+float64(i)*220, 600+float64(j)*170
			outlineMM(m, v, rectMM(x0, y0, x0+200, y0+150), 4, white)
			drawPrintedDie(m, v, x0+60, y0+75, 1+(i*2+j)%6)
			drawPrintedDie(m, v, x0+140, y0+75, 1+(i*2+j)%6)
		}
	}
	// an arc along the shooter side of the landing half
	var arc [][2]float64
	for a := -70.0; a <= 70; a += 5 {
		r := a * math.Pi / 180
		arc = append(arc, [2]float64{1500 + 400*math.Cos(r)*0.35, 710 + 520*math.Sin(r)})
	}
	for i := 1; i < len(arc); i++ {
		lineMM(m, v, arc[i-1], arc[i], 5, white)
	}
}

// drawPrintedDie prints a small die picture on the layout (as on the
// proposition bets): a white square outline with dots. It is flat ink, a
// lure for a careless reader.
func drawPrintedDie(m *gocv.Mat, v *view, x, y float64, val int) {
	white := [3]float64{220, 225, 228}
	const e = 34.0
	outlineMM(m, v, rectMM(x-e/2, y-e/2, x+e/2, y+e/2), 3, white)
	for _, s := range pipSpots[val] {
		polyMM(m, v, circleMM(x+s[0]*e*0.27, y+s[1]*e*0.27, 3.2, 10), white)
	}
}

func (t *tableScene) drawBowl(m *gocv.Mat, v *view) {
	// shadow, rim, and the darker inside of the bowl
	polyMM(m, v, circleMM(bowlX+8, bowlY+10, bowlOuter+4, 48), [3]float64{20, 45, 15})
	polyMM(m, v, circleMM(bowlX, bowlY, bowlOuter, 48), [3]float64{60, 100, 150})
	polyMM(m, v, circleMM(bowlX, bowlY, bowlOuter-5, 48), [3]float64{45, 80, 125})
	polyMM(m, v, circleMM(bowlX, bowlY, bowlInner, 48), [3]float64{30, 55, 90})
	polyMM(m, v, circleMM(bowlX+6, bowlY+6, bowlInner-10, 48), [3]float64{24, 45, 75})
}

func drawChip(m *gocv.Mat, v *view, c chip) {
	sh := c.Shadow
	if sh == ([3]float64{}) {
		sh = [3]float64{18, 40, 12}
	}
	polyMM(m, v, circleMM(c.X+7, c.Y+9, chipR+2, 32), sh)
	polyMM(m, v, circleMM(c.X, c.Y, chipR, 32), c.Colour)
	// edge stripes: six inserts around the rim
	for k := 0; k < 6; k++ {
		a0 := float64(k)*math.Pi/3 + 0.2
		a1 := a0 + 0.28
		p := [][2]float64{
			{c.X + chipR*math.Cos(a0), c.Y + chipR*math.Sin(a0)},
			{c.X + chipR*math.Cos(a1), c.Y + chipR*math.Sin(a1)},
			{c.X + (chipR-5)*math.Cos(a1), c.Y + (chipR-5)*math.Sin(a1)},
			{c.X + (chipR-5)*math.Cos(a0), c.Y + (chipR-5)*math.Sin(a0)},
		}
		polyMM(m, v, p, c.Stripe)
	}
	inner := [3]float64{c.Colour[0]*0.8 + 40, c.Colour[1]*0.8 + 40, c.Colour[2]*0.8 + 40}
	polyMM(m, v, circleMM(c.X, c.Y, chipR-8, 24), inner)
	outlineMM(m, v, circleMM(c.X, c.Y, chipR-8, 24), 1.2, c.Stripe)
}

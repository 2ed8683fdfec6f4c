package calibview

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"math/rand/v2"

	"github.com/dicewatch/dicewatch/calibration"
	"github.com/dicewatch/dicewatch/rules"
)

// SceneDie is a die drawn flat on the table in a generated scene.
type SceneDie struct {
	Center calibration.Point // table mm
	EdgeMM float64
	Value  int // 1..6 pips
}

// Scene describes a generated still of a table: the true calibration
// (its homography is the ground truth the image is rendered under), and
// what lies on the table.
type Scene struct {
	Truth      *calibration.Calibration
	Aruco      *calibration.ArucoLayout      // markers to draw, or nil
	Chessboard *calibration.ChessboardLayout // calibration mat to draw, or nil
	Dice       []SceneDie
	NoiseGrey  float64 // standard deviation of added pixel noise
	Seed       uint64
}

type rgb [3]float64

var roleColour = map[rules.Zone]rgb{
	rules.ZoneOffTable: {38, 36, 34},
	rules.ZoneLayout:   {28, 112, 62},
	rules.ZoneRail:     {96, 62, 38},
	rules.ZoneBank:     {22, 92, 52},
	rules.ZoneBowl:     {150, 120, 80},
	rules.ZoneBackWall: {70, 70, 80},
	rules.ZoneBar:      {110, 72, 44},
	rules.ZoneBarLeft:  {30, 100, 70},
	rules.ZoneBarRight: {34, 108, 76},
	rules.ZoneShaker:   {120, 30, 36},
}

var (
	white    = rgb{236, 236, 232}
	black    = rgb{12, 12, 14}
	dieBody  = rgb{245, 245, 240}
	diePip   = rgb{10, 10, 10}
	pipSpots = map[int][][2]float64{
		1: {{0, 0}}, 2: {{-1, -1}, {1, 1}}, 3: {{-1, -1}, {0, 0}, {1, 1}},
		4: {{-1, -1}, {1, -1}, {-1, 1}, {1, 1}}, 5: {{-1, -1}, {1, -1}, {0, 0}, {-1, 1}, {1, 1}},
		6: {{-1, -1}, {1, -1}, {-1, 0}, {1, 0}, {-1, 1}, {1, 1}},
	}
)

// renderer evaluates the scene's colour at a table point.
type renderer struct {
	s       Scene
	markers map[int][]bool
	side    int
}

func newRenderer(s Scene) (*renderer, error) {
	r := &renderer{s: s, markers: map[int][]bool{}}
	if s.Aruco != nil {
		for _, m := range s.Aruco.Markers {
			bits, side, err := MarkerBits(s.Aruco.Dictionary, m.ID)
			if err != nil {
				return nil, err
			}
			r.markers[m.ID], r.side = bits, side
		}
	}
	return r, nil
}

// colourAt is the colour of the scene at table mm p.
func (r *renderer) colourAt(p calibration.Point) rgb {
	for _, d := range r.s.Dice {
		h := d.EdgeMM / 2
		dx, dy := p.X-d.Center.X, p.Y-d.Center.Y
		if math.Abs(dx) <= h && math.Abs(dy) <= h {
			pr := d.EdgeMM * 0.09
			for _, s := range pipSpots[d.Value] {
				if math.Hypot(dx-s[0]*d.EdgeMM*0.27, dy-s[1]*d.EdgeMM*0.27) <= pr {
					return diePip
				}
			}
			return dieBody
		}
	}
	if a := r.s.Aruco; a != nil {
		cell := a.MarkerMM / float64(r.side)
		for _, m := range a.Markers {
			dx, dy := p.X-(m.Center[0]-a.MarkerMM/2), p.Y-(m.Center[1]-a.MarkerMM/2)
			if dx >= -cell && dy >= -cell && dx < a.MarkerMM+cell && dy < a.MarkerMM+cell {
				if dx < 0 || dy < 0 || dx >= a.MarkerMM || dy >= a.MarkerMM {
					return white // quiet zone around the marker
				}
				i, j := int(dx/cell), int(dy/cell)
				if r.markers[m.ID][j*r.side+i] {
					return white
				}
				return black
			}
		}
	}
	if b := r.s.Chessboard; b != nil {
		if dark, ok := b.Dark(p); ok {
			if dark {
				return black
			}
			return white
		}
		// A white margin of half a square around the board.
		m := b.SquareMM / 2
		x0, y0 := b.Origin[0]-b.SquareMM-m, b.Origin[1]-b.SquareMM-m
		x1, y1 := b.Origin[0]+float64(b.Cols)*b.SquareMM+m, b.Origin[1]+float64(b.Rows)*b.SquareMM+m
		if p.X >= x0 && p.X < x1 && p.Y >= y0 && p.Y < y1 {
			return white
		}
	}
	role, _ := r.s.Truth.Locate(p)
	return roleColour[role]
}

// Render draws the scene as the true camera sees it: every pixel's colour
// is the average of the scene over the pixel's footprint on the table
// (supersampled where the pixel's corners disagree and wherever a die is),
// plus optional Gaussian noise. It is pure Go apart from the marker bits.
func Render(s Scene) (*image.RGBA, error) {
	if s.Truth == nil {
		return nil, fmt.Errorf("calibview: render: no truth calibration")
	}
	return RenderRegion(s, image.Rect(0, 0, s.Truth.Camera.Width, s.Truth.Camera.Height))
}

// RenderRegion renders only the pixels in region (the result's bounds).
// Noise depends on the seed and the region, so compare regions rendered
// without noise or with the same region.
func RenderRegion(s Scene, region image.Rectangle) (*image.RGBA, error) {
	if s.Truth == nil {
		return nil, fmt.Errorf("calibview: render: no truth calibration")
	}
	r, err := newRenderer(s)
	if err != nil {
		return nil, err
	}
	w, h := region.Dx(), region.Dy()
	x0, y0 := region.Min.X, region.Min.Y
	// Pixel (x, y) is centred on image point (x, y), as in OpenCV, so it
	// spans x-0.5..x+0.5. Colours at pixel corners are shared by
	// neighbouring pixels.
	corner := make([]rgb, (w+1)*(h+1))
	for y := 0; y <= h; y++ {
		for x := 0; x <= w; x++ {
			corner[y*(w+1)+x] = r.colourAt(s.Truth.ToTable(calibration.Point{X: float64(x0+x) - 0.5, Y: float64(y0+y) - 0.5}))
		}
	}
	// Pixels covering dice are always supersampled (pips are small).
	var diceBoxes []image.Rectangle
	for _, d := range s.Dice {
		diceBoxes = append(diceBoxes, Footprint(s.Truth, d.Center, d.EdgeMM/2+2))
	}
	img := image.NewRGBA(region)
	rng := rand.New(rand.NewPCG(s.Seed, 7))
	const ss = 4
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			a, b := corner[y*(w+1)+x], corner[y*(w+1)+x+1]
			c, d := corner[(y+1)*(w+1)+x], corner[(y+1)*(w+1)+x+1]
			col := a
			pt := image.Pt(x0+x, y0+y)
			inDie := false
			for _, bx := range diceBoxes {
				if pt.In(bx) {
					inDie = true
				}
			}
			if a != b || a != c || a != d || inDie {
				col = rgb{}
				for j := 0; j < ss; j++ {
					for i := 0; i < ss; i++ {
						q := calibration.Point{X: float64(pt.X) - 0.5 + (float64(i)+0.5)/ss, Y: float64(pt.Y) - 0.5 + (float64(j)+0.5)/ss}
						v := r.colourAt(s.Truth.ToTable(q))
						for k := range col {
							col[k] += v[k] / (ss * ss)
						}
					}
				}
			}
			n := 0.0
			if s.NoiseGrey > 0 {
				n = rng.NormFloat64() * s.NoiseGrey
			}
			img.SetRGBA(pt.X, pt.Y, color.RGBA{clamp8(col[0] + n), clamp8(col[1] + n), clamp8(col[2] + n), 255})
		}
	}
	return img, nil
}

// Footprint is the pixel box covering a square of half-side h mm around
// table point c.
func Footprint(c *calibration.Calibration, ctr calibration.Point, h float64) image.Rectangle {
	var box image.Rectangle
	for i, d := range [][2]float64{{-h, -h}, {h, -h}, {h, h}, {-h, h}} {
		q := c.ToImage(calibration.Point{X: ctr.X + d[0], Y: ctr.Y + d[1]})
		p := image.Rect(int(math.Floor(q.X)), int(math.Floor(q.Y)), int(math.Ceil(q.X))+1, int(math.Ceil(q.Y))+1)
		if i == 0 {
			box = p
		} else {
			box = box.Union(p)
		}
	}
	return box
}

func clamp8(v float64) uint8 {
	return uint8(math.Max(0, math.Min(255, math.Round(v))))
}

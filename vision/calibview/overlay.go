package calibview

import (
	"fmt"
	"image"
	"image/color"
	"math"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/calibration"
	"github.com/dicewatch/dicewatch/rules"
)

var overlayColour = map[rules.Zone]color.RGBA{ // BGR order is handled by gocv: RGBA here
	rules.ZoneLayout: {0, 255, 0, 0}, rules.ZoneRail: {255, 160, 0, 0}, rules.ZoneBank: {255, 255, 0, 0},
	rules.ZoneBowl: {255, 0, 255, 0}, rules.ZoneBackWall: {0, 200, 255, 0}, rules.ZoneBar: {255, 160, 0, 0},
	rules.ZoneBarLeft: {0, 255, 0, 0}, rules.ZoneBarRight: {0, 255, 255, 0}, rules.ZoneShaker: {255, 0, 255, 0},
}

// imagePath maps a table polygon to image points, adding points along each
// edge so lens distortion bends it correctly.
func imagePath(c *calibration.Calibration, poly [][2]float64) []image.Point {
	var out []image.Point
	for k := range poly {
		a, b := poly[k], poly[(k+1)%len(poly)]
		for s := 0; s < 8; s++ {
			f := float64(s) / 8
			q := c.ToImage(calibration.Point{X: a[0] + f*(b[0]-a[0]), Y: a[1] + f*(b[1]-a[1])})
			out = append(out, image.Pt(int(math.Round(q.X)), int(math.Round(q.Y))))
		}
	}
	return out
}

func label(img *gocv.Mat, s string, at image.Point, scale float64, c color.RGBA) {
	gocv.PutText(img, s, at.Add(image.Pt(1, 1)), gocv.FontHersheySimplex, scale, color.RGBA{0, 0, 0, 0}, 3)
	gocv.PutText(img, s, at, gocv.FontHersheySimplex, scale, c, 1)
}

// labeller places labels so they do not overlap: a label that would cover
// an earlier one moves down until it is clear.
type labeller struct{ used []image.Rectangle }

func (l *labeller) put(img *gocv.Mat, s string, at image.Point, scale float64, c color.RGBA) {
	sz := gocv.GetTextSize(s, gocv.FontHersheySimplex, scale, 1)
	for tries := 0; tries < 20; tries++ {
		r := image.Rect(at.X-2, at.Y-sz.Y-3, at.X+sz.X+2, at.Y+5)
		clear := true
		for _, u := range l.used {
			if r.Overlaps(u) {
				clear = false
				at.Y = u.Max.Y + sz.Y + 3
				break
			}
		}
		if clear {
			l.used = append(l.used, r)
			break
		}
	}
	label(img, s, at, scale, c)
}

// DrawOverlay draws, on a copy of the still, what the calibration says: the
// table outline and every zone with its name and role, each reference
// point with its error in mm, the expected die size (a die-sized square
// and its edge in px) at nine places on the table, and a header with the
// method, errors and hash. The caller closes the result.
func DrawOverlay(still gocv.Mat, c *calibration.Calibration) gocv.Mat {
	out := still.Clone()
	if out.Channels() == 1 {
		gocv.CvtColor(out, &out, gocv.ColorGrayToBGR)
	}
	white := color.RGBA{255, 255, 255, 0}
	var lb labeller
	// Table outline and zones.
	pv := gocv.NewPointsVectorFromPoints([][]image.Point{imagePath(c, c.TablePolygon)})
	gocv.Polylines(&out, pv, true, white, 2)
	pv.Close()
	for _, z := range c.Zones {
		col := overlayColour[z.Role]
		pts := imagePath(c, z.Polygon)
		pv := gocv.NewPointsVectorFromPoints([][]image.Point{pts})
		gocv.Polylines(&out, pv, true, col, 2)
		pv.Close()
		var cx, cy float64
		for _, p := range z.Polygon {
			cx += p[0]
			cy += p[1]
		}
		n := float64(len(z.Polygon))
		at := c.ToImage(calibration.Point{X: cx / n, Y: cy / n})
		txt := z.Name
		if string(z.Role) != z.Name {
			txt += " (" + string(z.Role) + ")"
		}
		lb.put(&out, txt, image.Pt(int(at.X)-4*len(txt), int(at.Y)), 0.45, col)
	}
	// Reference points and their errors.
	if r := c.Reference; r != nil {
		for _, p := range r.Points {
			at := image.Pt(int(math.Round(p.Px[0])), int(math.Round(p.Px[1])))
			col := color.RGBA{0, 255, 0, 0}
			limit := r.MaxErrorMM
			if limit == 0 {
				limit = calibration.DefaultMaxErrorMM
			}
			if p.ErrorMM > limit/2 {
				col = color.RGBA{255, 200, 0, 0}
			}
			if p.ErrorMM > limit {
				col = color.RGBA{255, 0, 0, 0}
			}
			gocv.Circle(&out, at, 4, col, 1)
			if r.Method != calibration.MethodAruco || hasSuffix(p.Label, "c0") {
				label(&out, fmt.Sprintf("%.1f", p.ErrorMM), at.Add(image.Pt(5, -5)), 0.35, col)
			}
		}
	}
	// Expected die size at nine places on the table.
	var xmin, ymin, xmax, ymax = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, p := range c.TablePolygon {
		xmin, ymin = math.Min(xmin, p[0]), math.Min(ymin, p[1])
		xmax, ymax = math.Max(xmax, p[0]), math.Max(ymax, p[1])
	}
	for _, fx := range []float64{0.15, 0.5, 0.85} {
		for _, fy := range []float64{0.2, 0.5, 0.8} {
			ctr := calibration.Point{X: xmin + fx*(xmax-xmin), Y: ymin + fy*(ymax-ymin)}
			h := c.Die.EdgeMM / 2
			var pts []image.Point
			for _, d := range [][2]float64{{-h, -h}, {h, -h}, {h, h}, {-h, h}} {
				q := c.ToImage(calibration.Point{X: ctr.X + d[0], Y: ctr.Y + d[1]})
				pts = append(pts, image.Pt(int(math.Round(q.X)), int(math.Round(q.Y))))
			}
			pv := gocv.NewPointsVectorFromPoints([][]image.Point{pts})
			gocv.FillPoly(&out, pv, white)
			pv.Close()
			q := c.ToImage(ctr)
			lb.put(&out, fmt.Sprintf("die %.1fpx", c.DiePx(q)), image.Pt(int(q.X)+8, int(q.Y)+16), 0.4, white)
		}
	}
	head := fmt.Sprintf("dicewatch calibration %s  table %s  template %s  %dx%d", c.Hash(), c.Table, c.Template, c.Camera.Width, c.Camera.Height)
	label(&out, head, image.Pt(10, 24), 0.6, white)
	if r := c.Reference; r != nil {
		limit := r.MaxErrorMM
		if limit == 0 {
			limit = calibration.DefaultMaxErrorMM
		}
		label(&out, fmt.Sprintf("method %s  %d points  rms %.2f mm  worst %.2f mm  (limit %.1f mm)  die %.0f mm",
			r.Method, len(r.Points), r.RMSErrorMM, r.WorstErrorMM, limit, c.Die.EdgeMM), image.Pt(10, 50), 0.6, white)
	}
	return out
}

func hasSuffix(s, suf string) bool { return len(s) >= len(suf) && s[len(s)-len(suf):] == suf }

// WriteOverlay draws the overlay and writes it as PNG.
func WriteOverlay(path string, still gocv.Mat, c *calibration.Calibration) error {
	o := DrawOverlay(still, c)
	defer o.Close()
	if !gocv.IMWrite(path, o) {
		return fmt.Errorf("calibview: write overlay %s: failed", path)
	}
	return nil
}

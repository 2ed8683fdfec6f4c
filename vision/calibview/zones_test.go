package calibview

import (
	"fmt"
	"image"
	"math"
	"testing"

	"github.com/dicewatch/dicewatch/calibration"
	"github.com/dicewatch/dicewatch/calibration/caltest"
	"github.com/dicewatch/dicewatch/rules"
)

type dieProbe struct {
	what string
	p    calibration.Point
}

// dieProbes: for every zone, its vertex centroid and a point 2 mm inside
// and 2 mm outside the middle of each edge.
func dieProbes(c *calibration.Calibration) []dieProbe {
	var out []dieProbe
	for _, z := range c.Zones {
		poly := z.Polygon
		var cx, cy, a float64
		for k := range poly {
			p, q := poly[k], poly[(k+1)%len(poly)]
			cr := p[0]*q[1] - q[0]*p[1]
			a += cr
			cx += (p[0] + q[0]) * cr
			cy += (p[1] + q[1]) * cr
		}
		out = append(out, dieProbe{z.Name + " centre", calibration.Point{X: cx / (3 * a), Y: cy / (3 * a)}})
		for k := range poly {
			p, q := poly[k], poly[(k+1)%len(poly)]
			mx, my := (p[0]+q[0])/2, (p[1]+q[1])/2
			l := math.Hypot(q[0]-p[0], q[1]-p[1])
			nx, ny := -(q[1]-p[1])/l, (q[0]-p[0])/l
			if a < 0 {
				nx, ny = -nx, -ny
			}
			out = append(out,
				dieProbe{fmt.Sprintf("%s 2mm inside edge %d", z.Name, k), calibration.Point{X: mx + 2*nx, Y: my + 2*ny}},
				dieProbe{fmt.Sprintf("%s 2mm outside edge %d", z.Name, k), calibration.Point{X: mx - 2*nx, Y: my - 2*ny}})
		}
	}
	return out
}

// findDie is a minimal die finder for the test: the centroid of the pixels
// in the window that differ from the empty-table background (any pixel a
// die covers even partly, pips included; the background is noise-free).
func findDie(bg, img *image.RGBA, win image.Rectangle) (calibration.Point, bool) {
	diff := func(x, y int) float64 {
		a, b := bg.RGBAAt(x, y), img.RGBAAt(x, y)
		return math.Abs(float64(a.R)-float64(b.R)) + math.Abs(float64(a.G)-float64(b.G)) + math.Abs(float64(a.B)-float64(b.B))
	}
	var peak float64
	for y := win.Min.Y; y < win.Max.Y; y++ {
		for x := win.Min.X; x < win.Max.X; x++ {
			peak = math.Max(peak, diff(x, y))
		}
	}
	if peak < 60 {
		return calibration.Point{}, false
	}
	var sx, sy, n float64
	for y := win.Min.Y; y < win.Max.Y; y++ {
		for x := win.Min.X; x < win.Max.X; x++ {
			if diff(x, y) > 30 {
				sx += float64(x)
				sy += float64(y)
				n++
			}
		}
	}
	return calibration.Point{X: sx / n, Y: sy / n}, n > 0
}

// TestDieLandsInRightZone is the bar: a die placed in each zone of
// each template (and 2 mm either side of every zone edge), in a generated
// still, read back through a calibration recovered from ArUco markers in a
// still of the same camera, lands in the zone the template says, 100%.
func TestDieLandsInRightZone(t *testing.T) {
	templates := calibration.TemplateNames()
	if testing.Short() || raceEnabled {
		templates = []string{calibration.TemplateBackgammon}
	}
	for _, name := range templates {
		t.Run(name, func(t *testing.T) {
			truth, _, err := caltest.Calibration(name)
			if err != nil {
				t.Fatal(err)
			}
			tpl, _ := calibration.LoadTemplate(name)
			markers, err := Render(Scene{Truth: truth, Aruco: tpl.Aruco, NoiseGrey: 2, Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			m := toMat(t, markers)
			got, err := Calibrate(m, Options{Template: tpl, Method: calibration.MethodAruco, Table: "t"})
			m.Close()
			if err != nil {
				t.Fatal(err)
			}
			bg, err := Render(Scene{Truth: truth})
			if err != nil {
				t.Fatal(err)
			}
			probes := dieProbes(truth)
			wrong := 0
			var worstMM float64
			for _, pr := range probes {
				want := truth.ZoneAt(pr.p)
				win := Footprint(truth, pr.p, tpl.DieEdgeMM*1.5).Intersect(bg.Bounds())
				die := SceneDie{Center: pr.p, EdgeMM: tpl.DieEdgeMM, Value: 5}
				img, err := RenderRegion(Scene{Truth: truth, Dice: []SceneDie{die}}, win)
				if err != nil {
					t.Fatal(err)
				}
				px, ok := findDie(bg, img, win)
				if !ok {
					if want == rules.ZoneOffTable && !win.Overlaps(bg.Bounds()) {
						continue
					}
					t.Errorf("%s: die not found", pr.what)
					wrong++
					continue
				}
				mm := got.ToTable(px)
				worstMM = math.Max(worstMM, math.Hypot(mm.X-pr.p.X, mm.Y-pr.p.Y))
				if zone := got.ZoneAt(mm); zone != want {
					t.Errorf("%s at (%.1f, %.1f): read at (%.1f, %.1f) in %s, want %s", pr.what, pr.p.X, pr.p.Y, mm.X, mm.Y, zone, want)
					wrong++
				}
			}
			t.Logf("%s: %d dice, %d in the wrong zone, worst position error %.2f mm", name, len(probes), wrong, worstMM)
		})
	}
}

package calibration_test

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dicewatch/dicewatch/calibration"
	"github.com/dicewatch/dicewatch/calibration/caltest"
	"github.com/dicewatch/dicewatch/rules"
)

// ZoneProbe is a table point and the role the template says it has.
type zoneProbe struct {
	zone string
	what string
	p    calibration.Point
	want rules.Zone
}

// probes returns, for every zone of a template, its centroid and points
// 2 mm inside the middle of each edge (all must read as the zone's role),
// and points 2 mm outside (which must not read as it unless a neighbour of
// the same role is there). Layout points that fall in another zone are
// skipped: there the other zone wins by design.
func probes(c *calibration.Calibration) []zoneProbe {
	var out []zoneProbe
	roleOf := func(r rules.Zone) rules.Zone {
		if r == rules.ZoneBackWall {
			return rules.ZoneLayout // ZoneAt: a die may rest against the back wall
		}
		return r
	}
	inOther := func(self int, p calibration.Point) bool {
		for j, z := range c.Zones {
			if j != self && z.Role != rules.ZoneLayout && inside(z.Polygon, p) {
				return true
			}
		}
		return false
	}
	for i, z := range c.Zones {
		poly := z.Polygon
		var cx, cy, a float64
		for k := range poly {
			p, q := poly[k], poly[(k+1)%len(poly)]
			cr := p[0]*q[1] - q[0]*p[1]
			a += cr
			cx += (p[0] + q[0]) * cr
			cy += (p[1] + q[1]) * cr
		}
		cen := calibration.Point{X: cx / (3 * a), Y: cy / (3 * a)}
		add := func(what string, p calibration.Point) {
			if z.Role == rules.ZoneLayout && inOther(i, p) {
				return
			}
			out = append(out, zoneProbe{z.Name, what, p, roleOf(z.Role)})
		}
		add("centre", cen)
		for k := range poly {
			p, q := poly[k], poly[(k+1)%len(poly)]
			mx, my := (p[0]+q[0])/2, (p[1]+q[1])/2
			dx, dy := q[0]-p[0], q[1]-p[1]
			l := math.Hypot(dx, dy)
			nx, ny := -dy/l, dx/l // left normal
			if a < 0 {
				nx, ny = -nx, -ny
			}
			add(fmt.Sprintf("2mm inside edge %d", k), calibration.Point{X: mx + 2*nx, Y: my + 2*ny})
			// 2 mm outside: whatever is there, it must not be this zone
			// unless the same role continues across the edge.
			o := calibration.Point{X: mx - 2*nx, Y: my - 2*ny}
			if z.Role != rules.ZoneLayout && !sameRoleAt(c, i, o) {
				out = append(out, zoneProbe{z.Name, fmt.Sprintf("2mm outside edge %d", k), o, "!" + z.Role})
			}
		}
	}
	return out
}

func sameRoleAt(c *calibration.Calibration, self int, p calibration.Point) bool {
	for j, z := range c.Zones {
		if j != self && z.Role == c.Zones[self].Role && inside(z.Polygon, p) {
			return true
		}
	}
	return false
}

// inside is an independent crossing-number test for the probes.
func inside(poly [][2]float64, p calibration.Point) bool {
	n := 0
	for k := range poly {
		a, b := poly[k], poly[(k+1)%len(poly)]
		if (a[1] <= p.Y) != (b[1] <= p.Y) {
			x := a[0] + (p.Y-a[1])/(b[1]-a[1])*(b[0]-a[0])
			if x > p.X {
				n++
			}
		}
	}
	return n%2 == 1
}

func TestZoneAtTemplates(t *testing.T) {
	for _, name := range calibration.TemplateNames() {
		t.Run(name, func(t *testing.T) {
			c, _, err := caltest.Calibration(name)
			if err != nil {
				t.Fatal(err)
			}
			ps := probes(c)
			for _, pr := range ps {
				got := c.ZoneAt(pr.p)
				if strings.HasPrefix(string(pr.want), "!") {
					if string(got) == string(pr.want[1:]) {
						t.Errorf("%s %s (%.1f, %.1f): got %s", pr.zone, pr.what, pr.p.X, pr.p.Y, got)
					}
					continue
				}
				if got != pr.want {
					t.Errorf("%s %s (%.1f, %.1f): got %s, want %s", pr.zone, pr.what, pr.p.X, pr.p.Y, got, pr.want)
				}
			}
			// Outside the table polygon is off the table.
			for _, p := range []calibration.Point{{X: -2, Y: 50}, {X: 50, Y: -2}, {X: c.TablePolygon[2][0] + 2, Y: 50}, {X: 50, Y: c.TablePolygon[2][1] + 2}} {
				if got := c.ZoneAt(p); got != rules.ZoneOffTable {
					t.Errorf("(%g, %g): got %s, want off_table", p.X, p.Y, got)
				}
			}
			t.Logf("%d probes", len(ps))
		})
	}
}

func TestLocateNamesBackWall(t *testing.T) {
	c, _, err := caltest.Calibration(calibration.TemplateCraps12)
	if err != nil {
		t.Fatal(err)
	}
	p := calibration.Point{X: calibration.Craps12Length - calibration.Craps12Rail - 30, Y: 700}
	role, name := c.Locate(p)
	if role != rules.ZoneBackWall || name != "back_wall" || c.ZoneAt(p) != rules.ZoneLayout {
		t.Errorf("Locate = %s %q, ZoneAt = %s", role, name, c.ZoneAt(p))
	}
}

func TestToImageRoundTripAndDiePx(t *testing.T) {
	c, cam, err := caltest.Calibration(calibration.TemplateCraps12)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []calibration.Point{{X: 0, Y: 0}, {X: 1830, Y: 710}, {X: 3660, Y: 1420}, {X: 500, Y: 1200}} {
		q := c.ToTable(c.ToImage(p))
		if math.Hypot(q.X-p.X, q.Y-p.Y) > 1e-6 {
			t.Errorf("round trip %v -> %v", p, q)
		}
		want := calibration.Apply(cam.MMToPx, p)
		if got := c.ToImage(p); math.Hypot(got.X-want.X, got.Y-want.Y) > 1e-6 {
			t.Errorf("ToImage(%v) = %v, want %v", p, got, want)
		}
	}
	// ~0.5 px/mm: a 19 mm die is about 9.5 px.
	if px := c.DiePx(calibration.Point{X: 960, Y: 540}); px < 8.5 || px > 10.5 {
		t.Errorf("DiePx = %g", px)
	}
}

func TestLensRoundTrip(t *testing.T) {
	c, _, err := caltest.Calibration(calibration.TemplateCraps12)
	if err != nil {
		t.Fatal(err)
	}
	c.Lens = calibration.Lens{Model: calibration.LensBrownConrady, FX: 1400, FY: 1400, CX: 960, CY: 540, K1: -0.12, K2: 0.03, P1: 0.001, P2: -0.0005}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []calibration.Point{{X: 130, Y: 130}, {X: 1830, Y: 710}, {X: 3530, Y: 1290}} {
		q := c.ToTable(c.ToImage(p))
		if math.Hypot(q.X-p.X, q.Y-p.Y) > 0.01 {
			t.Errorf("round trip %v -> %v", p, q)
		}
	}
}

func TestHashIsContentHash(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(testdataDir, "valid-points.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := calibration.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	reformatted := strings.ReplaceAll("# another comment\n"+string(b), "{width: 1920, height: 1080}", "\n  width: 1920\n  height: 1080")
	b2, err := calibration.Parse([]byte(reformatted))
	if err != nil {
		t.Fatal(err)
	}
	c, err := calibration.Parse([]byte(strings.Replace(string(b), "edge_mm: 19", "edge_mm: 16", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if a.Hash() != b2.Hash() {
		t.Errorf("comments/format changed the hash: %s vs %s", a.Hash(), b2.Hash())
	}
	if a.Hash() == c.Hash() {
		t.Errorf("die size change kept the hash %s", a.Hash())
	}
	if a.Hash() != a.Hash() {
		t.Error("hash not stable")
	}
}

func TestPointsMethodFitsHomography(t *testing.T) {
	c, err := calibration.Load(filepath.Join(testdataDir, "valid-points.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cam, _ := caltest.Scene(calibration.TemplateCraps12)
	rms, corner := gridErrors(t, cam, c.Homography, calibration.Craps12Length, calibration.Craps12Width)
	if rms > 0.01 || corner > 0.01 {
		t.Errorf("rms %g corner %g", rms, corner)
	}
	if c.Reference.RMSErrorMM > 0.01 {
		t.Errorf("rms_error_mm = %g", c.Reference.RMSErrorMM)
	}
}

func TestCheckResolution(t *testing.T) {
	c, _, err := caltest.Calibration(calibration.TemplateCraps12)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CheckResolution(1920, 1080); err != nil {
		t.Error(err)
	}
	err = c.CheckResolution(1280, 720)
	want := "calibration: camera.width x camera.height: camera resolution does not match the calibration: source gives 1280x720, calibration is for 1920x1080 (recalibrate from a 1280x720 still, with -base to keep the zones and scale camera.focal_px and the lens model; or set the camera to 1920x1080)"
	if !errors.Is(err, calibration.ErrResolution) || err.Error() != want {
		t.Errorf("err = %v", err)
	}
}

func TestSaveLoadRoundTrip(t *testing.T) {
	c, _, err := caltest.Calibration(calibration.TemplatePaiGow)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "cal.yaml")
	if err := c.Save(path); err != nil {
		t.Fatal(err)
	}
	d, err := calibration.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if d.Hash() != c.Hash() {
		t.Errorf("hash %s after round trip, want %s", d.Hash(), c.Hash())
	}
}

func TestWatcherRefusesBadFileKeepsOld(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cal.yaml")
	good, _ := os.ReadFile(filepath.Join(testdataDir, "valid-points.yaml"))
	bad, _ := os.ReadFile(filepath.Join(testdataDir, "invalid-zone-overlap.yaml"))
	other := []byte(strings.Replace(string(good), "edge_mm: 19", "edge_mm: 16", 1))
	write := func(b []byte) {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(good)
	w, err := calibration.NewWatcher(path, func(c *calibration.Calibration) error { return c.CheckResolution(1920, 1080) })
	if err != nil {
		t.Fatal(err)
	}
	first := w.Current().Hash()

	write(bad)
	c, changed, err := w.Reload()
	if err == nil || changed || c.Hash() != first || w.Current().Hash() != first {
		t.Fatalf("bad file: err %v changed %v hash %s", err, changed, w.Current().Hash())
	}
	if !strings.Contains(err.Error(), "reload refused, keeping "+first) {
		t.Errorf("err = %v", err)
	}

	write(other)
	c, changed, err = w.Reload()
	if err != nil || !changed || c.Hash() == first || w.Current() != c {
		t.Fatalf("good file: err %v changed %v", err, changed)
	}

	// Run: a reload through the channel, then stop.
	write(good)
	ctx, cancel := context.WithCancel(context.Background())
	reload := make(chan struct{})
	got := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- w.Run(ctx, reload, slog.New(slog.NewTextHandler(&strings.Builder{}, nil)), func(c *calibration.Calibration) { got <- c.Hash() })
	}()
	reload <- struct{}{}
	if h := <-got; h != first {
		t.Errorf("onChange got %s, want %s", h, first)
	}
	cancel()
	if err := <-done; err != nil {
		t.Error(err)
	}
}

func TestLearnDieColours(t *testing.T) {
	// A red die (body) with white pips on green felt.
	img := image.NewRGBA(image.Rect(0, 0, 100, 100))
	for y := 0; y < 100; y++ {
		for x := 0; x < 100; x++ {
			img.Set(x, y, color.RGBA{20, 110, 40, 255})
		}
	}
	box := image.Rect(30, 30, 70, 70)
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			c := color.RGBA{200, 20, 30, 255}
			if (x-50)*(x-50)+(y-50)*(y-50) < 25 || (x-40)*(x-40)+(y-40)*(y-40) < 25 {
				c = color.RGBA{245, 245, 240, 255}
			}
			img.Set(x, y, c)
		}
	}
	body, pips, err := calibration.LearnDieColours(img, []image.Rectangle{box})
	if err != nil {
		t.Fatal(err)
	}
	red := [3]float64{178, 230, 200}
	white := [3]float64{20, 5, 245}
	felt := [3]float64{66, 209, 110}
	if !body.Contains(red) || body.Contains(white) || body.Contains(felt) {
		t.Errorf("body %+v", body)
	}
	if !pips.Contains(white) || pips.Contains(red) {
		t.Errorf("pips %+v", pips)
	}
	if _, _, err := calibration.LearnDieColours(img, nil); err == nil {
		t.Error("no boxes: want an error")
	}
}

func ExampleCalibration_ZoneAt() {
	c, _, _ := caltest.Calibration(calibration.TemplateCraps12)
	for _, p := range []calibration.Point{{X: 1830, Y: 700}, {X: 1830, Y: 200}, {X: 1830, Y: 60}, {X: 1830, Y: 1180}, {X: -10, Y: 700}} {
		fmt.Printf("(%g, %g) mm: %s\n", p.X, p.Y, c.ZoneAt(p))
	}
	// Output:
	// (1830, 700) mm: layout
	// (1830, 200) mm: bank
	// (1830, 60) mm: rail
	// (1830, 1180) mm: bowl
	// (-10, 700) mm: off_table
}

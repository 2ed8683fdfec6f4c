// Package calibration owns the map from camera pixels to table millimetres
// (a homography), the zone polygons in table mm that decide where a die
// rests, and the die model (edge length, colours). It loads, validates and
// saves calibration files; vision and rules read them.
//
// Table coordinates: millimetres, X along the table from the shooter's end
// towards the far (back) wall, Y across the table from the boxperson's side
// towards the stickperson's side.
package calibration

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"

	"gopkg.in/yaml.v3"

	"github.com/dicewatch/dicewatch/rules"
)

// Version is the calibration file format version this build reads.
const Version = 1

// Point is a position in table millimetres or image pixels.
type Point struct{ X, Y float64 }

// Zone is a polygon in table mm with a role. Name is free text
// ("rail_far"); Role is one of the rules.Zone roles.
type Zone struct {
	Name    string       `yaml:"name"`
	Role    rules.Zone   `yaml:"role"`
	Polygon [][2]float64 `yaml:"polygon"`
}

// Camera is the resolution the calibration was made for.
type Camera struct {
	Width  int `yaml:"width"`
	Height int `yaml:"height"`
}

// Die is the die model.
type Die struct {
	EdgeMM float64 `yaml:"edge_mm"`
}

// Calibration is one table's calibration.
type Calibration struct {
	Version int    `yaml:"version"`
	Table   string `yaml:"table,omitempty"`
	Camera  Camera `yaml:"camera"`
	// Homography maps image pixels to table mm, row-major 3x3.
	Homography [9]float64 `yaml:"homography"`
	// TablePolygon is the outline of the table (including the rail) in mm;
	// outside it is off the table.
	TablePolygon [][2]float64 `yaml:"table_polygon"`
	Zones        []Zone       `yaml:"zones"`
	Die          Die          `yaml:"die"`

	inv [9]float64
}

// ErrInvalid is wrapped by every validation error.
var ErrInvalid = errors.New("invalid calibration")

// Load reads and validates a calibration file.
func Load(path string) (*Calibration, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("calibration: %w", err)
	}
	return Parse(b)
}

// Parse decodes and validates calibration YAML.
func Parse(b []byte) (*Calibration, error) {
	var c Calibration
	if err := decodeStrict(b, &c); err != nil {
		return nil, fmt.Errorf("calibration: %w: %v", ErrInvalid, err)
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

// Validate checks the calibration and prepares it for use.
func (c *Calibration) Validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("calibration: %w: "+format, append([]any{ErrInvalid}, a...)...)
	}
	if c.Version != Version {
		return bad("version: got %d, want %d", c.Version, Version)
	}
	if c.Camera.Width <= 0 || c.Camera.Height <= 0 {
		return bad("camera: width and height must be positive")
	}
	for i, v := range c.Homography {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return bad("homography[%d]: not finite", i)
		}
	}
	inv, ok := invert3(c.Homography)
	if !ok {
		return bad("homography: not invertible")
	}
	c.inv = inv
	if len(c.TablePolygon) < 3 {
		return bad("table_polygon: needs at least 3 points")
	}
	for i, z := range c.Zones {
		if len(z.Polygon) < 3 {
			return bad("zones[%d] (%s): polygon needs at least 3 points", i, z.Name)
		}
	}
	if c.Die.EdgeMM < 8 || c.Die.EdgeMM > 40 {
		return bad("die.edge_mm: %g is not a plausible die size (8..40 mm)", c.Die.EdgeMM)
	}
	return nil
}

// Hash is the calibration's content identity, stored with every decision.
func (c *Calibration) Hash() string {
	b, _ := yaml.Marshal(c)
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:8])
}

// ToTable maps an image pixel to table mm.
func (c *Calibration) ToTable(p Point) Point { return apply(c.Homography, p) }

// ToImage maps table mm to an image pixel.
func (c *Calibration) ToImage(p Point) Point { return apply(c.inv, p) }

// DiePx is the expected die edge in pixels at an image position.
func (c *Calibration) DiePx(p Point) float64 {
	t := c.ToTable(p)
	h := c.Die.EdgeMM / 2
	a := c.ToImage(Point{t.X - h, t.Y})
	b := c.ToImage(Point{t.X + h, t.Y})
	d := c.ToImage(Point{t.X, t.Y - h})
	e := c.ToImage(Point{t.X, t.Y + h})
	return (math.Hypot(b.X-a.X, b.Y-a.Y) + math.Hypot(e.X-d.X, e.Y-d.Y)) / 2
}

// ZoneAt returns the role of the place at table mm p. Zones listed first win
// where they overlap; a place on the table in no zone is layout; a place
// outside the table polygon is off the table.
func (c *Calibration) ZoneAt(p Point) rules.Zone {
	if !inPolygon(c.TablePolygon, p) {
		return rules.ZoneOffTable
	}
	for _, z := range c.Zones {
		if z.Role == rules.ZoneBackWall || z.Role == rules.ZoneLayout {
			continue // the back wall strip and the layout are both places a die may rest
		}
		if inPolygon(z.Polygon, p) {
			return z.Role
		}
	}
	return rules.ZoneLayout
}

func apply(h [9]float64, p Point) Point {
	w := h[6]*p.X + h[7]*p.Y + h[8]
	return Point{(h[0]*p.X + h[1]*p.Y + h[2]) / w, (h[3]*p.X + h[4]*p.Y + h[5]) / w}
}

func invert3(m [9]float64) ([9]float64, bool) {
	a, b, c := m[0], m[1], m[2]
	d, e, f := m[3], m[4], m[5]
	g, h, i := m[6], m[7], m[8]
	det := a*(e*i-f*h) - b*(d*i-f*g) + c*(d*h-e*g)
	if math.Abs(det) < 1e-12 || math.IsNaN(det) {
		return [9]float64{}, false
	}
	r := [9]float64{
		e*i - f*h, c*h - b*i, b*f - c*e,
		f*g - d*i, a*i - c*g, c*d - a*f,
		d*h - e*g, b*g - a*h, a*e - b*d,
	}
	for k := range r {
		r[k] /= det
	}
	return r, true
}

// inPolygon is the even-odd ray test.
func inPolygon(poly [][2]float64, p Point) bool {
	in := false
	n := len(poly)
	for i, j := 0, n-1; i < n; j, i = i, i+1 {
		xi, yi := poly[i][0], poly[i][1]
		xj, yj := poly[j][0], poly[j][1]
		if (yi > p.Y) != (yj > p.Y) && p.X < (xj-xi)*(p.Y-yi)/(yj-yi)+xi {
			in = !in
		}
	}
	return in
}

func decodeStrict(b []byte, v any) error {
	dec := yaml.NewDecoder(bytesReader(b))
	dec.KnownFields(true)
	return dec.Decode(v)
}

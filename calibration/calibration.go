// Package calibration owns the map from camera pixels to table millimetres
// (a homography), the zone polygons in table mm that decide where a die
// rests, and the die model (edge length, colours). It loads, validates and
// saves calibration files; vision and rules read them.
//
// Table coordinates: millimetres, X along the table from the shooter's end
// towards the far (back) wall, Y across the table from the boxperson's side
// towards the stickperson's side.
//
// The package is pure Go (it builds with CGO_ENABLED=0). Finding reference
// points in a still (ArUco markers, a chessboard) is in vision/calibview.
package calibration

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/dicewatch/dicewatch/rules"
)

// Version is the calibration file format version this build reads.
const Version = 1

// Limits that keep validation cheap on any input.
const (
	maxZones         = 64
	maxPolygonPoints = 512
	maxRefPoints     = 4096
)

// DefaultMaxErrorMM is the reprojection error limit used when a file's
// reference.max_error_mm is not set.
const DefaultMaxErrorMM = 3.0

// Point is a position in table millimetres or image pixels.
type Point struct{ X, Y float64 }

// Zone is a polygon in table mm with a role. Name is free text
// ("rail_far"); Role is one of the rules.Zone roles.
type Zone struct {
	Name    string       `yaml:"name"`
	Role    rules.Zone   `yaml:"role"`
	Polygon [][2]float64 `yaml:"polygon,flow"`
}

// Camera is the resolution the calibration was made for.
type Camera struct {
	Width  int `yaml:"width"`
	Height int `yaml:"height"`
	// FocalPx is the camera's focal length in pixels, when known (the
	// lens's focal length over the sensor's pixel pitch, or OpenCV's
	// calibrateCamera). Optional: without it the view of the table is
	// estimated from the homography (see View). Not with a lens model,
	// whose fx and fy are the focal length.
	FocalPx float64 `yaml:"focal_px,omitempty"`
	// ViewTiltDeg is a measured angle, in degrees, between the camera's
	// line of sight and the vertical, taken for every image position in
	// place of the one the homography gives (see View). Optional; 0 is
	// a camera looking straight down.
	ViewTiltDeg *float64 `yaml:"view_tilt_deg,omitempty"`
}

// Die is the die model.
type Die struct {
	EdgeMM float64 `yaml:"edge_mm"`
	// PipSpread is the dice's pip offset from a face's centre along a
	// side, over the edge (a four's pips sit at +-PipSpread*edge): part
	// of the die's design, as its edge is. Optional (0: not given); with
	// it the still-photo reader measures a read face by its pips and
	// reads regions too large for one flat die as stacked evidence (see
	// vision.ReaderOptions.PipSpread).
	PipSpread float64 `yaml:"pip_spread,omitempty"`
	// Body and Pips are colour ranges learned from a still with dice on the
	// layout (see LearnDieColours); optional.
	Body *ColourRange `yaml:"body,omitempty"`
	Pips *ColourRange `yaml:"pips,omitempty"`
}

// ColourRange is a box in HSV on OpenCV's 8-bit scale (H 0..180, S and V
// 0..255). When HSVMin[0] > HSVMax[0] the hue range wraps through 0 (red).
type ColourRange struct {
	HSVMin [3]float64 `yaml:"hsv_min,flow"`
	HSVMax [3]float64 `yaml:"hsv_max,flow"`
}

// Reference records how the homography was found and how well it fits.
type Reference struct {
	// Method is "points" (pairs written in the file), "aruco" or
	// "chessboard" (found by `dicewatch calibrate` in a still).
	Method string `yaml:"method"`
	// MaxErrorMM refuses the calibration when any reference point's
	// reprojection error exceeds it (default DefaultMaxErrorMM).
	MaxErrorMM float64 `yaml:"max_error_mm,omitempty"`
	// RMSErrorMM and WorstErrorMM are recomputed on load from Points.
	RMSErrorMM   float64 `yaml:"rms_error_mm,omitempty"`
	WorstErrorMM float64 `yaml:"worst_error_mm,omitempty"`
	// Points are the pixel<->mm pairs. With method "points" and an all-zero
	// homography, the homography is fitted from them on load.
	Points     []RefPoint        `yaml:"points,omitempty"`
	Aruco      *ArucoLayout      `yaml:"aruco,omitempty"`
	Chessboard *ChessboardLayout `yaml:"chessboard,omitempty"`
}

// RefPoint is one reference pair.
type RefPoint struct {
	Label   string     `yaml:"label,omitempty"`
	Px      [2]float64 `yaml:"px,flow"`
	MM      [2]float64 `yaml:"mm,flow"`
	ErrorMM float64    `yaml:"error_mm,omitempty"` // recomputed on load
}

// Reference methods.
const (
	MethodPoints     = "points"
	MethodAruco      = "aruco"
	MethodChessboard = "chessboard"
)

// Calibration is one table's calibration.
type Calibration struct {
	Version int    `yaml:"version"`
	Table   string `yaml:"table,omitempty"`
	// Template names the zone template the zones started from.
	Template string `yaml:"template,omitempty"`
	Camera   Camera `yaml:"camera"`
	// Lens is the lens distortion model (optional; none by default).
	Lens Lens `yaml:"lens,omitempty"`
	// Homography maps image pixels to table mm, row-major 3x3.
	Homography [9]float64 `yaml:"homography,flow"`
	Reference  *Reference `yaml:"reference,omitempty"`
	// TablePolygon is the outline of the table (including the rail) in mm;
	// outside it is off the table.
	TablePolygon [][2]float64 `yaml:"table_polygon,flow"`
	Zones        []Zone       `yaml:"zones"`
	Die          Die          `yaml:"die"`
	// Background is the path of a still of the empty table (PNG), relative
	// to the calibration file.
	Background string `yaml:"background,omitempty"`

	inv  [9]float64
	hash string // cached by Validate
	view view   // prepared by Validate (see view.go)
	// lensWarning says where, outside the table's region, the lens model
	// does not invert (set by Validate; see checkLensRegion).
	lensWarning string
}

// ErrInvalid is wrapped by every validation error.
var ErrInvalid = errors.New("invalid calibration")

// ErrResolution is wrapped by CheckResolution's error.
var ErrResolution = errors.New("camera resolution does not match the calibration")

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
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, fmt.Errorf("calibration: %w: the file is empty", ErrInvalid)
	}
	if err := decodeStrict(b, &c); err != nil {
		return nil, fmt.Errorf("calibration: %w: %v", ErrInvalid, err)
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

// Marshal encodes the calibration as YAML (what Save writes).
func (c *Calibration) Marshal() ([]byte, error) {
	b, err := yaml.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("calibration: marshal: %w", err)
	}
	return b, nil
}

// Save writes the calibration to path atomically (temporary file, fsync,
// rename). A new file is readable by all (0644: the daemon runs as its
// own user, and `dicewatch calibrate` is run as root to write into
// /etc/dicewatch; a calibration holds nothing secret); a file replaced
// keeps its mode, and its owner and group where the caller may set them.
func (c *Calibration) Save(path string) error {
	b, err := c.Marshal()
	if err != nil {
		return err
	}
	b = append([]byte("# dicewatch calibration, written by `dicewatch calibrate`; see README.md, Calibrating a table\n"), b...)
	tmp, err := os.CreateTemp(filepath.Dir(path), ".calibration-*.yaml")
	if err != nil {
		return fmt.Errorf("calibration: save: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("calibration: save: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("calibration: save: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("calibration: save: %w", err)
	}
	// CreateTemp makes the file 0600, which the daemon's user could not
	// read.
	mode := os.FileMode(0o644)
	if old, err := os.Stat(path); err == nil {
		mode = old.Mode().Perm()
		keepOwner(tmp.Name(), old)
	}
	if err := os.Chmod(tmp.Name(), mode); err != nil {
		return fmt.Errorf("calibration: save: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("calibration: save: %w", err)
	}
	return nil
}

// validRoles are the roles a zone may have (off_table is implicit).
var validRoles = map[rules.Zone]bool{
	rules.ZoneLayout: true, rules.ZoneRail: true, rules.ZoneBank: true, rules.ZoneBowl: true,
	rules.ZoneBackWall: true, rules.ZoneBarLeft: true, rules.ZoneBar: true, rules.ZoneBarRight: true,
	rules.ZoneShaker: true,
}

// mayOverlap says whether zones of two roles may share area. Zones of the
// same role may; the layout may contain any other zone (that zone wins);
// every other pair must not overlap, or a die's verdict would depend on the
// order of the list.
func mayOverlap(a, b rules.Zone) bool {
	return a == b || a == rules.ZoneLayout || b == rules.ZoneLayout
}

// Validate checks the calibration and prepares it for use. With method
// "points" and an all-zero homography it fits the homography from the
// reference points; whenever reference points are present it recomputes
// each point's error and refuses the file if one is over the limit.
func (c *Calibration) Validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("calibration: %w: "+format, append([]any{ErrInvalid}, a...)...)
	}
	c.hash = ""
	c.view = view{}
	c.lensWarning = ""
	if c.Version != Version {
		return bad("version: got %d, want %d", c.Version, Version)
	}
	if c.Camera.Width <= 0 || c.Camera.Height <= 0 {
		return bad("camera: width and height must be positive")
	}
	if c.Camera.Width > 16384 || c.Camera.Height > 16384 {
		return bad("camera: %dx%d is larger than 16384x16384", c.Camera.Width, c.Camera.Height)
	}
	if err := c.Lens.validate(); err != nil {
		return bad("%v", err)
	}
	if err := c.checkLens(); err != nil {
		return bad("%v", err)
	}
	if err := c.validateReference(); err != nil {
		return bad("%v", err)
	}
	for i, v := range c.Homography {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return bad("homography[%d]: not finite", i)
		}
	}
	inv, ok := invert3(c.Homography)
	if !ok || !finite9(inv) {
		return bad("homography: not invertible")
	}
	c.inv = inv
	if err := c.checkLensRegion(); err != nil {
		return bad("%v", err)
	}
	if err := c.checkHorizon(); err != nil {
		return bad("%v", err)
	}
	if err := c.checkReferenceError(); err != nil {
		return bad("%v", err)
	}
	if len(c.TablePolygon) < 3 {
		return bad("table_polygon: needs at least 3 points")
	}
	if err := checkPolygon(c.TablePolygon); err != nil {
		return bad("table_polygon: %v", err)
	}
	if len(c.TablePolygon) > maxPolygonPoints {
		return bad("table_polygon: %d points, at most %d", len(c.TablePolygon), maxPolygonPoints)
	}
	if len(c.Zones) > maxZones {
		return bad("zones: %d zones, at most %d", len(c.Zones), maxZones)
	}
	table := openPolygon(c.TablePolygon)
	for i, z := range c.Zones {
		if len(z.Polygon) > maxPolygonPoints {
			return bad("zones[%d] (%s).polygon: %d points, at most %d", i, z.Name, len(z.Polygon), maxPolygonPoints)
		}
		if len(z.Polygon) < 3 {
			return bad("zones[%d] (%s): polygon needs at least 3 points", i, z.Name)
		}
		if z.Name == "" {
			return bad("zones[%d].name: is required", i)
		}
		if !validRoles[z.Role] {
			return bad("zones[%d] (%s).role: %q is not one of layout, rail, bank, bowl, back_wall, bar_left, bar, bar_right, shaker", i, z.Name, z.Role)
		}
		if err := checkPolygon(z.Polygon); err != nil {
			return bad("zones[%d] (%s).polygon: %v", i, z.Name, err)
		}
		if k := polygonWithin(table, openPolygon(z.Polygon)); k >= 0 {
			return bad("zones[%d] (%s).polygon: point %d (%g, %g) is outside the table_polygon", i, z.Name, k, z.Polygon[k][0], z.Polygon[k][1])
		}
	}
	for i := range c.Zones {
		for j := i + 1; j < len(c.Zones); j++ {
			a, b := c.Zones[i], c.Zones[j]
			if mayOverlap(a.Role, b.Role) {
				continue
			}
			if overlap(openPolygon(a.Polygon), openPolygon(b.Polygon)) {
				return bad("zones[%d] (%s) and zones[%d] (%s): a %s zone must not overlap a %s zone", i, a.Name, j, b.Name, a.Role, b.Role)
			}
		}
	}
	if math.IsNaN(c.Die.EdgeMM) || c.Die.EdgeMM < 8 || c.Die.EdgeMM > 40 {
		return bad("die.edge_mm: %g is not a plausible die size (8..40 mm)", c.Die.EdgeMM)
	}
	if err := CheckPipSpread(c.Die.PipSpread); err != nil {
		return bad("die.pip_spread: %v", err)
	}
	for _, cr := range []struct {
		name string
		r    *ColourRange
	}{{"die.body", c.Die.Body}, {"die.pips", c.Die.Pips}} {
		if cr.r == nil {
			continue
		}
		if err := cr.r.validate(); err != nil {
			return bad("%s: %v", cr.name, err)
		}
	}
	centre := Point{float64(c.Camera.Width) / 2, float64(c.Camera.Height) / 2}
	px := c.DiePx(centre)
	short := math.Min(float64(c.Camera.Width), float64(c.Camera.Height))
	if math.IsNaN(px) || px < 3 || px > short/4 {
		return bad("die.edge_mm: a %g mm die would be %.1f px at the image centre (plausible: 3..%.0f px); check die.edge_mm and the homography", c.Die.EdgeMM, px, short/4)
	}
	if err := c.checkView(); err != nil {
		return bad("%v", err)
	}
	c.prepareView()
	c.hash = c.computeHash()
	return nil
}

func (r *ColourRange) validate() error {
	limits := [3]float64{180, 255, 255}
	names := [3]string{"h", "s", "v"}
	for k := 0; k < 3; k++ {
		lo, hi := r.HSVMin[k], r.HSVMax[k]
		if math.IsNaN(lo) || math.IsNaN(hi) || lo < 0 || hi < 0 || lo > limits[k] || hi > limits[k] {
			return fmt.Errorf("%s is out of range 0..%g", names[k], limits[k])
		}
		if k > 0 && lo > hi {
			return fmt.Errorf("%s: hsv_min %g is above hsv_max %g", names[k], lo, hi)
		}
	}
	return nil
}

// validateReference checks the reference block and, when the homography
// is all zero, fits it from the reference points.
func (c *Calibration) validateReference() error {
	r := c.Reference
	zero := c.Homography == [9]float64{}
	if r == nil {
		if zero {
			return fmt.Errorf("homography: missing (give the homography or at least 4 reference.points)")
		}
		return nil
	}
	switch r.Method {
	case MethodPoints, MethodAruco, MethodChessboard:
	default:
		return fmt.Errorf("reference.method: %q is not points, aruco or chessboard", r.Method)
	}
	if math.IsNaN(r.MaxErrorMM) || r.MaxErrorMM < 0 || r.MaxErrorMM > 100 {
		return fmt.Errorf("reference.max_error_mm: %g is out of range 0..100", r.MaxErrorMM)
	}
	if r.Aruco != nil {
		if err := r.Aruco.validate(); err != nil {
			return fmt.Errorf("reference.aruco.%v", err)
		}
	}
	if r.Chessboard != nil {
		if err := r.Chessboard.validate(); err != nil {
			return fmt.Errorf("reference.chessboard.%v", err)
		}
	}
	if len(r.Points) > maxRefPoints {
		return fmt.Errorf("reference.points: %d given, at most %d", len(r.Points), maxRefPoints)
	}
	for i, p := range r.Points {
		for _, v := range []float64{p.Px[0], p.Px[1], p.MM[0], p.MM[1]} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("reference.points[%d]: not finite", i)
			}
		}
		if p.Px[0] < 0 || p.Px[1] < 0 || p.Px[0] > float64(c.Camera.Width) || p.Px[1] > float64(c.Camera.Height) {
			return fmt.Errorf("reference.points[%d].px: (%g, %g) is outside the %dx%d image", i, p.Px[0], p.Px[1], c.Camera.Width, c.Camera.Height)
		}
	}
	if len(r.Points) < 4 {
		return fmt.Errorf("reference.points: %d given, need at least 4", len(r.Points))
	}
	if zero {
		if r.Method != MethodPoints {
			return fmt.Errorf("homography: missing (only method points fits it on load)")
		}
		f, err := FitHomography(c.pairs())
		if err != nil {
			return fmt.Errorf("reference.points: %s", strings.TrimPrefix(err.Error(), "calibration: "))
		}
		c.Homography = f.H
	}
	return nil
}

// pairs are the reference points with lens distortion removed.
func (c *Calibration) pairs() []Pair {
	ps := make([]Pair, len(c.Reference.Points))
	for i, p := range c.Reference.Points {
		ps[i] = Pair{Px: c.Lens.undistort(Point{p.Px[0], p.Px[1]}), MM: Point{p.MM[0], p.MM[1]}}
	}
	return ps
}

// checkReferenceError recomputes every reference point's error against the
// homography and refuses the calibration when one exceeds the limit.
func (c *Calibration) checkReferenceError() error {
	r := c.Reference
	if r == nil || len(r.Points) == 0 {
		return nil
	}
	limit := r.MaxErrorMM
	if limit == 0 {
		limit = DefaultMaxErrorMM
	}
	errs, rms, worst := reprojection(c.Homography, c.pairs())
	worstAt := 0
	for i, e := range errs {
		r.Points[i].ErrorMM = round(e, 3)
		if e > errs[worstAt] {
			worstAt = i
		}
	}
	r.RMSErrorMM, r.WorstErrorMM = round(rms, 3), round(worst, 3)
	if !(worst <= limit) {
		label := r.Points[worstAt].Label
		if label != "" {
			label = " (" + label + ")"
		}
		return fmt.Errorf("reference: reprojection error %.2f mm at points[%d]%s exceeds max_error_mm %g (rms %.2f mm over %d points)", worst, worstAt, label, limit, rms, len(errs))
	}
	return nil
}

// checkHorizon refuses a homography whose vanishing line crosses the image
// (part of the image would map to infinity or behind the camera).
func (c *Calibration) checkHorizon() error {
	w, h := float64(c.Camera.Width), float64(c.Camera.Height)
	sign := 0.0
	for _, p := range []Point{{0, 0}, {w, 0}, {0, h}, {w, h}, {w / 2, h / 2}} {
		q, ok := c.Lens.undistortOK(p)
		if !ok {
			continue // the lens model does not reach it (c.lensWarning)
		}
		d := c.Homography[6]*q.X + c.Homography[7]*q.Y + c.Homography[8]
		if d == 0 || (sign != 0 && math.Signbit(d) != math.Signbit(sign)) {
			return fmt.Errorf("homography: the image crosses the horizon (not a view of the table from above)")
		}
		sign = d
	}
	return nil
}

func round(v float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}

// CheckResolution reports whether frames of w x h pixels match the
// resolution the calibration was made for. The daemon refuses to start
// (and refuses a reload) when it does not.
func (c *Calibration) CheckResolution(w, h int) error {
	if w != c.Camera.Width || h != c.Camera.Height {
		return fmt.Errorf("calibration: camera.width x camera.height: %w: source gives %dx%d, calibration is for %dx%d (recalibrate from a %dx%d still, with -base to keep the zones and scale camera.focal_px and the lens model; or set the camera to %dx%d)",
			ErrResolution, w, h, c.Camera.Width, c.Camera.Height, w, h, c.Camera.Width, c.Camera.Height)
	}
	return nil
}

// Hash is the calibration's content identity, stored with every decision:
// the first 8 bytes of the SHA-256 of its canonical YAML encoding, in hex.
// Comments and formatting of the file do not change it; any value does.
// Validate caches it (call Validate again after changing a field).
func (c *Calibration) Hash() string {
	if c.hash != "" {
		return c.hash
	}
	return c.computeHash()
}

func (c *Calibration) computeHash() string {
	b, _ := yaml.Marshal(c)
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:8])
}

// ToTable maps an image pixel to table mm.
func (c *Calibration) ToTable(p Point) Point { return apply(c.Homography, c.Lens.undistort(p)) }

// ToImage maps table mm to an image pixel.
func (c *Calibration) ToImage(p Point) Point { return c.Lens.distort(apply(c.inverse(), p)) }

// inverse returns the cached inverse, computing it if Validate was not run.
func (c *Calibration) inverse() [9]float64 {
	if c.inv == [9]float64{} {
		c.inv, _ = invert3(c.Homography)
	}
	return c.inv
}

// The plausible range of a die's pip spread (Die.PipSpread): a six's pips
// sit in a 3x3 grid inside the face, so its corner pips are well off the
// centre and short of the edge (the scene generator draws 0.27; a 16 mm
// die with its corner pips 4.5 mm off the centre is 0.28). A value outside
// it is taken for a mistake (a spacing in mm, or the pips' full span,
// twice the spread), not a die.
const (
	MinPipSpread = 0.15
	MaxPipSpread = 0.4
)

// CheckPipSpread reports whether s can be a die's pip spread: zero (not
// given) or within MinPipSpread..MaxPipSpread.
func CheckPipSpread(s float64) error {
	if s == 0 || s >= MinPipSpread && s <= MaxPipSpread {
		return nil
	}
	return fmt.Errorf("%g is not a plausible pip spread (0 for none, or %g..%g of the die's edge)", s, MinPipSpread, MaxPipSpread)
}

// DiePx is the expected die edge in pixels at an image position.
func (c *Calibration) DiePx(p Point) float64 {
	u, v := c.dieAxesPx(p)
	return (math.Hypot(u.X, u.Y) + math.Hypot(v.X, v.Y)) / 2
}

// dieAxesPx are the pictures of a die edge centred on the table under
// image position p, along the table's x and y axes (image vectors).
func (c *Calibration) dieAxesPx(p Point) (u, v Point) {
	t := c.ToTable(p)
	h := c.Die.EdgeMM / 2
	a := c.ToImage(Point{t.X - h, t.Y})
	b := c.ToImage(Point{t.X + h, t.Y})
	d := c.ToImage(Point{t.X, t.Y - h})
	e := c.ToImage(Point{t.X, t.Y + h})
	return Point{b.X - a.X, b.Y - a.Y}, Point{e.X - d.X, e.Y - d.Y}
}

// ZoneAt returns the role of the place at table mm p. Zones listed first win
// where they overlap; a place on the table in no zone is layout; a place
// outside the table polygon is off the table. The back-wall strip is a
// place a die may rest, so it reads as layout (Locate names it).
func (c *Calibration) ZoneAt(p Point) rules.Zone {
	role, _ := c.Locate(p)
	if role == rules.ZoneBackWall {
		return rules.ZoneLayout
	}
	return role
}

// Locate returns the role and the name of the zone at table mm p: the
// first listed non-layout zone containing p, else the first layout zone
// (or "" with role layout), or off_table outside the table polygon.
// Unlike ZoneAt it reports back_wall as itself.
func (c *Calibration) Locate(p Point) (rules.Zone, string) {
	if !inPolygon(c.TablePolygon, p) {
		return rules.ZoneOffTable, ""
	}
	layout := ""
	for _, z := range c.Zones {
		if z.Role == rules.ZoneLayout {
			if layout == "" && inPolygon(z.Polygon, p) {
				layout = z.Name
			}
			continue
		}
		if inPolygon(z.Polygon, p) {
			return z.Role, z.Name
		}
	}
	return rules.ZoneLayout, layout
}

func apply(h [9]float64, p Point) Point {
	w := h[6]*p.X + h[7]*p.Y + h[8]
	return Point{(h[0]*p.X + h[1]*p.Y + h[2]) / w, (h[3]*p.X + h[4]*p.Y + h[5]) / w}
}

// Apply maps p through a row-major 3x3 homography.
func Apply(h [9]float64, p Point) Point { return apply(h, p) }

// Invert returns the inverse of a 3x3 matrix; ok is false when it is
// singular.
func Invert(m [9]float64) (inv [9]float64, ok bool) { return invert3(m) }

func invert3(m [9]float64) ([9]float64, bool) {
	a, b, c := m[0], m[1], m[2]
	d, e, f := m[3], m[4], m[5]
	g, h, i := m[6], m[7], m[8]
	det := a*(e*i-f*h) - b*(d*i-f*g) + c*(d*h-e*g)
	scale := 0.0
	for _, v := range m {
		scale = math.Max(scale, math.Abs(v))
	}
	if scale == 0 || math.Abs(det) < 1e-12*scale*scale*scale || math.IsNaN(det) || math.IsInf(det, 0) {
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

func decodeStrict(b []byte, v any) error {
	dec := yaml.NewDecoder(bytesReader(b))
	dec.KnownFields(true)
	return dec.Decode(v)
}

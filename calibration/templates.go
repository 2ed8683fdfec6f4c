package calibration

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"sort"

	"github.com/dicewatch/dicewatch/rules"
)

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

// Craps12 dimensions, in mm: a standard 12-foot craps table.
const (
	Craps12Length = 3660.0 // outer length, including the end rails
	Craps12Width  = 1420.0 // outer width, including the side rails
	Craps12Rail   = 130.0  // rail width
)

func rect(x0, y0, x1, y1 float64) [][2]float64 {
	return [][2]float64{{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}}
}

func circle(cx, cy, r float64, n int) [][2]float64 {
	p := make([][2]float64, n)
	for i := range p {
		a := 2 * math.Pi * float64(i) / float64(n)
		p[i] = [2]float64{round(cx+r*math.Cos(a), 1), round(cy+r*math.Sin(a), 1)}
	}
	return p
}

// Craps12Zones is the zone template for a standard 12-foot craps table. The
// shooter throws from X=0 towards the back wall at X=Craps12Length; the
// boxperson sits at the middle of the Y=0 side with the chip bank in front,
// the stickperson opposite with the dice bowl in front.
func Craps12Zones() (table [][2]float64, zones []Zone) {
	L, W, R := Craps12Length, Craps12Width, Craps12Rail
	table = rect(0, 0, L, W)
	mid := L / 2
	zones = []Zone{
		{Name: "bowl", Role: rules.ZoneBowl, Polygon: circle(mid, W-R-110, 95, 24)},
		{Name: "bank", Role: rules.ZoneBank, Polygon: rect(mid-330, R, mid+330, R+200)},
		{Name: "rail_box", Role: rules.ZoneRail, Polygon: rect(0, 0, L, R)},
		{Name: "rail_stick", Role: rules.ZoneRail, Polygon: rect(0, W-R, L, W)},
		{Name: "rail_shooter", Role: rules.ZoneRail, Polygon: rect(0, 0, R, W)},
		{Name: "rail_far", Role: rules.ZoneRail, Polygon: rect(L-R, 0, L, W)},
		{Name: "back_wall", Role: rules.ZoneBackWall, Polygon: rect(L-R-60, R, L-R, W-R)},
		{Name: "layout", Role: rules.ZoneLayout, Polygon: rect(R, R, L-R, W-R)},
	}
	return table, zones
}

// Backgammon board dimensions, in mm (a tournament board; X runs left to
// right as the camera sees the board, Y from the near player's side).
const (
	BackgammonLength = 600.0 // outer, including the frame
	BackgammonWidth  = 460.0
	BackgammonFrame  = 25.0 // frame (rail) width
	BackgammonBar    = 40.0 // bar width, centred
)

// BackgammonZones is the zone template for a backgammon board: the frame
// is rail, the bar in the middle, the two halves bar_left and bar_right.
func BackgammonZones() (table [][2]float64, zones []Zone) {
	L, W, F, B := BackgammonLength, BackgammonWidth, BackgammonFrame, BackgammonBar
	table = rect(0, 0, L, W)
	mid := L / 2
	zones = []Zone{
		{Name: "bar", Role: rules.ZoneBar, Polygon: rect(mid-B/2, F, mid+B/2, W-F)},
		{Name: "bar_left", Role: rules.ZoneBarLeft, Polygon: rect(F, F, mid-B/2, W-F)},
		{Name: "bar_right", Role: rules.ZoneBarRight, Polygon: rect(mid+B/2, F, L-F, W-F)},
		{Name: "frame_near", Role: rules.ZoneRail, Polygon: rect(0, 0, L, F)},
		{Name: "frame_far", Role: rules.ZoneRail, Polygon: rect(0, W-F, L, W)},
		{Name: "frame_left", Role: rules.ZoneRail, Polygon: rect(0, 0, F, W)},
		{Name: "frame_right", Role: rules.ZoneRail, Polygon: rect(L-F, 0, L, W)},
	}
	return table, zones
}

// Pai gow dice area dimensions, in mm: the dealer's section of a pai gow
// tiles table, where the three dice are shaken in a cup and read on its
// base (the shaker zone).
const (
	PaiGowLength = 1200.0
	PaiGowWidth  = 800.0
	PaiGowRail   = 100.0
)

// PaiGowZones is the zone template for the pai gow dice area (also fits a
// sic bo shaker): the shaker base where dice are read, the chip rack (bank)
// in front of the dealer, the rail, and the layout around them.
func PaiGowZones() (table [][2]float64, zones []Zone) {
	L, W, R := PaiGowLength, PaiGowWidth, PaiGowRail
	table = rect(0, 0, L, W)
	zones = []Zone{
		{Name: "shaker", Role: rules.ZoneShaker, Polygon: circle(L/2, 400, 110, 32)},
		{Name: "chip_rack", Role: rules.ZoneBank, Polygon: rect(L/2-250, R, L/2+250, R+120)},
		{Name: "rail_dealer", Role: rules.ZoneRail, Polygon: rect(0, 0, L, R)},
		{Name: "rail_player", Role: rules.ZoneRail, Polygon: rect(0, W-R, L, W)},
		{Name: "rail_left", Role: rules.ZoneRail, Polygon: rect(0, 0, R, W)},
		{Name: "rail_right", Role: rules.ZoneRail, Polygon: rect(L-R, 0, L, W)},
		{Name: "layout", Role: rules.ZoneLayout, Polygon: rect(R, R, L-R, W-R)},
	}
	return table, zones
}

// Template is a starting point for a table's calibration: the table
// outline and zones, the usual die size, and where the calibration ArUco
// markers or chessboard mat are laid.
type Template struct {
	Name       string
	Table      [][2]float64
	Zones      []Zone
	DieEdgeMM  float64
	Aruco      *ArucoLayout
	Chessboard *ChessboardLayout
}

// Template names.
const (
	TemplateCraps12    = "craps12"
	TemplateBackgammon = "backgammon"
	TemplatePaiGow     = "paigow"
)

// TemplateNames lists the shipped templates.
func TemplateNames() []string {
	n := []string{TemplateCraps12, TemplateBackgammon, TemplatePaiGow}
	sort.Strings(n)
	return n
}

// LoadTemplate returns a fresh copy of a shipped template.
func LoadTemplate(name string) (Template, error) {
	switch name {
	case TemplateCraps12:
		t, z := Craps12Zones()
		return Template{Name: name, Table: t, Zones: z, DieEdgeMM: 19,
			Aruco:      arucoGrid(80, []float64{300, 737, 1174, 1611, 2049, 2486, 2923, 3360}, []float64{260, 710, 1160}),
			Chessboard: &ChessboardLayout{Cols: 21, Rows: 6, SquareMM: 150, Origin: [2]float64{330, 335}},
		}, nil
	case TemplateBackgammon:
		t, z := BackgammonZones()
		return Template{Name: name, Table: t, Zones: z, DieEdgeMM: 16,
			Aruco:      arucoGrid(40, []float64{80, 160, 240, 360, 440, 520}, []float64{110, 230, 350}),
			Chessboard: &ChessboardLayout{Cols: 11, Rows: 8, SquareMM: 40, Origin: [2]float64{100, 90}},
		}, nil
	case TemplatePaiGow:
		t, z := PaiGowZones()
		return Template{Name: name, Table: t, Zones: z, DieEdgeMM: 16,
			Aruco:      arucoGrid(60, []float64{200, 400, 800, 1000}, []float64{300, 520, 650}),
			Chessboard: &ChessboardLayout{Cols: 13, Rows: 8, SquareMM: 60, Origin: [2]float64{240, 190}},
		}, nil
	}
	return Template{}, fmt.Errorf("calibration: template %q: not one of %v", name, TemplateNames())
}

// arucoGrid lays markers 0, 1, ... row by row on a grid of centres.
func arucoGrid(size float64, xs, ys []float64) *ArucoLayout {
	a := &ArucoLayout{Dictionary: "4x4_50", MarkerMM: size}
	id := 0
	for _, y := range ys {
		for _, x := range xs {
			a.Markers = append(a.Markers, ArucoMarker{ID: id, Center: [2]float64{x, y}})
			id++
		}
	}
	return a
}

// New starts a calibration from a template for a camera of w x h pixels
// with homography h (image px -> table mm).
func (t Template) New(table string, w, h int, hom [9]float64) *Calibration {
	c := &Calibration{
		Version: Version, Table: table, Template: t.Name,
		Camera:       Camera{Width: w, Height: h},
		Homography:   hom,
		TablePolygon: clonePoly(t.Table),
		Die:          Die{EdgeMM: t.DieEdgeMM},
	}
	for _, z := range t.Zones {
		c.Zones = append(c.Zones, Zone{Name: z.Name, Role: z.Role, Polygon: clonePoly(z.Polygon)})
	}
	return c
}

func clonePoly(p [][2]float64) [][2]float64 { return append([][2]float64(nil), p...) }

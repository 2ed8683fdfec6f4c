package calibration

import (
	"bytes"
	"io"
	"math"

	"github.com/dicewatch/dicewatch/rules"
)

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

// Craps12 dimensions, in mm: a standard 12-foot craps table.
const (
	Craps12Length = 3660.0 // outer length, including the end rails
	Craps12Width  = 1520.0 // outer width, including the side rails
	Craps12Rail   = 150.0  // rail width
)

func rect(x0, y0, x1, y1 float64) [][2]float64 {
	return [][2]float64{{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}}
}

func circle(cx, cy, r float64, n int) [][2]float64 {
	p := make([][2]float64, n)
	for i := range p {
		a := 2 * 3.141592653589793 * float64(i) / float64(n)
		p[i] = [2]float64{cx + r*cosf(a), cy + r*sinf(a)}
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

func cosf(a float64) float64 { return math.Cos(a) }
func sinf(a float64) float64 { return math.Sin(a) }

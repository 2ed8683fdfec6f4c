package motion

import (
	"github.com/dicewatch/dicewatch/calibration"
	"github.com/dicewatch/dicewatch/rules"
)

// ExitZoneOf is a Config.ZoneOf for a calibrated table: the zone of the
// point where a die's path leaves the region of interest. A die that left
// the camera's view over the layout, a rail or the back wall is off the
// table as far as the camera can tell (a die that stays in the rail's chip
// groove stays in view); the bowl and the bank keep their own roles.
func ExitZoneOf(cal *calibration.Calibration) func(x, y float64) string {
	return func(x, y float64) string {
		z := cal.ZoneAt(cal.ToTable(calibration.Point{X: x, Y: y}))
		switch z {
		case rules.ZoneBowl, rules.ZoneBank, rules.ZoneShaker:
			return string(z)
		}
		return string(rules.ZoneOffTable)
	}
}

package calibration

import "math"

// DieAcrossPx is the die edge in pixels at an image position as the
// camera sees it across its line of sight: a die edge lying on the table
// there, turned the way the picture stretches it most (the table-to-
// picture map's largest stretch at that place, times the edge). Where the
// camera looks straight down it is DiePx; off vertical DiePx, the mean of
// the edge along the table's two axes, takes in the edge foreshortened
// along the line of sight, while a die's face across it and the picture
// of the die as a whole (its top and the side faces the camera sees) are
// not foreshortened: this is the size of that die.
func (c *Calibration) DieAcrossPx(p Point) float64 {
	// The map's two columns for a whole edge, and its largest singular
	// value: sqrt((s + sqrt(s^2 - 4 det^2)) / 2), s the sum of squares.
	u, v := c.dieAxesPx(p)
	s := u.X*u.X + u.Y*u.Y + v.X*v.X + v.Y*v.Y
	det := u.X*v.Y - u.Y*v.X
	return math.Sqrt((s + math.Sqrt(math.Max(0, s*s-4*det*det))) / 2)
}

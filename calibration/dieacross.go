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
	t := c.ToTable(p)
	h := c.Die.EdgeMM / 2
	a := c.ToImage(Point{t.X - h, t.Y})
	b := c.ToImage(Point{t.X + h, t.Y})
	d := c.ToImage(Point{t.X, t.Y - h})
	e := c.ToImage(Point{t.X, t.Y + h})
	// The map's two columns for a whole edge, and its largest singular
	// value: sqrt((s + sqrt(s^2 - 4 det^2)) / 2), s the sum of squares.
	ux, uy := b.X-a.X, b.Y-a.Y
	vx, vy := e.X-d.X, e.Y-d.Y
	s := ux*ux + uy*uy + vx*vx + vy*vy
	det := ux*vy - uy*vx
	return math.Sqrt((s + math.Sqrt(math.Max(0, s*s-4*det*det))) / 2)
}

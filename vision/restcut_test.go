package vision

import (
	"image"
	"testing"
)

// TestPipGroups: a group of pip-like specks alone on the floor gives one
// weak die-sized candidate about them; specks that are too few, too
// many, too spread, inside a candidate, not pip-like, or beside another
// region give none.
func TestPipGroups(t *testing.T) {
	const w, h, sd = 200, 200, 20.0
	// pip places a round speck of about a fifth of a die at (x, y).
	pip := func(id int32, x, y int) speck {
		return speck{id: id, bb: image.Rect(x-2, y-2, x+2, y+2), area: 12}
	}
	five := func(x, y int) []speck {
		return []speck{pip(1, x-6, y-6), pip(2, x+6, y-6), pip(3, x, y), pip(4, x-6, y+6), pip(5, x+6, y+6)}
	}
	// label paints the specks (and any other regions) into a label image.
	label := func(ss []speck, others ...image.Rectangle) []int32 {
		lab := make([]int32, w*h)
		for _, s := range ss {
			for y := s.bb.Min.Y; y < s.bb.Max.Y; y++ {
				for x := s.bb.Min.X; x < s.bb.Max.X; x++ {
					lab[y*w+x] = s.id
				}
			}
		}
		for i, r := range others {
			for y := r.Min.Y; y < r.Max.Y; y++ {
				for x := r.Min.X; x < r.Max.X; x++ {
					lab[y*w+x] = int32(100 + i)
				}
			}
		}
		return lab
	}
	row := func(n int) []speck {
		var ss []speck
		for i := 0; i < n; i++ {
			ss = append(ss, pip(int32(i+1), 40+6*i, 100))
		}
		return ss
	}
	tests := []struct {
		name   string
		specks []speck
		cands  []candidate
		others []image.Rectangle
		want   int
	}{
		{name: "five alone", specks: five(100, 100), want: 1},
		{name: "two alone", specks: row(2), want: 1},
		{name: "one speck", specks: row(1)},
		{name: "seven in one face's reach", specks: append(five(100, 100), pip(6, 94, 100), pip(7, 106, 100))},
		{name: "spread past one face", specks: []speck{pip(1, 60, 100), pip(2, 66, 100), pip(3, 72, 100), pip(4, 78, 100), pip(5, 84, 100)}},
		{name: "inside a die's candidate", specks: five(100, 100),
			cands: []candidate{{cx: 100, cy: 100, w: sd, h: sd, edge: sd}}},
		{name: "beside another region", specks: five(100, 100),
			others: []image.Rectangle{image.Rect(113, 90, 118, 110)}},
		{name: "thin streaks", specks: []speck{
			{id: 1, bb: image.Rect(90, 90, 115, 91), area: 25},
			{id: 2, bb: image.Rect(90, 95, 115, 96), area: 25}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := pipGroups(tc.specks, tc.cands, sd, label(tc.specks, tc.others...), w, h, nil)
			if len(got) != tc.want {
				t.Fatalf("%d candidates, want %d: %+v", len(got), tc.want, got)
			}
			for _, c := range got {
				if !c.weak || !c.pipsOnly || c.edge != sd {
					t.Errorf("candidate %+v: want weak, pips only, edge %v", c, sd)
				}
			}
			if tc.name == "five alone" && (got[0].cx != 100 || got[0].cy != 100) {
				t.Errorf("centre %.1f,%.1f, want the pips' centre 100,100", got[0].cx, got[0].cy)
			}
		})
	}
}

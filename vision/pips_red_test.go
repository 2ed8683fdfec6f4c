package vision

import (
	"math"
	"testing"
)

// TestPipRedMap: on a dark blue body marbled with black and crossed by a
// white glare arc, dim red pips read on the redness map alone; a red body
// has no redness map.
func TestPipRedMap(t *testing.T) {
	templatesOnce.Do(buildTemplates)
	permsOnce.Do(buildPerms)
	paint := func(s *faceScratch, body [3]float64, pts [][2]float64) {
		for y := 0; y < faceN; y++ {
			for x := 0; x < faceN; x++ {
				u := (float64(x)+0.5)/faceN - 0.5
				v := (float64(y)+0.5)/faceN - 0.5
				c := body
				if math.Sin(9*u+5*v) > 0.3 { // black marbling
					c = [3]float64{25, 20, 20}
				}
				if r := math.Hypot(u+0.1, v-0.05); math.Abs(r-0.3) < 0.02 { // glare arc
					c = [3]float64{230, 230, 230}
				}
				for _, p := range pts {
					if math.Hypot(u-p[0]*0.28, v-p[1]*0.28) < 0.09 {
						c = [3]float64{45, 40, 105} // dim red pip (BGR)
					}
				}
				copy(s.patch[3*(y*faceN+x):], c[:])
			}
		}
	}
	c := candidate{cx: 100, cy: 100, w: 60, h: 60, edge: 60}
	for _, l := range layouts {
		var s faceScratch
		paint(&s, [3]float64{110, 60, 20}, l.pts)
		if !s.pipRedMap() {
			t.Fatalf("%d: dark blue body: no redness map", l.value)
		}
		if fv := s.cues(c); fv.value != l.value {
			t.Errorf("%d on the redness map: read %d (conf %.2f, layout %d, template %d)", l.value, fv.value, fv.conf, fv.lv, fv.tmpl)
		}
	}
	var s faceScratch
	paint(&s, [3]float64{40, 50, 200}, layouts[5].pts)
	if s.pipRedMap() {
		t.Error("red body: redness map made")
	}
}

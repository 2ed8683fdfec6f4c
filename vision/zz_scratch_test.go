package vision

import (
	"fmt"
	"image"
	"os"
	"testing"

	"gocv.io/x/gocv"
)

func TestZZDistMap(t *testing.T) {
	base := os.Getenv("ZZ_CROP")
	if base == "" {
		t.Skip()
	}
	load := func(f string) bgrPatch {
		m := gocv.IMRead(f, gocv.IMReadColor)
		defer m.Close()
		s := gocv.NewMat()
		defer s.Close()
		gocv.Resize(m, &s, image.Pt(m.Cols()/4, m.Rows()/4), 0, 0, gocv.InterpolationNearestNeighbor)
		p, _ := patchOf(s, image.Rect(0, 0, s.Cols(), s.Rows()))
		return p
	}
	fr, bg := load(base+"-fr.png"), load(base+"-bg.png")
	cx, cy := fr.w/2, fr.h/2
	for y := cy - 14; y <= cy+14; y++ {
		for x := cx - 14; x <= cx+14; x++ {
			b1, g1, r1 := fr.at(x, y)
			b2, g2, r2 := bg.at(x, y)
			d := max(absDiff(b1, b2), absDiff(g1, g2), absDiff(r1, r2))
			c := "  ."
			if isShadow(b1, g1, r1, b2, g2, r2) {
				c = "  s"
			} else if d > 18 {
				c = fmt.Sprintf("%3d", d)
			}
			fmt.Print(c)
		}
		fmt.Println()
	}
	for y := cy - 14; y <= cy+14; y++ {
		for x := cx - 14; x <= cx+14; x++ {
			b1, g1, r1 := fr.at(x, y)
			fmt.Printf(" %02x%02x%02x", r1, g1, b1)
		}
		fmt.Println()
	}
}

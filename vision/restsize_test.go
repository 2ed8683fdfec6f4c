package vision

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/dicewatch/dicewatch/rules"
)

// enlargeFace returns a copy of fr with the face d drawn s times larger
// about its centre: what a die resting on another one shows, nearer the
// camera. Only the square of the larger face is redrawn; the table
// around it stays as it was.
func enlargeFace(fr bgrPatch, d restDie, s float64) bgrPatch {
	out := fr
	out.pix = append([]byte(nil), fr.pix...)
	lx, ly := d.cx-float64(fr.x0), d.cy-float64(fr.y0)
	ca, sa := math.Cos(d.angle), math.Sin(d.angle)
	half := 0.5*math.Max(d.w, d.h)*s + 0.5
	for y := 0; y < fr.h; y++ {
		for x := 0; x < fr.w; x++ {
			u, v := float64(x)-lx, float64(y)-ly
			if math.Abs(u*ca+v*sa) > half || math.Abs(-u*sa+v*ca) > half {
				continue
			}
			sx, sy := int(math.Round(lx+u/s)), int(math.Round(ly+v/s))
			if sx < 0 || sy < 0 || sx >= fr.w || sy >= fr.h {
				continue
			}
			copy(out.pix[(y*fr.w+x)*3:][:3], fr.pix[(sy*fr.w+sx)*3:][:3])
		}
	}
	return out
}

// centreRead reads a crop pair and returns the die found within a die edge
// of the crop's centre.
func centreRead(fr, bg bgrPatch, edge float64) (restDie, bool) {
	cx, cy := float64(fr.w)/2, float64(fr.h)/2
	for _, d := range readRest(fr, bg, edge) {
		if math.Abs(d.cx-cx) < edge && math.Abs(d.cy-cy) < edge {
			return d, true
		}
	}
	return restDie{}, false
}

// TestRestRegrownSizedByPips: a red die on red print read on the second
// look (regrown, or placed on its pips) gets the square of the expected
// die size, so its area measured one die at most and a die resting on
// another could never carry stacked evidence: the red dice of
// testdata/restplaced drawn 1.16 and 1.2 times larger (a die on a die)
// were read, flat, at size 0.90 to 0.94 (and one, standing out enough to
// be read on the first pass, at 1.05 by the part that stood out). Their
// size now comes from their pips' spread against that of the first-pass
// dice read beside them (testdata/restcrops): drawn larger they must
// reach the stacked cut, as they are they must stay under it.
func TestRestRegrownSizedByPips(t *testing.T) {
	var refs []Detection
	frs, _ := filepath.Glob(filepath.Join("testdata/restcrops", "*-fr.png"))
	for _, fn := range frs {
		fp, bp, _, edge := loadCropPair(t, fn)
		if d, ok := centreRead(fp, bp, edge); ok && d.value >= 2 && !d.regrown {
			refs = append(refs, d.toDetection(edge, DefaultMinFlatness))
		}
	}
	if len(refs) < 10 {
		t.Fatalf("only %d first-pass reads of two pips or more in testdata/restcrops", len(refs))
	}
	cut := rules.DefaultStackedSizeRatio
	sized := func(d restDie, edge float64) Detection {
		ds := append(append([]Detection(nil), refs...), d.toDetection(edge, DefaultMinFlatness))
		sizeByPips(ds)
		return ds[len(ds)-1]
	}
	frs, _ = filepath.Glob(filepath.Join("testdata/restplaced", "*-fr.png"))
	larger := 0
	for _, fn := range frs {
		name := filepath.Base(fn)
		fp, bp, _, edge := loadCropPair(t, fn)
		d, ok := centreRead(fp, bp, edge)
		if !ok || d.value == 0 {
			t.Errorf("%s: not read", name)
			continue
		}
		if det := sized(d, edge); det.SizeRatio >= cut {
			t.Errorf("%s: a flat die read %d at size %.2f, past the stacked cut", name, d.value, det.SizeRatio)
		}
		for _, s := range []float64{1.16, 1.2} {
			e, ok := centreRead(enlargeFace(fp, d, s), bp, edge)
			if !ok || e.value == 0 {
				continue // unread: no value to publish
			}
			if e.value < 2 {
				continue // a lone pip has no spread: see the README's gaps
			}
			larger++
			if det := sized(e, edge); det.SizeRatio < cut {
				t.Errorf("%s drawn %.2f times larger: read %d at size %.2f (pips %.3f edges), under the stacked cut", name, s, e.value, det.SizeRatio, det.pipScale)
			}
		}
	}
	if larger < 3 {
		t.Errorf("only %d enlarged faces read on the second look with two pips or more", larger)
	}
}

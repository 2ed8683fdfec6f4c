package vision

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"gocv.io/x/gocv"
)

// TestHueLookDiag lists, for every matched byler_d6 die the first look
// held for "no layout" (read with the fold nets, as TestAccuracyPhotos),
// what hueLook gave and the value read, the first look's cues on the hue
// map, and on the hue, redness and colour distance maps the separated
// maxima's layout (at sepLook's blur and a wider one) and the template
// (DICEWATCH_HUE_PNG, a folder: the patch and its maps as pictures). A
// tuning tool: skipped without DICEWATCH_HUE_DIAG (a file).
func TestHueLookDiag(t *testing.T) {
	f := diagFile(t, "DICEWATCH_HUE_DIAG")
	fmt.Fprintln(f, "image\tidx\thalf\ttruth\tgiven/read\tconf\tvalue\tconf\tlv\ttmpl\tblobs\tls\tncc\tsq\tjunk\tsepHue\tsepRed\tsepColour")
	ps := loadPhotoSet(t, "byler_d6")
	r := NewReader(ReaderOptions{})
	defer r.Close()
	given := map[[2]float64]faceValue{}
	defer func(h func(d *Detection, fv faceValue)) { hueTrace = h }(hueTrace)
	hueTrace = func(d *Detection, fv faceValue) { given[[2]float64{d.CX, d.CY}] = fv }
	readPhotos(t, ps, r, func(string) { clear(given) }, func(i int, name string, img gocv.Mat, dets []Detection) {
		pix, _ := r.frame.DataPtrUint8()
		fr := bgrImage{pix: pix, w: r.frame.Cols(), h: r.frame.Rows()}
		for _, p := range matchBoxes(ps.dice[name], dets, false) {
			d := dets[p[1]]
			ur, found := r.unreadReads[[2]float64{d.CX, d.CY}]
			if !found || ur.fv.lv != 0 || ur.fv.blobs == 0 {
				continue
			}
			g := ps.dice[name][p[0]]
			gv, ok := given[[2]float64{d.CX, d.CY}]
			gs := "-"
			if ok {
				gs = fmt.Sprint(gv.value)
			}
			s := &r.face
			if dir := os.Getenv("DICEWATCH_HUE_PNG"); dir != "" {
				hueDiagPNG(t, s, fr, ur.fv.c, filepath.Join(dir, fmt.Sprintf("%s_%d_t%d.png", name[:len(name)-4], p[0], g.value)))
			}
			s.sample(fr, ur.fv.c)
			s.pipChromaMap()
			fv := s.cues(ur.fv.c)
			// Per map (hue, redness, colour distance): the separated
			// maxima's layout, their count and the layout's fit, at
			// sepLook's blur and a wider one, and the template's value,
			// best correlation and the next value's.
			mp := ""
			for k := 0; k < 3; k++ {
				s.sample(fr, ur.fv.c)
				ok := true
				switch k {
				case 0:
					s.pipChromaMap()
				case 1:
					ok = s.pipRedMap()
				case 2:
					s.pipMap()
				}
				if !ok {
					mp += "\t-"
					continue
				}
				lv, ls, n := s.sepLayout(ur.fv.c, sepSigma, sepRel, sepNMS)
				lvb, lsb, nb := s.sepLayout(ur.fv.c, 1.6, 0.3, sepNMS)
				s.blobs()
				var tr spotRead
				tr.setTemplate(s.templateCue())
				mp += fmt.Sprintf("\t%d/%d:%.2f %d/%d:%.2f t%d:%.2f-%.2f", lv, n, ls, lvb, nb, lsb, tr.tv, tr.tBest, tr.tNext)
			}
			half := "even"
			if i%2 == 1 {
				half = "odd"
			}
			fmt.Fprintf(f, "%s\t%d\t%s\t%d\t%s/%d\t%.2f\t%d\t%.2f\t%d\t%d\t%d\t%.2f\t%.2f\t%v\t%v%s\n",
				name, p[0], half, g.value, gs, d.Value, d.Confidence, fv.value, fv.conf, fv.lv, fv.tmpl, fv.blobs, fv.lscore, fv.nccScore, fv.sq, fv.junk, mp)
		}
	})
}

// hueDiagPNG writes c's patch beside its colour distance, hue, redness
// and darkness maps (blank where one does not apply), each 6 times
// larger, each scaled to its own maximum.
func hueDiagPNG(t *testing.T, s *faceScratch, fr bgrImage, c candidate, path string) {
	const k = 6
	im := image.NewRGBA(image.Rect(0, 0, 5*faceN*k, faceN*k))
	s.sample(fr, c)
	put := func(col int, at func(i int) color.RGBA) {
		for y := 0; y < faceN*k; y++ {
			for x := 0; x < faceN*k; x++ {
				im.Set(col*faceN*k+x, y, at((y/k)*faceN+x/k))
			}
		}
	}
	put(0, func(i int) color.RGBA {
		return color.RGBA{uint8(s.patch[3*i+2]), uint8(s.patch[3*i+1]), uint8(s.patch[3*i]), 255}
	})
	grey := func(col int) {
		mx := 1.0
		for y := faceMargin; y < faceN-faceMargin; y++ {
			for x := faceMargin; x < faceN-faceMargin; x++ {
				mx = max(mx, s.d[y*faceN+x])
			}
		}
		put(col, func(i int) color.RGBA {
			v := uint8(min(255, 255*s.d[i]/mx))
			return color.RGBA{v, v, v, 255}
		})
	}
	s.pipMap()
	grey(1)
	s.pipChromaMap()
	grey(2)
	if s.pipRedMap() {
		grey(3)
	}
	s.pipMap()
	if s.pipDarkMap() {
		grey(4)
	}
	os.MkdirAll(filepath.Dir(path), 0o755)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	png.Encode(f, im)
}

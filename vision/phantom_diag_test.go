package vision

import (
	"fmt"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/vision/scene"
)

// TestPhantomDiag lists every value the reader gives on generated stills
// (DICEWATCH_PHANTOM_DIAG=file; DICEWATCH_STILLS and DICEWATCH_STILL_FIRST
// as for the stills harness), with whether the detection is a die at all
// (matched to no die: a phantom), the look that gave it and the measures
// of its first read, so that phantoms can be told from dice.
func TestPhantomDiag(t *testing.T) {
	f := diagFile(t, "DICEWATCH_PHANTOM_DIAG")
	n := stillCount(t, 200)
	first := stillFirst(t)
	// The values as they were before the enclosure rule, unless asked.
	enclosureOff = os.Getenv("DICEWATCH_PHANTOM_RULE") == ""
	defer func() { enclosureOff = false }()
	fmt.Fprintln(f, "mode\tseed\tphantom\ttrue\tvalue\tconf\tflat\tlooks\tblobs\ttmpl\tlv\tlscore\tncc\tjunk\tsq\tempty\tsilEdge\tedge\tnetV\tnetP\tnetRej\tringA\tringR\tringAS\tringRS\tenclosed\tenclosedPips\tnpips\topen\tnopen\tsoft\tbox")
	type key [2]float64
	var looks map[key][]string
	var fvs map[key]faceValue
	readTrace = func(d *Detection, fv faceValue, shrunk bool) {
		k := key{d.CX, d.CY}
		fvs[k] = fv
		if d.Value > 0 {
			looks[k] = append(looks[k], "first"+strconv.Itoa(d.Value))
		}
	}
	frameSizeTrace = func(d *Detection, fv faceValue) {
		k := key{d.CX, d.CY}
		looks[k] = append(looks[k], "frameSize")
		fvs[k] = fv
	}
	netTrace = func(d *Detection, fv faceValue) { k := key{d.CX, d.CY}; looks[k] = append(looks[k], "net") }
	smallGiveTrace = func(d *Detection, why string) { k := key{d.CX, d.CY}; looks[k] = append(looks[k], "small:"+why) }
	spotTrace = func(d *Detection, rs [5]spotRead) { k := key{d.CX, d.CY}; looks[k] = append(looks[k], "spot") }
	clusterTrace = func(fv faceValue) {}
	defer func() {
		readTrace, frameSizeTrace, netTrace, smallGiveTrace, spotTrace, clusterTrace = nil, nil, nil, nil, nil, nil
	}()
	plain := NewReader(ReaderOptions{})
	defer plain.Close()
	cal := NewReader(ReaderOptions{DiePx: 1, PipSpread: stillPipSpread})
	defer cal.Close()
	counts := map[string][2]int{}
	forEachStill(t, first, n, scene.StillOptions{}, func(seed int64, img gocv.Mat, tr scene.StillTruth) {
		pix, _ := img.DataPtrUint8()
		fr := bgrImage{pix: pix, w: img.Cols(), h: img.Rows()}
		for _, m := range []string{"calibrated", "uncalibrated"} {
			r := plain
			if m == "calibrated" {
				cal.opts.DiePx = tr.EdgePx
				r = cal
			}
			looks, fvs = map[key][]string{}, map[key]faceValue{}
			dets, err := r.Read(img)
			if err != nil {
				t.Fatal(err)
			}
			truth := make([]int, len(dets))
			for _, p := range matchStill(tr.Dice, dets) {
				truth[p[1]] = tr.Dice[p[0]].Value
			}
			for j, d := range dets {
				if d.Value == 0 {
					continue
				}
				k := key{d.CX, d.CY}
				fv := fvs[k]
				ph := 0
				if truth[j] == 0 {
					ph = 1
				}
				c := counts[m]
				c[ph]++
				counts[m] = c
				var nv int
				var np, nrej float64
				if r.net != nil && fv.c.edge > 0 {
					p, rej := r.ns.predictReject(r.net, fr, fv.c)
					best := 0
					for v := range p {
						if p[v] > p[best] {
							best = v
						}
					}
					nv, np, nrej = best+1, float64(p[best]), rej
				}
				if dir := os.Getenv("DICEWATCH_PHANTOM_CROPS"); dir != "" && d.Confidence >= 0.8 && fv.c.edge > 0 {
					name := fmt.Sprintf("%s/%s_%d_%d_ph%d_v%d.png", dir, m[:3], seed, j, ph, d.Value)
					t.Logf("%s: %s", name, phantomDump(r, fr, fv.c, name))
					if ph == 1 {
						b := d.Box
						ctx := image.Rect(b.Min.X-b.Dx(), b.Min.Y-b.Dy(), b.Max.X+b.Dx(), b.Max.Y+b.Dy()).Intersect(image.Rect(0, 0, img.Cols(), img.Rows()))
						reg := img.Region(ctx)
						cp := reg.Clone()
						reg.Close()
						gocv.Rectangle(&cp, b.Sub(ctx.Min), color.RGBA{0, 255, 0, 0}, 1)
						gocv.IMWrite(strings.TrimSuffix(name, ".png")+"_ctx.png", cp)
						cp.Close()
					}
				}
				lk := strings.Join(looks[k], ",")
				if lk == "" {
					lk = "-"
				}
				ra, rr, ras, rrs := phantomRing(r, fr, fv.c, 3)
				em, ep := pipEnclosure(fr, fv)
				op, nop := pipsOpen(fr, fv)
				soft := pipSoftness(fr, fv)
				fmt.Fprintf(f, "%s\t%d\t%d\t%d\t%d\t%.2f\t%v\t%s\t%d\t%d\t%d\t%.2f\t%.2f\t%v\t%v\t%.2f\t%.1f\t%.1f\t%d\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%d\t%.2f\t%d\t%.1f\t%v\n",
					m, seed, ph, truth[j], d.Value, d.Confidence, d.Flat, lk, fv.blobs, fv.tmpl, fv.lv, fv.lscore, fv.nccScore, fv.junk, fv.sq, fv.empty, fv.silEdge, fv.c.edge, nv, np, nrej, ra, rr, ras, rrs, em, ep, fv.pipRing, op, nop, soft, d.Box)
			}
		}
	})
	t.Logf("values given (die, phantom): %v", counts)
}

// phantomDump writes the patch of fv's face rectangle (as the first
// colour-distance map sees it), its difference of blurs and the blobs
// kept, six times enlarged, to path, and returns a line of measures.
func phantomDump(r *Reader, fr bgrImage, c candidate, path string) string {
	s := &r.face
	s.sample(fr, c)
	s.pipMap()
	cents, junk := s.blobs()
	const k = 6
	peak := 0.0
	for i := range s.dog {
		peak = max(peak, s.dog[i])
	}
	W := faceN * k * 3
	buf := make([]byte, faceN*k*W*3)
	set := func(y, x, ch int, v uint8) { buf[(y*W+x)*3+ch] = v }
	for y := 0; y < faceN*k; y++ {
		for x := 0; x < faceN*k; x++ {
			i := (y/k)*faceN + x/k
			for ch := 0; ch < 3; ch++ {
				set(y, x, ch, uint8(s.patch[3*i+ch]))
			}
			v := uint8(clamp(s.dog[i]/max(peak, 1)*255, 0, 255))
			for ch := 0; ch < 3; ch++ {
				set(y, x+faceN*k, ch, v)
			}
			if s.bin[i] {
				set(y, x+2*faceN*k, 1, 255)
			}
		}
	}
	img, err := gocv.NewMatFromBytes(faceN*k, W, gocv.MatTypeCV8UC3, buf)
	if err != nil {
		return err.Error()
	}
	defer img.Close()
	gocv.IMWrite(path, img)
	var areas []int
	for _, b := range s.kept {
		areas = append(areas, b.area)
	}
	return fmt.Sprintf("blobs %d junk %v peak %.1f med %v areas %v", len(cents), junk, peak, s.med, areas)
}

// phantomRing measures the rim of fv's face rectangle on the colour
// distance map: the share of the band of width w inside the patch's
// inner border whose distance from the body's median colour passes an
// absolute cut (abs) or a share of the patch's 95th percentile (rel),
// over the whole band and on its worst side.
func phantomRing(r *Reader, fr bgrImage, c candidate, w int) (abs, rel, absSide, relSide float64) {
	s := &r.face
	s.sample(fr, c)
	s.pipMap()
	lo, hi := faceMargin, faceN-faceMargin
	var ds []float64
	for y := lo; y < hi; y++ {
		for x := lo; x < hi; x++ {
			ds = append(ds, s.d[y*faceN+x])
		}
	}
	slices.Sort(ds)
	p95 := ds[len(ds)*95/100]
	var n, na, nr [4]float64
	for y := lo; y < hi; y++ {
		for x := lo; x < hi; x++ {
			side := -1
			switch {
			case y < lo+w:
				side = 0
			case y >= hi-w:
				side = 1
			case x < lo+w:
				side = 2
			case x >= hi-w:
				side = 3
			}
			if side < 0 {
				continue
			}
			v := s.d[y*faceN+x]
			n[side]++
			if v > 60 {
				na[side]++
			}
			if v > 0.4*p95 && v > pipMinContrast {
				nr[side]++
			}
		}
	}
	var tn, ta, tr float64
	for i := range n {
		tn += n[i]
		ta += na[i]
		tr += nr[i]
		absSide = max(absSide, na[i]/n[i])
		relSide = max(relSide, nr[i]/n[i])
	}
	return ta / tn, tr / tn, absSide, relSide
}

// TestPhantomPhotosDiag (DICEWATCH_PHANTOM_PHOTOS=1) reads the real photo
// sets with and without the enclosure rule (=open: the open-pips rule,
// openLook, in its place, =soft: softLook; each byler image with the fold
// net that never saw it, as TestAccuracyPhotos) and lists every detection
// whose value differs, and each set's detections matched to no label
// that carry a value (at the rules' 0.8 or more).
func TestPhantomPhotosDiag(t *testing.T) {
	if os.Getenv("DICEWATCH_PHANTOM_PHOTOS") == "" {
		t.Skip("DICEWATCH_PHANTOM_PHOTOS not set")
	}
	defer func() { enclosureOff, openOff, softOff = false, false, false; checkTrace = nil }()
	rule := &enclosureOff
	switch os.Getenv("DICEWATCH_PHANTOM_PHOTOS") {
	case "open":
		rule = &openOff
	case "soft":
		rule = &softOff
	}
	for _, bar := range photoBars {
		ps := loadPhotoSet(t, bar.set)
		r := NewReader(ReaderOptions{})
		netOf := heldOutNets(t, ps.name, r)
		var phantom [2][2]int
		for _, name := range ps.images {
			if netOf != nil {
				r.net = netOf[name]
			}
			img := gocv.IMRead(filepath.Join(photoRoot, ps.name, "images", name), gocv.IMReadColor)
			var outs [2][]Detection
			var encl []string
			for k, off := range []bool{true, false} {
				*rule = off
				checkTrace = func(d *Detection, ci checkInfo) {
					if !off && ci.enclosed < 0.7 && !strings.HasPrefix(ci.reason, "frame") {
						encl = append(encl, fmt.Sprintf("(%.0f,%.0f) value? enclosed %.2f pips %.2f reason %q", d.CX, d.CY, ci.enclosed, ci.enclosedPips, ci.reason))
					}
				}
				dets, err := r.Read(img)
				if err != nil {
					t.Fatal(err)
				}
				outs[k] = dets
				used := map[int]bool{}
				for _, p := range matchBoxes(ps.dice[name], dets, bar.pipBoxes) {
					used[p[1]] = true
				}
				for j, d := range dets {
					if !used[j] && d.Value > 0 {
						phantom[k][0]++
						if d.Confidence >= 0.8 {
							phantom[k][1]++
							if !off {
								t.Logf("%s %s: unmatched %v value %d conf %.2f", bar.set, name, d.Box, d.Value, d.Confidence)
							}
						}
					}
				}
			}
			if len(outs[0]) != len(outs[1]) {
				t.Logf("%s %s: %d detections without the rule, %d with", bar.set, name, len(outs[0]), len(outs[1]))
			} else {
				for j := range outs[0] {
					if outs[0][j].Value != outs[1][j].Value || outs[0][j].Confidence != outs[1][j].Confidence {
						t.Logf("%s %s: %v value %d conf %.2f -> %d conf %.2f", bar.set, name, outs[0][j].Box, outs[0][j].Value, outs[0][j].Confidence, outs[1][j].Value, outs[1][j].Confidence)
					}
				}
			}
			for _, e := range encl {
				t.Logf("%s %s: %s", bar.set, name, e)
			}
			img.Close()
		}
		r.Close()
		t.Logf("%s: unmatched detections with a value (any, >= 0.8): without the rule %v, with %v", bar.set, phantom[0], phantom[1])
	}
}

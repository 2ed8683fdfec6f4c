package vision

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"gocv.io/x/gocv"
)

// TestPipMapDiag writes, for every byler die left unread whose first
// look found no layout, cues that disagree or no blobs, a mosaic of its
// face patch and pip maps to DICEWATCH_PIPMAP_DIAG (a directory), eight
// dice a sheet, and prints a SEP line a die: the fold net's face, margin
// and reject on the face rectangle and the frame-size square, then
// sepLayout's value/maxima on the colour distance, hue, redness and
// pip-colour maps at blurs 1.2 and 0.8 and shares 0.25 and 0.4. With
// DICEWATCH_PIPMAP_ALL set, every unread flat die (not shrunk). A tuning
// tool: skipped without DICEWATCH_PIPMAP_DIAG.
func TestPipMapDiag(t *testing.T) {
	dir := os.Getenv("DICEWATCH_PIPMAP_DIAG")
	if dir == "" {
		t.Skip("DICEWATCH_PIPMAP_DIAG not set")
	}
	ps := loadPhotoSet(t, "byler_d6")
	r := NewReader(ReaderOptions{})
	defer r.Close()
	const sc = 4
	n := 0
	var rows []gocv.Mat
	sheet := 0
	flush := func() {
		if len(rows) == 0 {
			return
		}
		all := rows[0].Clone()
		for _, r := range rows[1:] {
			nx := gocv.NewMat()
			gocv.Vconcat(all, r, &nx)
			all.Close()
			all = nx
		}
		gocv.IMWrite(fmt.Sprintf("%s/sheet%d.png", dir, sheet), all)
		all.Close()
		for _, r := range rows {
			r.Close()
		}
		rows = rows[:0]
		sheet++
	}
	defer flush()
	readPhotos(t, ps, r, nil, func(_ int, name string, _ gocv.Mat, dets []Detection) {
		fr := readerFrame(t, r)
		forUnreadMatched(r, ps.dice[name], dets, func(p [2]int, g gtDie, d Detection, ur unreadRead, found bool) {
			if !found || !d.Flat || ur.shrunk {
				return
			}
			fv := ur.fv
			if os.Getenv("DICEWATCH_PIPMAP_ALL") == "" && !(fv.lv == 0 || fv.lv != fv.tmpl) {
				return
			}
			s := &r.face
			nv, nm, sv, sm := 0, 0.0, 0, 0.0
			var nrej, srej float64
			{
				pr, rej := r.ns.predictReject(r.net, fr, fv.c)
				nv, _, nm = netTop2(pr)
				nrej = rej
				med, medOK := readEdgeMedian(dets)
				if e, ok := r.edgeAt(&d, med, medOK); ok {
					sq := fv.c
					sq.w, sq.h, sq.edge = e, e, e
					ps2, rej2 := r.ns.predictReject(r.net, fr, sq)
					sv, _, sm = netTop2(ps2)
					srej = rej2
				}
			}
			line := fmt.Sprintf("SEP %s %d t%d lv%d tv%d b%d | net %d %.2f %.2f / %d %.2f %.2f |", strings.TrimSuffix(name, ".jpg"), p[1], g.value, fv.lv, fv.tmpl, fv.blobs, nv, nm, nrej, sv, sm, srej)
			for mi := 0; mi < sepMaps; mi++ {
				for _, sg := range []float64{1.2, 0.8} {
					for _, rl := range []float64{0.25, 0.4} {
						if !s.sepMap(fr, fv.c, mi) {
							line += " -"
							continue
						}
						lv, _, np := s.sepLayout(fv.c, sg, rl, 6)
						line += fmt.Sprintf(" %d/%d", lv, np)
					}
				}
				line += " |"
			}
			fmt.Println(line)
			s.sample(fr, fv.c)
			maps := pipDiagMaps(s)
			m := gocv.NewMatWithSize(faceN*sc, faceN*sc*(1+len(maps)), gocv.MatTypeCV8UC3)
			for y := 0; y < faceN*sc; y++ {
				for x := 0; x < faceN*sc; x++ {
					i := (y/sc)*faceN + x/sc
					for ch := 0; ch < 3; ch++ {
						m.SetUCharAt(y, x*3+ch, uint8(min(max(s.patch[3*i+ch], 0), 255)))
					}
					for k, mp := range maps {
						v := uint8(min(max(mp[i], 0), 1) * 255)
						xx := (k+1)*faceN*sc + x
						for ch := 0; ch < 3; ch++ {
							m.SetUCharAt(y, xx*3+ch, v)
						}
					}
				}
			}
			fmt.Printf("row %d: %s %d truth %d lv %d tv %d blobs %d\n", n, strings.TrimSuffix(name, ".jpg"), p[1], g.value, fv.lv, fv.tmpl, fv.blobs)
			rows = append(rows, m)
			n++
			if len(rows) == 8 {
				flush()
			}
		})
	})
}

// pipDiagMaps returns the difference of blurs of several pip maps of the
// sampled patch, each scaled to its own peak.
func pipDiagMaps(s *faceScratch) [][]float64 {
	var out [][]float64
	grab := func() {
		s.blobs()
		peak := 0.0
		for _, v := range s.dog {
			peak = max(peak, v)
		}
		o := make([]float64, len(s.dog))
		for i, v := range s.dog {
			if peak > 0 {
				o[i] = v / peak
			}
		}
		out = append(out, o)
	}
	s.pipMap()
	grab()
	s.pipChromaMap()
	grab()
	if s.pipRedMap() {
		grab()
	} else {
		out = append(out, make([]float64, faceN*faceN))
	}
	return out
}

package vision

import (
	"fmt"
	"testing"

	"gocv.io/x/gocv"
)

// TestCueAgreeDiag writes, for every matched byler_d6 die Read leaves
// unread, the first look's cues and the separated maxima's layout
// (sepLayout: value/score/maxima) on each of the four pip maps, on the
// face rectangle and on the square of the frame's die size, to
// DICEWATCH_CUEAGREE_DIAG (a file). A tuning tool.
func TestCueAgreeDiag(t *testing.T) {
	f := diagFile(t, "DICEWATCH_CUEAGREE_DIAG")
	fmt.Fprintln(f, "image\tidx\thalf\ttruth\tfound\tflat\tflatness\tshrunk\tweak\tsq\tjunk\tlv\tls\ttmpl\tncc\tblobs\tempty\tfe/med\trect0\trect1\trect2\trect3\tsq0\tsq1\tsq2\tsq3")
	ps := loadPhotoSet(t, "byler_d6")
	r := NewReader(ReaderOptions{})
	defer r.Close()
	readPhotos(t, ps, r, nil, func(i int, name string, _ gocv.Mat, dets []Detection) {
		fr := readerFrame(t, r)
		med, medOK := readEdgeMedian(dets)
		forUnreadMatched(r, ps.dice[name], dets, func(p [2]int, g gtDie, d Detection, ur unreadRead, found bool) {
			fv := ur.fv
			half := "even"
			if i%2 == 1 {
				half = "odd"
			}
			line := fmt.Sprintf("%s\t%d\t%s\t%d\t%v\t%v\t%.2f\t%v\t%v\t%v\t%v\t%d\t%.2f\t%d\t%.2f\t%d\t%.2f",
				name, p[0], half, g.value, found, d.Flat, d.Flatness, ur.shrunk, fv.c.weak, fv.sq, fv.junk,
				fv.lv, fv.lscore, fv.tmpl, fv.nccScore, fv.blobs, fv.empty)
			if !found {
				fmt.Fprintln(f, line)
				return
			}
			e, sized := r.edgeAt(&d, med, medOK)
			line += fmt.Sprintf("\t%.2f", fv.c.edge/e)
			sq := fv.c
			sq.w, sq.h, sq.edge = e, e, e
			for ci, c := range []candidate{fv.c, sq} {
				for k := 0; k < sepMaps; k++ {
					if (ci == 1 && !sized) || !r.face.sepMap(fr, c, k) {
						line += "\t-"
						continue
					}
					lv, ls, n := r.face.sepLayout(c, sepSigma, sepRel, sepNMS)
					line += fmt.Sprintf("\t%d/%.2f/%d", lv, ls, n)
				}
			}
			fmt.Fprintln(f, line)
		})
	})
}

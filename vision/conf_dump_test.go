package vision

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"gocv.io/x/gocv"
)

// TestPhotoGivenDump writes every value the reader gives on the labelled
// photo sets (matched to a label) with what the reader knew of the die,
// to DICEWATCH_PHOTO_GIVEN (a file): the photos' side of given.tsv (see
// TestStillWrongDump), for rules on confidence. Skipped without it.
func TestPhotoGivenDump(t *testing.T) {
	f := diagFile(t, "DICEWATCH_PHOTO_GIVEN")
	type key = [2]float64 // a detection's centre
	seen, untrace := traceReads()
	defer untrace()
	checks := map[key]checkInfo{}
	checkTrace = func(d *Detection, ci checkInfo) {
		if !strings.Contains(ci.reason, "frame") {
			checks[key{d.CX, d.CY}] = ci
		}
	}
	defer func() { checkTrace = nil }()
	fmt.Fprintln(f, "set\timage\ttruth\tvalue\tconf\tflat\tflatness\tsizeRatio\tshrunk\ttraced\tblobs\tlv\tlscore\ttmpl\tncc\tjunk\tsq\tempty\tsilRel\tnbCover\tnbDist\tcolSpread\tfoldStep\tfoldSep")
	for _, bar := range photoBars {
		ps := loadPhotoSet(t, bar.set)
		r := NewReader(ReaderOptions{})
		for _, name := range ps.images {
			img := gocv.IMRead(filepath.Join(photoRoot, ps.name, "images", name), gocv.IMReadColor)
			clear(seen)
			clear(checks)
			dets, err := r.Read(img)
			img.Close()
			if err != nil {
				t.Fatal(err)
			}
			truth := ps.dice[name]
			for _, p := range matchBoxes(truth, dets, bar.pipBoxes) {
				g, d := truth[p[0]], dets[p[1]]
				if d.Value == 0 {
					continue
				}
				tc, traced := seen[key{d.CX, d.CY}]
				ck := checks[key{d.CX, d.CY}]
				nbCover, nbDist := neighbourCover(dets, p[1])
				silRel := 0.0
				if tc.fv.silEdge > 0 {
					silRel = tc.fv.c.edge / tc.fv.silEdge
				}
				fmt.Fprintf(f, "%s\t%s\t%d\t%d\t%.3f\t%v\t%.3f\t%.3f\t%v\t%v\t%d\t%d\t%.3f\t%d\t%.3f\t%v\t%v\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\n",
					bar.set, name, g.value, d.Value, d.Confidence, d.Flat, d.Flatness, d.SizeRatio, tc.shrunk, traced,
					tc.fv.blobs, tc.fv.lv, tc.fv.lscore, tc.fv.tmpl, tc.fv.nccScore, tc.fv.junk, tc.fv.sq, tc.fv.empty, silRel, nbCover, nbDist, ck.colSpread, ck.foldStep, ck.foldSep)
			}
		}
		r.Close()
	}
}

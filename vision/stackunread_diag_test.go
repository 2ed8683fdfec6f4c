package vision

import (
	"bufio"
	"fmt"
	"image"
	"testing"

	"github.com/dicewatch/dicewatch/vision/scene"
)

// TestStackUnreadDiag writes, for each detection of the generated stills
// matched to a clean or stacked die and read calibrated with the edge at
// each place, the measures a size could come from when the pips give
// none (an unread die or a 1): the face reader's rectangle, the region's
// top face, the region's box and the silhouette, each over the expected
// edge, with the true size ratio.
//
//	DICEWATCH_STACKUNREAD_DIAG=/tmp/su.tsv DICEWATCH_STILLS=600 go test -count=1 -run StackUnreadDiag -v -timeout 60m ./vision/
func TestStackUnreadDiag(t *testing.T) {
	f := diagFile(t, "DICEWATCH_STACKUNREAD_DIAG")
	n := stillCount(t, 600)
	w := bufio.NewWriter(f)
	defer w.Flush()
	type tr struct {
		fp, sil, face, fw, fh float64
		blob                  image.Rectangle
		blobs, lv, fval       int
		shrunk                bool
	}
	seen := map[[2]float64]tr{}
	var lastBlob image.Rectangle
	candTrace = func(blob image.Rectangle, fv faceValue, shrunk bool) { lastBlob = blob }
	readTrace = func(d *Detection, fv faceValue, shrunk bool) {
		seen[[2]float64{d.CX, d.CY}] = tr{d.SizeRatio, fv.silEdge, fv.c.edge, fv.c.w, fv.c.h, lastBlob, fv.blobs, fv.lv, fv.value, shrunk}
	}
	defer func() { readTrace, candTrace = nil, nil }()
	r := NewReader(ReaderOptions{DiePx: 1, PipSpread: stillPipSpread})
	defer r.Close()
	fmt.Fprintln(w, "seed\tgroup\ttsr\texp\tval\ttval\tsr\tfp\tface\tfw\tfh\ttop\ttopw\ttoph\tsil\tbw\tbh\tblobs\tlv\tfval\tshrunk\tflat\ttraced")
	for seed := stillFirst(t); seed < stillFirst(t)+int64(n); seed++ {
		img, truth, err := scene.Still(seed, scene.StillOptions{})
		if err != nil {
			t.Fatal(err)
		}
		coverByStacked(truth.Dice)
		r.opts.DiePx = truth.EdgePx
		r.opts.ExpectedEdgePx = stillEdgeAt(truth)
		clear(seen)
		dets, err := r.Read(img)
		img.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range matchStill(truth.Dice, dets) {
			g, d := truth.Dice[p[0]], dets[p[1]]
			grp := stillGroup(g)
			if grp != "clean" && grp != "stacked" {
				continue
			}
			e := r.expectedAt(d.CX, d.CY)
			x, ok := seen[[2]float64{d.CX, d.CY}]
			var top candidate
			if cs, ok := r.unreadFaces[[2]float64{d.CX, d.CY}]; ok {
				top = cs[1]
			}
			fmt.Fprintf(w, "%d\t%s\t%.3f\t%.2f\t%d\t%d\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%d\t%d\t%d\t%v\t%v\t%v\n",
				seed, grp, g.SizeRatio, e, d.Value, g.Value, d.SizeRatio, x.fp, x.face/e, x.fw/e, x.fh/e, top.edge/e, top.w/e, top.h/e, x.sil/e,
				float64(x.blob.Dx())/e, float64(x.blob.Dy())/e, x.blobs, x.lv, x.fval, x.shrunk, d.Flat, ok)
		}
	}
	t.Logf("wrote %s", f.Name())
}

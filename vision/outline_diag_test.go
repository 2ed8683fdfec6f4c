package vision

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/vision/scene"
)

// TestOutlineDiag prints printedOutline's share for every value check
// sees (the rule off), on byler and matteo's photos (set "photo") and on
// generated stills in both modes with whether the value's detection is
// a phantom (DICEWATCH_OUTLINE_DIAG=file).
func TestOutlineDiag(t *testing.T) {
	path := os.Getenv("DICEWATCH_OUTLINE_DIAG")
	if path == "" {
		t.Skip("DICEWATCH_OUTLINE_DIAG not set")
	}
	outlineOff = true
	type rec struct {
		x, y, o float64
		v       int
	}
	var recs []rec
	checkTrace = func(d *Detection, ci checkInfo) { recs = append(recs, rec{d.CX, d.CY, ci.outlined, d.Value}) }
	defer func() { outlineOff = false; checkTrace = nil }()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := NewReader(ReaderOptions{})
	defer r.Close()
	for _, set := range []string{"byler_d6", "matteo_webcam"} {
		ps := loadPhotoSet(t, set)
		for _, name := range ps.images {
			img := gocv.IMRead(filepath.Join(photoRoot, set, "images", name), gocv.IMReadColor)
			recs = recs[:0]
			if _, err := r.Read(img); err != nil {
				t.Fatal(err)
			}
			img.Close()
			for _, c := range recs {
				fmt.Fprintf(f, "%s\t%s\t-1\t%.3f\n", set, name, c.o)
			}
		}
	}
	if os.Getenv("DICEWATCH_STILLS") == "" {
		return
	}
	n := stillCount(t, 200)
	first := stillFirst(t)
	cal := NewReader(ReaderOptions{DiePx: 1, PipSpread: stillPipSpread})
	defer cal.Close()
	forEachStill(t, first, n, scene.StillOptions{}, func(seed int64, img gocv.Mat, tr scene.StillTruth) {
		for _, m := range []string{"cal", "unc"} {
			rd := r
			if m == "cal" {
				cal.opts.DiePx = tr.EdgePx
				rd = cal
			}
			recs = recs[:0]
			dets, err := rd.Read(img)
			if err != nil {
				t.Fatal(err)
			}
			truth := make([]int, len(dets))
			for _, p := range matchStill(tr.Dice, dets) {
				truth[p[1]] = tr.Dice[p[0]].Value
			}
			// Each check goes to the final detection nearest its centre.
			for _, c := range recs {
				best, bd := -1, math.Inf(1)
				for j, d := range dets {
					if dd := math.Hypot(d.CX-c.x, d.CY-c.y); dd < bd {
						best, bd = j, dd
					}
				}
				ph := -2
				if best >= 0 && bd < 5 {
					ph = 0
					if truth[best] == 0 {
						ph = 1
					}
				}
				fmt.Fprintf(f, "%s\t%d\t%d\t%.3f\n", m, seed, ph, c.o)
			}
		}
	})
}

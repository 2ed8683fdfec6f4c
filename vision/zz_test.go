package vision

import (
	"fmt"
	"image"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"gocv.io/x/gocv"
)

func TestZZLow(t *testing.T) {
	set := os.Getenv("ZZ")
	if set == "" {
		t.Skip()
	}
	ps := loadPhotoSet(t, set)
	r := NewReader(ReaderOptions{})
	defer r.Close()
	var recs []faceValue
	candTrace = func(blob image.Rectangle, fv faceValue, shrunk bool) {
		if fv.value > 0 && fv.conf < 0.5 && fv.conf >= 0.2 {
			recs = append(recs, fv)
		}
	}
	defer func() { candTrace = nil }()
	for i, name := range ps.images {
		recs = recs[:0]
		img := gocv.IMRead(filepath.Join(photoRoot, ps.name, "images", name), gocv.IMReadColor)
		dets, _ := r.Read(img)
		img.Close()
		var es []float64
		for _, d := range dets {
			if d.Value > 0 {
				es = append(es, d.EdgePx)
			}
		}
		sort.Float64s(es)
		med := 0.0
		if len(es) > 0 {
			med = es[len(es)/2]
		}
		for _, q := range recs {
			tv := -1
			for _, g := range ps.dice[name] {
				if q.c.cx >= g.box[0] && q.c.cx <= g.box[2] && q.c.cy >= g.box[1] && q.c.cy <= g.box[3] {
					tv = g.value
				}
			}
			ok := "WRONG"
			if tv == q.value {
				ok = "right"
			}
			if tv < 0 {
				ok = "none"
			}
			fmt.Printf("ZZ %d %s %s truth %d read %d conf %.2f ls %.2f ncc %.2f junk %v sq %.2f minside/med %.2f maxside/med %.2f n %d blobs %d empty %.2f\n", i%2, ok, name, tv, q.value, q.conf, q.lscore, q.nccScore, q.junk, min(q.c.w, q.c.h)/max(q.c.w, q.c.h), min(q.c.w, q.c.h)/med, max(q.c.w, q.c.h)/med, len(es), q.blobs, q.empty)
		}
	}
}

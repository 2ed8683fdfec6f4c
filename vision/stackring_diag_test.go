package vision

import (
	"bufio"
	"fmt"
	"math"
	"sort"
	"testing"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/vision/scene"
)

// TestStackRingDiag measures, for every detection of the generated stills
// read calibrated (the edge at each place), what shows in a ring just
// outside its top face, for studying whether a die under it shows there
// (the lower die's corners and sides, which a die on a die leaves in
// sight at any camera height):
//
//	DICEWATCH_STACKRING_DIAG=/tmp/ring.tsv DICEWATCH_STILL_CAMERA_H=600-1500 DICEWATCH_STILLS=600 go test -count=1 -run StackRingDiag -v -timeout 60m ./vision/
//
// The ring runs from 0.78 to 0.98 expected edges from the face's centre
// (past the corners of a top face of the expected size, about 0.71), the
// table's colour is the median of a ring from 1.3 to 1.6 edges. A ring
// pixel is foreign when its chromaticity differs from the table's, or it
// is brighter (a shadow only darkens). Sectors (24 of 15 degrees) that
// point at another detection within 1.7 edges are left out (a neighbour
// is no lower die). Columns: seed, group, true and measured size ratio,
// expected edge, the foreign share of the ring, foreign sectors, runs of
// them, sectors left out.
func TestStackRingDiag(t *testing.T) {
	f := diagFile(t, "DICEWATCH_STACKRING_DIAG")
	n := stillCount(t, 600)
	w := bufio.NewWriter(f)
	defer w.Flush()
	loc := NewReader(ReaderOptions{DiePx: 1, PipSpread: stillPipSpread})
	defer loc.Close()
	fmt.Fprintln(w, "seed\tgroup\ttsr\tsr\te\tshare\tsect\truns\tmasked\tval\tflat")
	forEachStill(t, stillFirst(t), n, stillOptions(t), func(seed int64, img gocv.Mat, truth scene.StillTruth) {
		edgeAt := stillEdgeAt(truth)
		loc.opts.DiePx, loc.opts.ExpectedEdgePx = truth.EdgePx, edgeAt
		dets, err := loc.Read(img)
		if err != nil {
			t.Fatal(err)
		}
		buf, err := img.DataPtrUint8()
		if err != nil {
			t.Fatal(err)
		}
		W, H := img.Cols(), img.Rows()
		byDet := map[int]int{}
		for _, p := range matchStill(truth.Dice, dets) {
			byDet[p[1]] = p[0]
		}
		for j, d := range dets {
			grp, tsr := "none", 0.0
			if i, ok := byDet[j]; ok {
				grp, tsr = stillGroup(truth.Dice[i]), truth.Dice[i].SizeRatio
			}
			e := edgeAt(d.CX, d.CY)
			if e <= 0 {
				continue
			}
			const nsect = 24
			var masked [nsect]bool
			nm := 0
			for k, o := range dets {
				if k == j {
					continue
				}
				dx, dy := o.CX-d.CX, o.CY-d.CY
				if math.Hypot(dx, dy) > 1.7*e {
					continue
				}
				a := math.Atan2(dy, dx)
				for s := 0; s < nsect; s++ {
					sa := (float64(s) + 0.5) * 2 * math.Pi / nsect
					if math.Abs(math.Remainder(sa-a, 2*math.Pi)) < math.Pi/3 && !masked[s] {
						masked[s] = true
						nm++
					}
				}
			}
			type px struct{ b, g, r float64 }
			var ref []px
			var ring []struct {
				p px
				s int
			}
			R := int(math.Ceil(1.6*e)) + 1
			for y := int(d.CY) - R; y <= int(d.CY)+R; y++ {
				if y < 0 || y >= H {
					continue
				}
				for x := int(d.CX) - R; x <= int(d.CX)+R; x++ {
					if x < 0 || x >= W {
						continue
					}
					dx, dy := float64(x)+0.5-d.CX, float64(y)+0.5-d.CY
					r := math.Hypot(dx, dy) / e
					i := 3 * (y*W + x)
					p := px{float64(buf[i]), float64(buf[i+1]), float64(buf[i+2])}
					a := math.Atan2(dy, dx)
					if a < 0 {
						a += 2 * math.Pi
					}
					s := int(a/(2*math.Pi)*nsect) % nsect
					switch {
					case r >= 1.3 && r <= 1.6 && !masked[s]:
						ref = append(ref, p)
					case r >= 0.78 && r <= 0.98 && !masked[s]:
						ring = append(ring, struct {
							p px
							s int
						}{p, s})
					}
				}
			}
			if len(ref) < 20 || len(ring) < 20 {
				fmt.Fprintf(w, "%d\t%s\t%.3f\t%.4f\t%.2f\t-1\t-1\t-1\t%d\t%d\t%v\n", seed, grp, tsr, d.SizeRatio, e, nm, d.Value, d.Flat)
				continue
			}
			med := func(get func(px) float64) float64 {
				v := make([]float64, len(ref))
				for i, p := range ref {
					v[i] = get(p)
				}
				sort.Float64s(v)
				return v[len(v)/2]
			}
			mb, mg, mr := med(func(p px) float64 { return p.b }), med(func(p px) float64 { return p.g }), med(func(p px) float64 { return p.r })
			ms := mb + mg + mr + 1
			cb, cg := mb/ms, mg/ms
			// the table's own spread: the ref ring's 80th percentile
			chroma := func(p px) float64 {
				s := p.b + p.g + p.r + 1
				return math.Hypot(p.b/s-cb, p.g/s-cg)
			}
			cv := make([]float64, len(ref))
			lv := make([]float64, len(ref))
			for i, p := range ref {
				cv[i] = chroma(p)
				lv[i] = (p.b + p.g + p.r) / 3
			}
			sort.Float64s(cv)
			sort.Float64s(lv)
			ct := math.Max(0.04, 2*cv[len(cv)*8/10])
			lt := math.Max(lv[len(lv)*9/10]-lv[len(lv)/2], 6)*2 + 15
			ml := lv[len(lv)/2]
			var cnt, tot [nsect]int
			fo := 0
			for _, q := range ring {
				tot[q.s]++
				if chroma(q.p) > ct || (q.p.b+q.p.g+q.p.r)/3 > ml+lt {
					cnt[q.s]++
					fo++
				}
			}
			sect, runs := 0, 0
			var on [nsect]bool
			for s := 0; s < nsect; s++ {
				on[s] = tot[s] > 0 && float64(cnt[s]) >= 0.3*float64(tot[s])
				if on[s] {
					sect++
				}
			}
			for s := 0; s < nsect; s++ {
				if on[s] && !on[(s+nsect-1)%nsect] {
					runs++
				}
			}
			if sect == nsect {
				runs = 1
			}
			fmt.Fprintf(w, "%d\t%s\t%.3f\t%.4f\t%.2f\t%.3f\t%d\t%d\t%d\t%d\t%v\n", seed, grp, tsr, d.SizeRatio, e, float64(fo)/float64(len(ring)), sect, runs, nm, d.Value, d.Flat)
		}
	})
	t.Logf("wrote %s", f.Name())
}

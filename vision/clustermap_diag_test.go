package vision

import (
	"fmt"
	"os"
	"sort"
	"testing"

	"gocv.io/x/gocv"
)

// TestClusterMapDiag tables what the colour cluster map (clustermap.go)
// reads on byler_d6's matched dice, on its own: the rectangles the first
// look and the die's outline give, read with both cues on that map alone
// (a value at retryBelow or more). It sorts the dice by what the reader
// makes of them with the cluster look left out (each image read by the
// fold net that never saw it): right, unread or wrong, and by body
// colour, and counts the map's right values, wrong ones and none. It is
// a tuning tool: skipped without DICEWATCH_CLUSTER_DIAG (a file to which
// it writes one line per die).
func TestClusterMapDiag(t *testing.T) {
	f := diagFile(t, "DICEWATCH_CLUSTER_DIAG")
	fmt.Fprintln(f, "image\tidx\ttruth\tread\tbody\tmap\tconf\trects")
	defer func(on bool) { clusterLook = on }(clusterLook)
	clusterLook = false
	ps := loadPhotoSet(t, "byler_d6")
	r := NewReader(ReaderOptions{})
	defer r.Close()
	type key struct{ status, body string }
	type cnt struct{ right, wrong, none, n int }
	table := map[key]*cnt{}
	byVal := map[int]*cnt{}
	readPhotos(t, ps, r, nil, func(_ int, name string, img gocv.Mat, dets []Detection) {
		truth := ps.dice[name]
		status := map[int]int{} // truth index -> value read
		for _, p := range matchBoxes(truth, dets, false) {
			status[p[0]] = dets[p[1]].Value
		}
		ddets, infos := diagRead(t, r, img)
		fr := readerFrame(t, r)
		s := &r.face
		for _, p := range matchBoxes(truth, ddets, false) {
			read, ok := status[p[0]]
			if !ok {
				continue
			}
			g, in := truth[p[0]], infos[p[1]]
			st := "right"
			switch {
			case read == 0:
				st = "unread"
			case read != g.value:
				st = "wrong"
			}
			rects := []candidate{in.firstC, in.cand}
			if cs, ok := s.silhouette(fr, in.cand); ok {
				rects = append(rects, cs)
			}
			if os.Getenv("DICEWATCH_CLUSTER_SHOW") == name && st == "unread" {
				showClusters(t, s, fr, in.firstC, g.value)
			}
			got, conf, note := 0, 0.0, ""
			for _, c := range rects {
				fv := s.clusterRead(fr, c)
				note += fmt.Sprintf("v%d/c%.2f/b%d/lv%d/tv%d ", fv.value, fv.conf, fv.blobs, fv.lv, fv.tmpl)
				if fv.value > 0 && fv.conf >= retryBelow && got == 0 {
					got, conf = fv.value, fv.conf
				}
			}
			k := key{st, in.body}
			if table[k] == nil {
				table[k] = &cnt{}
			}
			c := table[k]
			c.n++
			switch {
			case got == 0:
				c.none++
			case got == g.value:
				c.right++
			default:
				c.wrong++
			}
			if st == "unread" {
				if byVal[g.value] == nil {
					byVal[g.value] = &cnt{}
				}
				b := byVal[g.value]
				b.n++
				switch {
				case got == 0:
					b.none++
				case got == g.value:
					b.right++
				default:
					b.wrong++
				}
			}
			fmt.Fprintf(f, "%s\t%d\t%d\t%d\t%s\t%d\t%.2f\t%s\n", name, p[0], g.value, read, in.body, got, conf, note)
		}
	})
	var ks []key
	for k := range table {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool {
		if ks[i].status != ks[j].status {
			return ks[i].status < ks[j].status
		}
		return ks[i].body < ks[j].body
	})
	t.Logf("%-7s %-7s %5s %6s %6s %6s", "reader", "body", "dice", "right", "wrong", "none")
	for _, k := range ks {
		c := table[k]
		t.Logf("%-7s %-7s %5d %6d %6d %6d", k.status, k.body, c.n, c.right, c.wrong, c.none)
	}
	for v := 1; v <= 6; v++ {
		if b := byVal[v]; b != nil {
			t.Logf("unread %d: %d dice, map right %d, wrong %d, none %d", v, b.n, b.right, b.wrong, b.none)
		}
	}
}

// showClusters logs the face patch's colours and its k-means clusters as
// text, for a look at why the cluster map was not made.
func showClusters(t *testing.T, s *faceScratch, fr bgrImage, c candidate, truth int) {
	s.sample(fr, c)
	s.pipMap()
	if rc, ok := s.refine(c); ok {
		c = rc
		s.sample(fr, c)
		s.pipMap()
	}
	n := s.clusterFeat()
	t.Logf("truth %d med %v", truth, s.med)
	w := faceN - 2*faceMargin
	for y := 0; y < w; y++ {
		line := ""
		for x := 0; x < w; x++ {
			f := s.clF[y*w+x]
			line += fmt.Sprintf("%3.0f,%3.0f ", f[0], f[1])
		}
		t.Log(line)
	}
	for k := 2; k <= clusterMaxK; k++ {
		for i := range s.clA[:n] {
			s.clA[i] = -1
		}
		cen, size, ok := s.kmeans(n, k)
		if !ok {
			t.Logf("k=%d: fewer distinct colours than k", k)
			break
		}
		t.Logf("k=%d cen %v size %v", k, cen[:k], size[:k])
		for j := 0; j < k; j++ {
			s.clusterDists(k, &cen)
			s.setClusterMap(k, j, 0, &cen)
			centres, junk := s.blobs()
			t.Logf("  cluster %d: blobs %d junk %v found %d", j, len(centres), junk, len(s.found))
		}
		for y := 0; y < w; y++ {
			line := ""
			for x := 0; x < w; x++ {
				line += fmt.Sprint(s.clA[y*w+x])
			}
			t.Log(line)
		}
	}
}

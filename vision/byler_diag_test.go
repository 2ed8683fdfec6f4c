package vision

import (
	"fmt"
	"image"
	"image/color"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"gocv.io/x/gocv"
)

// TestBylerMissDiag lists every byler_d6 label the reader does not match
// (IoU >= 0.3), as lines to DICEWATCH_BYLER_DIAG, with the detection and
// the segmentation candidate that overlap it most, and sums the misses by
// group: "none" (no detection overlaps the label; "nocand" when no
// candidate does either), "taken" (its best detection matched another
// label: a box over two dice), "low" (its best detection matched nothing:
// a box off the die). It also gives the misses on even and odd images.
// With DICEWATCH_MISS_CROPS (a directory) it writes one crop per miss
// there (green: label; red: detections; grey: candidates). It is a
// tuning tool: skipped without DICEWATCH_BYLER_DIAG.
func TestBylerMissDiag(t *testing.T) {
	f := diagFile(t, "DICEWATCH_BYLER_DIAG")
	crops := os.Getenv("DICEWATCH_MISS_CROPS")
	ps := loadPhotoSet(t, "byler_d6")
	r := NewReader(ReaderOptions{})
	defer r.Close()
	groups := map[string]int{}
	var half [2]int
	const tileSide, tileCols = 200, 6
	var tiles []gocv.Mat
	defer func() {
		// The crops, tileCols by tileCols to a sheet.
		per := tileCols * tileCols
		for s := 0; s < len(tiles); s += per {
			sheet := gocv.NewMatWithSize(tileCols*tileSide, tileCols*tileSide, gocv.MatTypeCV8UC3)
			for k := s; k < len(tiles) && k < s+per; k++ {
				at := image.Rect(0, 0, tileSide, tileSide).Add(image.Pt((k-s)%tileCols*tileSide, (k-s)/tileCols*tileSide))
				dst := sheet.Region(at)
				tiles[k].CopyTo(&dst)
				dst.Close()
			}
			gocv.IMWrite(filepath.Join(crops, fmt.Sprintf("sheet%02d.png", s/per)), sheet)
			sheet.Close()
		}
		for _, m := range tiles {
			m.Close()
		}
	}()
	for ii, name := range ps.images {
		img := photoImage(t, ps, name)
		type rd struct {
			blob, face image.Rectangle
			s          string
		}
		var reads []rd
		candTrace = func(blob image.Rectangle, fv faceValue, shrunk bool) {
			reads = append(reads, rd{blob, fv.c.box(), fmt.Sprintf("%v\t%v\tweak=%v v=%d conf=%.2f lv=%d blobs=%d tmpl=%d shrunk=%v",
				blob, fv.c.box(), fv.c.weak, fv.value, fv.conf, fv.lv, fv.blobs, fv.tmpl, shrunk)})
		}
		dets, err := r.Read(img)
		candTrace = nil
		if err != nil {
			t.Fatal(err)
		}
		// r.frame still holds the image: its candidates again.
		cands, err := r.detect(image.Point{})
		if err != nil {
			t.Fatal(err)
		}
		if md := os.Getenv("DICEWATCH_MASK_DIR"); md != "" {
			// The segmentation mask (grey: found by outline) beside
			// the frame, candidates drawn on both.
			m := gocv.NewMat()
			gocv.CvtColor(r.mask, &m, gocv.ColorGrayToBGR)
			both := gocv.NewMat()
			gocv.Hconcat(img, m, &both)
			for _, c := range cands {
				col := color.RGBA{0, 0, 255, 0}
				if c.weak {
					col = color.RGBA{0, 200, 255, 0}
				}
				gocv.Rectangle(&both, c.box(), col, 1)
				gocv.Rectangle(&both, c.box().Add(image.Pt(img.Cols(), 0)), col, 1)
			}
			for _, g := range ps.dice[name] {
				gb := image.Rect(int(g.box[0]), int(g.box[1]), int(g.box[2]), int(g.box[3]))
				gocv.Rectangle(&both, gb.Add(image.Pt(img.Cols(), 0)), color.RGBA{0, 255, 0, 0}, 1)
			}
			gocv.IMWrite(filepath.Join(md, name[:len(name)-4]+".png"), both)
			both.Close()
			m.Close()
		}
		truth := ps.dice[name]
		got := map[int]bool{}
		usedDet := map[int]bool{}
		for _, p := range match(truth, dets) {
			got[p[0]] = true
			usedDet[p[1]] = true
		}
		for i, g := range truth {
			if got[i] {
				continue
			}
			half[ii%2]++
			best, bv := -1, 0.0
			for j, d := range dets {
				if v := iou(g.box, d.Box); v > bv {
					best, bv = j, v
				}
			}
			bc, bcv := -1, 0.0
			for j, c := range cands {
				if v := iou(g.box, c.box()); v > bcv {
					bc, bcv = j, v
				}
			}
			group := "none"
			line := fmt.Sprintf("%s\t%d\tgt=%.0f v=%d e=%.0f", name, i, g.box, g.value, math.Sqrt((g.box[2]-g.box[0])*(g.box[3]-g.box[1])))
			if best >= 0 {
				d := dets[best]
				group = "low"
				if usedDet[best] {
					group = "taken"
				}
				line += fmt.Sprintf("\tdet=%v v=%d conf=%.2f edge=%.1f flat=%.2f sr=%.2f iou=%.2f", d.Box, d.Value, d.Confidence, d.EdgePx, d.Flatness, d.SizeRatio, bv)
			} else if bc < 0 {
				group = "nocand"
			}
			if bc >= 0 {
				c := cands[bc]
				line += fmt.Sprintf("\tcand=%v e=%.1f w=%.1f h=%.1f sr=%.2f flat=%.2f weak=%v guess=%v iou=%.2f", c.box(), c.edge, c.w, c.h, c.sizeRatio, c.flatness, c.weak, c.guess, bcv)
			}
			groups[group]++
			fmt.Fprintf(f, "%s\t%s\n", group, line)
			for _, x := range reads {
				if iou(g.box, x.blob) >= 0.3 || iou(g.box, x.face) >= 0.3 {
					fmt.Fprintf(f, "\t\tread %s\n", x.s)
				}
			}
			if crops != "" {
				gb := image.Rect(int(g.box[0]), int(g.box[1]), int(g.box[2]), int(g.box[3]))
				cr := gb.Inset(-40).Intersect(image.Rect(0, 0, img.Cols(), img.Rows()))
				sub := img.Region(cr)
				c := sub.Clone()
				sub.Close()
				for _, cd := range cands {
					if b := cd.box(); b.Overlaps(cr) {
						gocv.Rectangle(&c, b.Sub(cr.Min), color.RGBA{128, 128, 128, 0}, 1)
					}
				}
				gocv.Rectangle(&c, gb.Sub(cr.Min), color.RGBA{0, 255, 0, 0}, 1)
				for _, d := range dets {
					if d.Box.Overlaps(cr) {
						gocv.Rectangle(&c, d.Box.Sub(cr.Min), color.RGBA{0, 0, 255, 0}, 1)
					}
				}
				big := gocv.NewMat()
				gocv.Resize(c, &big, image.Pt(tileSide, tileSide), 0, 0, gocv.InterpolationNearestNeighbor)
				gocv.PutText(&big, fmt.Sprintf("%s %s %d", group, name[len(name)-10:len(name)-4], i), image.Pt(2, 12), gocv.FontHersheyPlain, 0.9, color.RGBA{255, 0, 255, 0}, 1)
				tiles = append(tiles, big)
				c.Close()
			}
		}
		img.Close()
	}
	logCounts(t, "%s: %d", groups)
	t.Logf("misses on even images %d, odd images %d", half[0], half[1])
}

// logCounts logs each key of m and its count, keys in order, with format
// (a string verb, then a number's).
func logCounts(t testing.TB, format string, m map[string]int) {
	t.Helper()
	for _, k := range slices.Sorted(maps.Keys(m)) {
		t.Logf(format, k, m[k])
	}
}

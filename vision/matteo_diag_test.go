package vision

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"testing"

	"gocv.io/x/gocv"
)

// TestMissDiag lists every matteo_webcam label the reader does not match
// (IoU >= 0.3 with a detection's box or pip box), with the detection that
// overlaps it most, as lines to DICEWATCH_MISS_DIAG, and sums them by
// group: "none" (no detection overlaps the label), "unread" (the
// overlapping detection has no value), "read" (it has one), and by class
// (missClass): a box of no die-sized thing can reach the label's when it
// is a lone 1's loose box. With
// DICEWATCH_MISS_CROPS (a directory) it writes one crop per miss there.
// It is a tuning tool: skipped without DICEWATCH_MISS_DIAG.
func TestMissDiag(t *testing.T) {
	f := diagFile(t, "DICEWATCH_MISS_DIAG")
	crops := os.Getenv("DICEWATCH_MISS_CROPS")
	ps := loadPhotoSet(t, "matteo_webcam")
	r := NewReader(ReaderOptions{})
	defer r.Close()
	groups, classes := map[string]int{}, map[string]int{}
	for _, name := range ps.images {
		img := photoImage(t, ps, name)
		dets, err := r.Read(img)
		if err != nil {
			t.Fatal(err)
		}
		truth := ps.dice[name]
		got := map[int]bool{}
		for _, p := range matchBoxes(truth, dets, true) {
			got[p[0]] = true
		}
		for i, g := range truth {
			if got[i] {
				continue
			}
			best, bv := -1, 0.0
			for j, d := range dets {
				v := math.Max(iou(g.box, d.Box), iou(g.box, d.PipBox))
				if v > bv {
					best, bv = j, v
				}
			}
			group := "none"
			line := fmt.Sprintf("%s\t%d\tgt=%v v=%d", name, i, g.box, g.value)
			if best >= 0 {
				d := dets[best]
				group = "read"
				if d.Value == 0 {
					group = "unread"
				}
				line += fmt.Sprintf("\tdet=%v pip=%v v=%d conf=%.2f edge=%.1f flat=%.2f sr=%.2f iou=%.2f", d.Box, d.PipBox, d.Value, d.Confidence, d.EdgePx, d.Flatness, d.SizeRatio, bv)
			}
			groups[group]++
			class := missClass(g, dets)
			classes[class]++
			fmt.Fprintf(f, "%s\t%s\t%s\n", group, class, line)
			if crops != "" {
				gb := image.Rect(int(g.box[0]), int(g.box[1]), int(g.box[2]), int(g.box[3]))
				cr := gb.Inset(-40).Intersect(image.Rect(0, 0, img.Cols(), img.Rows()))
				sub := img.Region(cr)
				c := sub.Clone()
				sub.Close()
				gocv.Rectangle(&c, gb.Sub(cr.Min), color.RGBA{0, 255, 0, 0}, 1)
				for _, d := range dets {
					if d.Box.Overlaps(cr) {
						col := color.RGBA{255, 0, 0, 0}
						if d.Value == 0 {
							col = color.RGBA{0, 200, 255, 0}
						}
						gocv.Rectangle(&c, d.Box.Sub(cr.Min), col, 1)
					}
				}
				big := gocv.NewMat()
				gocv.Resize(c, &big, image.Pt(0, 0), 3, 3, gocv.InterpolationNearestNeighbor)
				gocv.IMWrite(filepath.Join(crops, fmt.Sprintf("%s_%s_%d.png", group, name[:len(name)-4], i)), big)
				big.Close()
				c.Close()
			}
		}
		img.Close()
	}
	logCounts(t, "%s: %d", groups)
	logCounts(t, "class %s: %d", classes)
}

// missClass sorts an unmatched label: "a:none" (no detection overlaps
// it), "a:off" (detections overlap it, none holds its centre), "d:split"
// (two or more detections hold its centre: one die found in parts),
// "c:loose1" (a lone 1 in one detection whose pip box is the pip, yet the
// label is so much larger than the pip and so much smaller than the
// detection's box that neither box could reach IoU 0.3 with it, however
// placed: IoU is at most the smaller area over the larger), else
// "e:other" (a box off the die's top face, a pip box of too few pips).
func missClass(g gtDie, dets []Detection) string {
	cx, cy := (g.box[0]+g.box[2])/2, (g.box[1]+g.box[3])/2
	var in []Detection
	near := false
	for _, d := range dets {
		if math.Max(iou(g.box, d.Box), iou(g.box, d.PipBox)) > 0 {
			near = true
		}
		if cx >= float64(d.Box.Min.X) && cx <= float64(d.Box.Max.X) && cy >= float64(d.Box.Min.Y) && cy <= float64(d.Box.Max.Y) {
			in = append(in, d)
		}
	}
	switch {
	case len(in) == 0 && !near:
		return "a:none"
	case len(in) == 0:
		return "a:off"
	case len(in) > 1:
		return "d:split"
	}
	d := in[0]
	area := (g.box[2] - g.box[0]) * (g.box[3] - g.box[1])
	pa := float64(d.PipBox.Dx() * d.PipBox.Dy())
	ba := float64(d.Box.Dx() * d.Box.Dy())
	if g.value == 1 && d.Value <= 1 && pa > 0 && pa < 0.3*area && area < 0.3*ba {
		return "c:loose1"
	}
	return "e:other"
}

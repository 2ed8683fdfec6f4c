package vision

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"gocv.io/x/gocv"
)

// TestClusterDiff reads every image of the photo set named by
// DICEWATCH_CLUSTER_DIFF (byler_d6, matteo_webcam) with pipClusterCands
// off and on, and prints the detections that differ ("-" before, "+"
// after, with the best IoU of a "+" against the labels). It is a tuning
// tool: skipped without DICEWATCH_CLUSTER_DIFF.
func TestClusterDiff(t *testing.T) {
	set := os.Getenv("DICEWATCH_CLUSTER_DIFF")
	if set == "" {
		t.Skip("DICEWATCH_CLUSTER_DIFF not set")
	}
	defer func() { clusterOff = false }()
	ps := loadPhotoSet(t, set)
	r := NewReader(ReaderOptions{})
	defer r.Close()
	for _, name := range ps.images {
		img := gocv.IMRead(filepath.Join(photoRoot, ps.name, "images", name), gocv.IMReadColor)
		clusterOff = true
		a, _ := r.Read(img)
		clusterOff = false
		b, _ := r.Read(img)
		img.Close()
		key := func(d Detection) string {
			return fmt.Sprintf("%v pip=%v v=%d c=%.2f", d.Box, d.PipBox, d.Value, d.Confidence)
		}
		ma, mb := map[string]bool{}, map[string]bool{}
		for _, d := range a {
			ma[key(d)] = true
		}
		for _, d := range b {
			mb[key(d)] = true
		}
		for _, d := range a {
			if !mb[key(d)] {
				fmt.Printf("%s\t-\t%s\n", name, key(d))
			}
		}
		for _, d := range b {
			if !ma[key(d)] {
				best := 0.0
				for _, g := range ps.dice[name] {
					best = max(best, iou(g.box, d.Box), iou(g.box, d.PipBox))
				}
				fmt.Printf("%s\t+\t%s\tiou=%.2f\n", name, key(d), best)
			}
		}
	}
}

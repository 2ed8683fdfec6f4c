package vision

import (
	"fmt"
	"image"
	"io"
	"os"
	"path/filepath"
	"testing"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/vision/scene"
)

// TestLowNetLook reads the byler_d6 die lowNetLook gives (read with the
// fold nets, as TestAccuracyPhotos) and checks that it reads its label
// with the look and is unread without it.
func TestLowNetLook(t *testing.T) {
	if testing.Short() {
		t.Skip("reads byler photos")
	}
	// A 3 whose layout and template agree at low confidence (no layout
	// score), the net reading 3 on both patches under netLook's margin.
	const image, idx, value = "IMG_20191209_095533.jpg", 7, 3
	read := bylerHeldOutRead(t)
	if v := read(image, idx); v != value {
		t.Errorf("%s die %d: read %d, want %d", image, idx, v, value)
	}
	lowNetOff = true
	v := read(image, idx)
	lowNetOff = false
	if v != 0 {
		t.Errorf("%s die %d: read %d without lowNetLook, want unread", image, idx, v)
	}
}

// TestLowNetDiag lists every value lowNetLook gives on both photo sets
// (read with the fold nets, as TestAccuracyPhotos) with the label it
// matches (0: none). A tuning tool: skipped without DICEWATCH_LOWNET_DIAG
// (a file).
func TestLowNetDiag(t *testing.T) {
	f := diagFile(t, "DICEWATCH_LOWNET_DIAG")
	photoLookDiag(t, f, func(fn func(d *Detection, fv faceValue)) { lowNetTrace = fn })
}

// photoLookDiag writes to f every value a look gives on both photo sets
// (read with the fold nets, as TestAccuracyPhotos) with the label it
// matches (0: none); setTrace sets the look's trace (nil: none).
func photoLookDiag(t *testing.T, f io.Writer, setTrace func(func(d *Detection, fv faceValue))) {
	fmt.Fprintln(f, "set\timage\tvalue\tconf\tlabel\tbox")
	defer setTrace(nil)
	for _, set := range []string{"byler_d6", "matteo_webcam"} {
		ps := loadPhotoSet(t, set)
		r := NewReader(ReaderOptions{})
		var gs []image.Rectangle
		setTrace(func(d *Detection, _ faceValue) { gs = append(gs, d.Box) })
		readPhotos(t, ps, r, func(string) { gs = gs[:0] }, func(_ int, name string, _ gocv.Mat, dets []Detection) {
			for _, b := range gs {
				label := 0
				for _, p := range matchBoxes(ps.dice[name], dets, set == "matteo_webcam") {
					if dets[p[1]].Box == b {
						label = ps.dice[name][p[0]].value
					}
				}
				for _, d := range dets {
					if d.Box == b {
						fmt.Fprintf(f, "%s\t%s\t%d\t%.2f\t%d\t%v\n", set, name, d.Value, d.Confidence, label, d.Box)
					}
				}
			}
		})
		r.Close()
	}
}

// TestLowNetStills lists every value lowNetLook gives on the stills
// DICEWATCH_STILL_FIRST.. (readStills), with the true die it matches (0:
// none, a value on no die). A tuning tool: skipped without
// DICEWATCH_LOWNET_STILLS (a file); DICEWATCH_LOWNET_PNG (a directory)
// also saves each still where the look gave a value.
func TestLowNetStills(t *testing.T) {
	f := diagFile(t, "DICEWATCH_LOWNET_STILLS")
	n := stillLookDiag(t, f, os.Getenv("DICEWATCH_LOWNET_PNG"), func(fn func(d *Detection, fv faceValue)) { lowNetTrace = fn })
	t.Logf("%d values from lowNetLook", n)
}

// stillLookDiag writes to f every value a look gives on the stills
// DICEWATCH_STILL_FIRST.. (readStills) with the true die it matches (0:
// none) and returns their count; png, when set, is a directory for each
// still where the look gave a value. setTrace sets the look's trace.
func stillLookDiag(t *testing.T, f io.Writer, png string, setTrace func(func(d *Detection, fv faceValue))) int {
	fmt.Fprintln(f, "seed\tmode\tvalue\tconf\ttruth\tgroup\tbox")
	defer setTrace(nil)
	var gs []image.Rectangle
	setTrace(func(d *Detection, _ faceValue) { gs = append(gs, d.Box) })
	n := 0
	readStills(t, func() { gs = gs[:0] }, func(seed int64, mode string, img gocv.Mat, tr scene.StillTruth, dets []Detection) {
		if png != "" && len(gs) > 0 {
			gocv.IMWrite(filepath.Join(png, fmt.Sprintf("%d_%s.png", seed, mode)), img)
		}
		for _, b := range gs {
			truth, group := 0, "none"
			for _, p := range matchStill(tr.Dice, dets) {
				if dets[p[1]].Box == b {
					truth, group = tr.Dice[p[0]].Value, stillGroup(tr.Dice[p[0]])
				}
			}
			for _, d := range dets {
				if d.Box == b {
					n++
					fmt.Fprintf(f, "%d\t%s\t%d\t%.2f\t%d\t%s\t%v\n", seed, mode, d.Value, d.Confidence, truth, group, d.Box)
				}
			}
		}
	})
	return n
}

package vision

import (
	"bufio"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/vision/scene"
)

// cockRowLen is the number of float32s per row TestCockNetExport writes:
// the net's input (grid and scalars), then label (1 cocked), mode (1
// calibrated), group (0 clean, 1 cocked, 2 stacked, 3 under a stack, 4
// blurred, 5 a real photo's die, 6 a detection matching no die), seed,
// die index, the die's tilt, the reader's Flat, value, true value,
// confidence.
const cockRowLen = cockIn + cockExtra + 10

// TestCockNetExport writes the cocked net's inputs for every detection
// of the generated stills (both modes) and, with
// DICEWATCH_COCK_EXPORT_PHOTOS=1, of the two photo sets, for
// tools/cocknet/train.py:
//
//	DICEWATCH_COCK_EXPORT=/tmp/ck.bin DICEWATCH_STILLS=2000 DICEWATCH_STILL_FIRST=22000 go test -count=1 -run CockNetExport -v -timeout 60m ./vision/
func TestCockNetExport(t *testing.T) {
	path := os.Getenv("DICEWATCH_COCK_EXPORT")
	if path == "" {
		t.Skip("DICEWATCH_COCK_EXPORT not set")
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	defer w.Flush()
	var sc cockScratch
	row := make([]float32, cockRowLen)
	put := func(r *Reader, d Detection, meta [10]float32) {
		pix, _ := r.frame.DataPtrUint8()
		fr := bgrImage{pix: pix, w: r.frame.Cols(), h: r.frame.Rows()}
		sc.cockInput(fr, d.CX, d.CY, r.cockEdge(d), row[:cockIn])
		row[cockIn], row[cockIn+1] = cockScalars(d)
		copy(row[cockIn+cockExtra:], meta[:])
		if err := binary.Write(w, binary.LittleEndian, row); err != nil {
			t.Fatal(err)
		}
	}
	b2f := func(b bool) float32 {
		if b {
			return 1
		}
		return 0
	}
	if os.Getenv("DICEWATCH_COCK_EXPORT_PHOTOS") == "1" {
		for _, set := range []string{"byler_d6", "matteo_webcam"} {
			ps := loadPhotoSet(t, set)
			r := NewReader(ReaderOptions{})
			for _, name := range ps.images {
				img := gocv.IMRead(filepath.Join(photoRoot, ps.name, "images", name), gocv.IMReadColor)
				dets, err := r.Read(img)
				if err != nil {
					t.Fatal(err)
				}
				for _, d := range dets {
					put(r, d, [10]float32{0, 0, 5, 0, 0, 0, b2f(d.Flat), float32(d.Value), 0, float32(d.Confidence)})
				}
				img.Close()
			}
			r.Close()
		}
	}
	n := stillCount(t, 0)
	plain := NewReader(ReaderOptions{})
	defer plain.Close()
	cal := NewReader(ReaderOptions{DiePx: 1, PipSpread: stillPipSpread})
	defer cal.Close()
	groupCode := map[string]float32{"clean": 0, "cocked": 1, "stacked": 2, "under-stack": 3, "blurred": 4}
	for seed := stillFirst(t); seed < stillFirst(t)+int64(n); seed++ {
		img, tr, err := scene.Still(seed, scene.StillOptions{})
		if err != nil {
			t.Fatal(err)
		}
		coverByStacked(tr.Dice)
		for _, calib := range []bool{true, false} {
			r := plain
			if calib {
				cal.opts.DiePx = tr.EdgePx
				r = cal
			}
			dets, err := r.Read(img)
			if err != nil {
				t.Fatal(err)
			}
			of := make([]int, len(dets))
			for i := range of {
				of[i] = -1
			}
			for _, p := range matchStill(tr.Dice, dets) {
				of[p[1]] = p[0]
			}
			for j, d := range dets {
				meta := [10]float32{0, b2f(calib), 6, float32(seed), -1, 0, b2f(d.Flat), float32(d.Value), 0, float32(d.Confidence)}
				if i := of[j]; i >= 0 {
					g := tr.Dice[i]
					grp := groupCode[stillGroup(g)]
					meta[0] = b2f(grp == 1)
					meta[2], meta[4], meta[5], meta[8] = grp, float32(i), float32(g.TiltDeg), float32(g.Value)
				}
				put(r, d, meta)
			}
		}
		img.Close()
	}
}

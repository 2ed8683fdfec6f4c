package vision

import (
	"image"
	"os"
	"testing"

	"gocv.io/x/gocv"
)

func TestScratchMask(t *testing.T) {
	p := os.Getenv("DW_IMG")
	if p == "" {
		t.Skip()
	}
	img := gocv.IMRead(p, gocv.IMReadColor)
	defer img.Close()
	r := NewReader(ReaderOptions{})
	defer r.Close()
	debugOn = true
	d, err := r.Read(img)
	t.Log(len(d), err)
	for _, x := range d {
		t.Logf("%+v", x)
	}
	gocv.IMWrite("/tmp/dbg/mask.png", r.mask)
	gocv.IMWrite("/tmp/dbg/bg.png", r.bg)
	gocv.IMWrite("/tmp/dbg/diff.png", r.diff)
}

func TestScratchStats(t *testing.T) {
	if os.Getenv("DW_STATS") == "" {
		t.Skip()
	}
	debugStats = map[string]int{}
	debugKind = os.Getenv("DW_KIND")
	debugGrid = image.NewRGBA(image.Rect(0, 0, 8*faceN*6, 8*faceN*3))
	defer debugGridSave("/tmp/dbg/grid.png")
	ps := loadPhotoSet(t, os.Getenv("DW_STATS"))
	r := NewReader(ReaderOptions{})
	defer r.Close()
	evalPhotoSet(t, ps, r)
	for k, v := range debugStats {
		t.Logf("%5d %s", v, k)
	}
}

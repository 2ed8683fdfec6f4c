package vision

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"gocv.io/x/gocv"
)

// TestPipTurnDbg prints, for each unreadable or wrong byler die, what
// pipTurn finds on the first look's rectangle.
func TestPipTurnDbg(t *testing.T) {
	if os.Getenv("DICEWATCH_PIPTURN_DBG") == "" {
		t.Skip()
	}
	set := os.Getenv("DICEWATCH_PIPTURN_DBG")
	ps := loadPhotoSet(t, set)
	r := NewReader(ReaderOptions{})
	defer r.Close()
	s := &r.face
	for _, name := range ps.images {
		img := gocv.IMRead(filepath.Join(photoRoot, ps.name, "images", name), gocv.IMReadColor)
		dets, infos := diagRead(t, r, img)
		pix, _ := r.frame.DataPtrUint8()
		fr := bgrImage{pix: pix, w: r.frame.Cols(), h: r.frame.Rows()}
		for _, p := range matchBoxes(ps.dice[name], dets, set == "matteo_webcam") {
			g, d := ps.dice[name][p[0]], dets[p[1]]
			if d.Value == g.value {
				continue
			}
			in := infos[p[1]]
			c := in.firstC
			s.sample(fr, c)
			s.pipMap()
			bl, _ := s.blobs()
			pk := s.peaks()
			ct, ok := s.pipTurn(fr, c)
			turn := ct.angle - c.angle
			st := ""
			if ok {
				fv := s.read1(fr, ct)
				st = fmt.Sprintf("v%d c%.2f b%d lv%d tv%d ls%.2f n%.2f e%.2f j%v", fv.value, fv.conf, fv.blobs, fv.lv, fv.tmpl, fv.lscore, fv.nccScore, fv.empty, fv.junk)
			}
			fmt.Printf("PT\t%s\t%d\t%d\tread %d\tb%d p%d\t%v %.1f\t%s\t%s\n", name, p[0], g.value, d.Value, len(bl), len(pk), ok, turn*57.3, st, okTurns(in.oracle, g.value))
		}
		img.Close()
	}
}

// TestBlobSizeDbg prints, for every matched die, the truth, the value
// read, and the first look's blobs (count, largest and median area).
func TestBlobSizeDbg(t *testing.T) {
	set := os.Getenv("DICEWATCH_BLOBSIZE_DBG")
	if set == "" {
		t.Skip()
	}
	ps := loadPhotoSet(t, set)
	r := NewReader(ReaderOptions{})
	defer r.Close()
	s := &r.face
	for _, name := range ps.images {
		img := gocv.IMRead(filepath.Join(photoRoot, ps.name, "images", name), gocv.IMReadColor)
		dets, infos := diagRead(t, r, img)
		pix, _ := r.frame.DataPtrUint8()
		fr := bgrImage{pix: pix, w: r.frame.Cols(), h: r.frame.Rows()}
		for _, p := range matchBoxes(ps.dice[name], dets, set == "matteo_webcam") {
			g, d := ps.dice[name][p[0]], dets[p[1]]
			c := infos[p[1]].firstC
			s.sample(fr, c)
			s.pipMap()
			fv := s.cues(c)
			big := 0
			for _, b := range s.keptSave {
				big = max(big, b.area)
			}
			fmt.Printf("BS\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%.2f\t%.2f\n", name, p[0], g.value, d.Value, len(s.keptSave), big, fv.lv, fv.tmpl, fv.lscore, fv.nccScore)
		}
		img.Close()
	}
}

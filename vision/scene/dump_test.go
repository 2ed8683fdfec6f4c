package scene

import (
	"fmt"
	"image"
	"image/color"
	"os"
	"testing"

	"gocv.io/x/gocv"
)

// TestDump writes frames of every throw kind (and 6x crops of the dice at
// rest) as PNGs for a person to look at: SCENE_DUMP=/tmp/dump go test -run TestDump
func TestDump(t *testing.T) {
	dir := os.Getenv("SCENE_DUMP")
	if dir == "" {
		t.Skip("set SCENE_DUMP=dir")
	}
	s, err := NewSession(Config{Seed: 7, Throws: 7, Kinds: Kinds()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	m := gocv.NewMat()
	defer m.Close()
	for _, tt := range s.Truth() {
		for _, k := range []int{tt.StartFrame + 5, tt.AtRestFrame + 3, s.frameAtOrAfter(float64(tt.CollectMS)/1000 + 0.5)} {
			if _, err := s.Render(k, &m); err != nil {
				t.Fatal(err)
			}
			gocv.IMWrite(dir+"/"+string(tt.Kind)+"_"+itoa(k)+".png", m)
			for _, d := range tt.Dice {
				if d.Exited {
					continue
				}
				b := image.Rect(d.Box[0]-30, d.Box[1]-30, d.Box[2]+30, d.Box[3]+30).Intersect(image.Rect(0, 0, m.Cols(), m.Rows()))
				roi := m.Region(b)
				big := gocv.NewMat()
				gocv.Resize(roi, &big, image.Point{}, 6, 6, gocv.InterpolationNearestNeighbor)
				gocv.IMWrite(dir+"/crop_"+string(tt.Kind)+"_"+itoa(k)+"_"+itoa(d.Die)+".png", big)
				big.Close()
				roi.Close()
			}
		}
		t.Logf("%+v", tt)
	}
}

func itoa(i int) string {
	return fmt.Sprintf("%04d", i)
}

// TestDumpStills writes still scenes with their top-face boxes drawn.
func TestDumpStills(t *testing.T) {
	dir := os.Getenv("SCENE_DUMP")
	if dir == "" {
		t.Skip("set SCENE_DUMP=dir")
	}
	for seed := int64(1); seed <= 8; seed++ {
		m, tr, err := Still(seed, StillOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range tr.Dice {
			gocv.Rectangle(&m, image.Rect(d.Box[0], d.Box[1], d.Box[2], d.Box[3]), color.RGBA{255, 0, 255, 255}, 1)
		}
		gocv.IMWrite(dir+"/still_"+itoa(int(seed))+".png", m)
		m.Close()
		t.Logf("%d: %s tilt %.0f edge %.0f blur %.1f noise %.1f q %d dice %d", seed, tr.Background, tr.CameraTiltDeg, tr.EdgePx, tr.Blur, tr.Noise, tr.JPEGQuality, len(tr.Dice))
	}
}

package motion

import (
	"fmt"
	"testing"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/calibration"
	"github.com/dicewatch/dicewatch/vision/scene"
)

func TestDbgScene(t *testing.T) {
	s, _ := scene.NewSession(scene.Config{Seed: 1, Throws: 37, Camera: scene.Camera{Width: 1280, Height: 720, FPS: 30}})
	defer s.Close()
	cal := s.Calibration()
	tr := New(Config{DiePx: cal.DiePx(calibration.Point{X: 640, Y: 360}), ZoneOf: ExitZoneOf(cal)})
	defer tr.Close()
	m := gocv.NewMat()
	defer m.Close()
	for k := 0; k < 4192; k++ {
		if k < 4100 && (k < 4000 || k%2 == 0) && false {
			continue
		}
		ft, _ := s.Render(k, &m)
		r := tr.Update(m, ft.TMS)
		if k >= 4185 {
			fmt.Printf("%d truth %+v\n  res phase=%s motion=%v exits=%v dice=%+v\n", k, ft.Dice, r.Phase, r.Motion, r.Exits, r.Dice)
			for _, b := range tr.blobs { fmt.Printf("    blob %v area %d c %.1f,%.1f mv %v\n", b.box, b.area, b.cx, b.cy, b.moving) }
			for _, x := range tr.tracks { fmt.Printf("    track %d c %.1f,%.1f v %.1f,%.1f age %d miss %d\n", x.id, x.cx, x.cy, x.vx, x.vy, x.age, x.miss) }
		}
	}
}

package motion

import (
	"fmt"
	"os"
	"syscall"
	"testing"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/calibration"
	"github.com/dicewatch/dicewatch/vision/scene"
)

// BenchmarkUpdate is the per-frame stage (downscale, motion, background,
// tracking) on generated throw frames at three camera sizes. Run on one core:
//
//	go test -run '^$' -bench BenchmarkUpdate -cpu 1 ./vision/motion
func BenchmarkUpdate(b *testing.B) {
	for _, sz := range benchSizes() {
		b.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(b *testing.B) {
			s, err := scene.NewSession(scene.Config{Seed: 3, Throws: 2, Camera: scene.Camera{Width: sz[0], Height: sz[1], FPS: 30}})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			// A loop of pre-rendered frames from the throws, so the
			// benchmark times the tracker only.
			n := min(s.Frames(), 240)
			frames := make([]gocv.Mat, n)
			times := make([]int64, n)
			for k := range frames {
				frames[k] = gocv.NewMat()
				defer frames[k].Close()
				ft, err := s.Render(k, &frames[k])
				if err != nil {
					b.Fatal(err)
				}
				times[k] = ft.TMS
			}
			cal := s.Calibration()
			tr := New(Config{DiePx: cal.DiePx(calibration.Point{X: float64(sz[0]) / 2, Y: float64(sz[1]) / 2}), ZoneOf: ExitZoneOf(cal)})
			defer tr.Close()
			period := times[n-1] + 33
			b.ResetTimer()
			c0 := cpuTime()
			for i := 0; i < b.N; i++ {
				k := i % n
				tr.Update(frames[k], times[k]+int64(i/n)*period)
			}
			b.StopTimer()
			// CPU time spent by the whole process (every thread) per
			// frame: what one core pays, whatever else shares the machine.
			b.ReportMetric(float64(cpuTime()-c0)/float64(b.N), "cpu-ns/op")
		})
	}
}

// benchSizes are the camera sizes benchmarked; DICEWATCH_BENCH_RES narrows
// them to one ("1280x720").
func benchSizes() [][2]int {
	all := [][2]int{{640, 480}, {1280, 720}, {1920, 1080}}
	if v := os.Getenv("DICEWATCH_BENCH_RES"); v != "" {
		var w, h int
		if _, err := fmt.Sscanf(v, "%dx%d", &w, &h); err == nil {
			return [][2]int{{w, h}}
		}
	}
	return all
}

// cpuTime is the process's user+system CPU time in ns.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

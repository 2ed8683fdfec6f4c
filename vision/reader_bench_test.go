package vision

import (
	"image"
	"path/filepath"
	"runtime"
	"sort"
	"syscall"
	"testing"
	"time"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/vision/motion"
)

// cpuTime is the process's user+system CPU time so far. On a shared,
// loaded machine it is a fairer per-read cost than wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU adds the mean CPU ms per iteration since start.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64((cpuTime()-start).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// reportMedian adds the median per-iteration time in ms to a benchmark.
func reportMedian(b *testing.B, d []time.Duration) {
	if len(d) == 0 {
		return
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	b.ReportMetric(float64(d[len(d)/2].Microseconds())/1000, "ms-median")
}

// BenchmarkReadPhoto640 is `dicewatch read` on a 640x640 photo: decode and
// read, as in the command's ms field.
// Run: go test -run '^$' -bench ReadPhoto640 -cpu 1 ./vision/
func BenchmarkReadPhoto640(b *testing.B) {
	path := filepath.Join(photoRoot, "byler_d6", "images", "IMG_20191208_111228.jpg")
	r := NewReader(ReaderOptions{})
	defer r.Close()
	if _, err := r.ReadFile(path); err != nil {
		b.Fatal(err)
	}
	times := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := r.ReadFile(path); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(t0))
	}
	reportMedian(b, times)
	reportCPU(b, cpu0)
}

// BenchmarkReadAtRest720 is a calibrated read of a 1280x720 at-rest frame
// with two casino dice, whole frame and around the dice only.
// Run: go test -run '^$' -bench ReadAtRest720 -cpu 1 ./vision/
func BenchmarkReadAtRest720(b *testing.B) {
	dice := []synthDie{{cx: 600, cy: 380, edge: 30, angle: 0.3, value: 5}, {cx: 680, cy: 350, edge: 30, angle: 1.1, value: 2}}
	img := drawTable(1280, 720, dice, 1)
	defer img.Close()
	opts := ReaderOptions{ExpectedEdgePx: func(x, y float64) float64 { return 30 }}
	for _, bc := range []struct {
		name string
		roi  image.Rectangle
	}{
		{"frame", image.Rect(0, 0, 1280, 720)},
		{"region", image.Rect(480, 250, 800, 480)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			r := NewReader(opts)
			defer r.Close()
			times := make([]time.Duration, 0, b.N)
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				got, err := r.ReadRegion(img, bc.roi)
				if err != nil {
					b.Fatal(err)
				}
				times = append(times, time.Since(t0))
				if len(got) != 2 {
					b.Fatalf("found %d dice, want 2", len(got))
				}
			}
			reportMedian(b, times)
			reportCPU(b, cpu0)
		})
	}
	// The daemon's read of the same frame: the at-rest reader against the
	// empty table, around the places where the tracker saw the dice stop.
	b.Run("daemon", func(b *testing.B) {
		bg := drawTable(1280, 720, nil, 2) // the empty table, other camera noise
		defer bg.Close()
		ar := &motion.AtRest{}
		for _, d := range dice {
			box := image.Rect(int(d.cx-d.edge), int(d.cy-d.edge), int(d.cx+d.edge), int(d.cy+d.edge))
			ar.Dice = append(ar.Dice, motion.Candidate{Box: box, CX: d.cx, CY: d.cy})
		}
		dieAt := func(x, y float64) float64 { return 30 }
		times := make([]time.Duration, 0, b.N)
		cpu0 := cpuTime()
		for i := 0; i < b.N; i++ {
			t0 := time.Now()
			got, err := readAtRest(nil, img, bg, ar, dieAt)
			if err != nil {
				b.Fatal(err)
			}
			times = append(times, time.Since(t0))
			if len(got) != 2 || got[0].Value*got[1].Value != dice[0].value*dice[1].value {
				b.Fatalf("read %+v, want two read dice", got)
			}
		}
		reportMedian(b, times)
		reportCPU(b, cpu0)
	})
}

// BenchmarkReadPhotoSets reads every image of both photo sets (decoded
// beforehand) once per iteration; for profiling where a photo read's time
// goes on real photos rather than on one bench image.
// Run: go test -run '^$' -bench ReadPhotoSets -cpu 1 -benchtime 1x -cpuprofile cpu.out ./vision/
func BenchmarkReadPhotoSets(b *testing.B) {
	var imgs []gocv.Mat
	defer func() {
		for _, m := range imgs {
			m.Close()
		}
	}()
	for _, set := range []string{"byler_d6", "matteo_webcam"} {
		ps := loadPhotoSet(b, set)
		for _, name := range ps.images {
			imgs = append(imgs, gocv.IMRead(filepath.Join(photoRoot, set, "images", name), gocv.IMReadColor))
		}
	}
	r := NewReader(ReaderOptions{})
	defer r.Close()
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		for _, m := range imgs {
			if _, err := r.Read(m); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(b.N*len(imgs)), "cpu-ms/img")
}

// threadCPU is the calling thread's user+system CPU time so far.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkReadBylerFiles is `dicewatch read` over the byler photos (decode
// and read, as in the command's ms field): the median over the images of
// each read's CPU time on the reading thread (a machine shared with other
// work stretches wall time, not this), and the process's mean CPU time
// per image (OpenCV's worker threads too).
// Run: go test -run '^$' -bench ReadBylerFiles -cpu 1 -benchtime 1x ./vision/
func BenchmarkReadBylerFiles(b *testing.B) {
	ps := loadPhotoSet(b, "byler_d6")
	r := NewReader(ReaderOptions{})
	defer r.Close()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var per []time.Duration
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		for _, name := range ps.images {
			t0 := threadCPU()
			if _, err := r.ReadFile(filepath.Join(photoRoot, "byler_d6", "images", name)); err != nil {
				b.Fatal(err)
			}
			per = append(per, threadCPU()-t0)
		}
	}
	n := len(per)
	sort.Slice(per, func(i, j int) bool { return per[i] < per[j] })
	b.ReportMetric(float64(per[n/2].Microseconds())/1000, "thread-cpu-ms-median")
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(n), "cpu-ms/img")
}

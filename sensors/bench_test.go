package sensors_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/gpio/gpiotest"

	"github.com/dicewatch/dicewatch/sensors"
	"github.com/dicewatch/dicewatch/sensors/sensorstest"
)

// BenchmarkEdgeToEvent measures the wall time from an edge on a bare
// gpiotest pin to its event on Run's channel, through the pin reader, the
// filter and the trace recorder, on the real monotonic clock. It reports
// the median and 99th percentile per edge (ns). The first sub-benchmark
// has no debounce or denoise (the code path itself); the second has a
// 20 ms debounce, with a stream clock that moves 25 ms between edges so no
// edge waits for a lock (the wall time measured is still real).
//
//	go test -run '^$' -bench EdgeToEvent -benchtime 2000x ./sensors/
func BenchmarkEdgeToEvent(b *testing.B) {
	for _, bc := range []struct {
		name     string
		debounce int
	}{{"no_filter", 0}, {"debounce_20ms", 20}} {
		b.Run(bc.name, func(b *testing.B) {
			cfg := sensors.Config{Inputs: []sensors.Input{{Name: "beam", Role: sensors.RoleRail, Pin: "GPIO5",
				Active: "high", Pull: "down", DebounceMS: bc.debounce}}}
			pin := &gpiotest.Pin{N: "GPIO5", EdgesChan: make(chan gpio.Level)}
			var clk sensors.Clock = sensors.MonotonicClock{Origin: time.Now()}
			fake := sensorstest.NewClock(0)
			if bc.debounce > 0 {
				clk = fake
			}
			s, err := sensors.Open(cfg, func(string) (gpio.PinIO, error) { return pin, nil }, clk)
			if err != nil {
				b.Fatal(err)
			}
			s.PollTimeout = 50 * time.Millisecond
			out := make(chan sensors.Event, 16)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- s.Run(ctx, out, sensors.NewTraceWriter(discard{})) }()

			lat := make([]time.Duration, 0, b.N)
			level := gpio.Low
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if bc.debounce > 0 {
					// the stream clock moves past the previous edge's lock
					fake.Set(int64(i+1) * int64(bc.debounce+5))
				}
				level = !level
				t0 := time.Now()
				pin.EdgesChan <- level
				e := <-out
				lat = append(lat, time.Since(t0))
				if e.Active != bool(level) || e.Kind != sensors.KindEdge {
					b.Fatalf("edge %d: event %+v, want active=%v", i, e, level)
				}
			}
			b.StopTimer()
			cancel()
			if err := <-done; err != nil {
				b.Fatal(err)
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "median-ns/edge")
			b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds()), "p99-ns/edge")
		})
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

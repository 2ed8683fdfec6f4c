package ops_test

import (
	"fmt"
	"os"
	"time"

	"github.com/dicewatch/dicewatch/ops"
)

func ExampleRegistry() {
	r := ops.NewRegistry()
	throws := r.CounterVec("table_throws_total", "Throws by verdict.", "verdict")
	lat := r.Histogram("table_decide_seconds", "Decision latency.", []float64{0.001, 0.01})

	throws.With("valid").Inc()
	throws.With("no_roll").Add(2)
	lat.Observe(0.004)

	_ = r.WriteText(os.Stdout)
	// Output:
	// # HELP table_throws_total Throws by verdict.
	// # TYPE table_throws_total counter
	// table_throws_total{verdict="no_roll"} 2
	// table_throws_total{verdict="valid"} 1
	// # HELP table_decide_seconds Decision latency.
	// # TYPE table_decide_seconds histogram
	// table_decide_seconds_bucket{le="0.001"} 0
	// table_decide_seconds_bucket{le="0.01"} 1
	// table_decide_seconds_bucket{le="+Inf"} 1
	// table_decide_seconds_sum 0.004
	// table_decide_seconds_count 1
}

func ExampleMetrics_ObserveStage() {
	m := ops.NewMetrics("v0.1.0")
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	// In the frame loop: time each stage with the frame clock.
	m.ObserveStage(ops.StageCapture, start.Add(4*time.Millisecond).Sub(start))
	m.ObserveDecision("no_roll", "off_table")
	h := m.Stages[ops.StageCapture].Snapshot()
	fmt.Println(ops.StageCapture, h.Count, h.Sum)
	fmt.Println(m.Decisions.With("no_roll").Value(), m.DecisionReasons.With("off_table").Value())
	// Output:
	// capture 1 0.004
	// 1 1
}

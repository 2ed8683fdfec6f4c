package ops

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// exposition is the parsed text format: HELP and TYPE per family, and
// samples keyed by name plus sorted labels.
type exposition struct {
	help    map[string]string
	typ     map[string]string
	samples map[string]float64
	order   []string // family names in TYPE order
}

// sampleKey renders name{a="x",b="y"} with labels sorted, unescaped values.
func sampleKey(name string, labels map[string]string) string {
	if len(labels) == 0 {
		return name
	}
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(name + "{")
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%s=%q", k, labels[k])
	}
	b.WriteByte('}')
	return b.String()
}

// parseExposition is a small, strict parser of the text format: it fails on
// anything the format does not allow, so a writer bug cannot hide.
func parseExposition(t *testing.T, text string) exposition {
	t.Helper()
	e := exposition{help: map[string]string{}, typ: map[string]string{}, samples: map[string]float64{}}
	sc := bufio.NewScanner(strings.NewReader(text))
	lineNo := 0
	for sc.Scan() {
		lineNo++
		line := sc.Text()
		fail := func(msg string) { t.Fatalf("line %d %q: %s", lineNo, line, msg) }
		switch {
		case line == "":
			fail("empty line")
		case strings.HasPrefix(line, "# HELP "):
			name, help, ok := strings.Cut(strings.TrimPrefix(line, "# HELP "), " ")
			if !ok {
				fail("HELP without text")
			}
			if _, dup := e.help[name]; dup {
				fail("duplicate HELP")
			}
			h := strings.NewReplacer(`\\`, `\`, `\n`, "\n").Replace(help)
			e.help[name] = h
		case strings.HasPrefix(line, "# TYPE "):
			name, typ, ok := strings.Cut(strings.TrimPrefix(line, "# TYPE "), " ")
			if !ok || (typ != "counter" && typ != "gauge" && typ != "histogram") {
				fail("bad TYPE")
			}
			if _, dup := e.typ[name]; dup {
				fail("duplicate TYPE")
			}
			if _, ok := e.help[name]; !ok {
				fail("TYPE before HELP")
			}
			e.typ[name] = typ
			e.order = append(e.order, name)
		case strings.HasPrefix(line, "#"):
			fail("unexpected comment")
		default:
			name, labels, rest := parseSampleHead(t, line)
			if len(e.order) == 0 || !belongsTo(name, e.order[len(e.order)-1], e.typ[e.order[len(e.order)-1]]) {
				fail("sample outside its family")
			}
			v, err := parseValue(strings.TrimPrefix(rest, " "))
			if err != nil || !strings.HasPrefix(rest, " ") {
				fail("bad value")
			}
			key := sampleKey(name, labels)
			if _, dup := e.samples[key]; dup {
				fail("duplicate sample")
			}
			e.samples[key] = v
		}
	}
	return e
}

func belongsTo(sample, family, typ string) bool {
	if typ == "histogram" {
		return sample == family+"_bucket" || sample == family+"_sum" || sample == family+"_count"
	}
	return sample == family
}

func parseValue(s string) (float64, error) {
	switch s {
	case "+Inf":
		return math.Inf(1), nil
	case "-Inf":
		return math.Inf(-1), nil
	case "NaN":
		return math.NaN(), nil
	}
	return strconv.ParseFloat(s, 64)
}

func parseSampleHead(t *testing.T, line string) (name string, labels map[string]string, rest string) {
	t.Helper()
	i := strings.IndexAny(line, "{ ")
	if i <= 0 || !validName(line[:i]) {
		t.Fatalf("bad sample name in %q", line)
	}
	name, rest = line[:i], line[i:]
	labels = map[string]string{}
	if rest[0] != '{' {
		return name, labels, rest
	}
	rest = rest[1:]
	for {
		if strings.HasPrefix(rest, "}") {
			return name, labels, rest[1:]
		}
		eq := strings.Index(rest, `="`)
		if eq <= 0 || !validName(rest[:eq]) {
			t.Fatalf("bad label in %q", line)
		}
		lname := rest[:eq]
		rest = rest[eq+2:]
		var val strings.Builder
		for {
			if rest == "" {
				t.Fatalf("unterminated label value in %q", line)
			}
			c := rest[0]
			rest = rest[1:]
			if c == '"' {
				break
			}
			if c == '\\' {
				switch rest[0] {
				case '\\':
					val.WriteByte('\\')
				case '"':
					val.WriteByte('"')
				case 'n':
					val.WriteByte('\n')
				default:
					t.Fatalf("bad escape in %q", line)
				}
				rest = rest[1:]
				continue
			}
			if c == '\n' {
				t.Fatalf("raw newline in %q", line)
			}
			val.WriteByte(c)
		}
		if _, dup := labels[lname]; dup {
			t.Fatalf("duplicate label %s in %q", lname, line)
		}
		labels[lname] = val.String()
		if strings.HasPrefix(rest, ",") {
			rest = rest[1:]
		}
	}
}

func scrape(t *testing.T, r *Registry) exposition {
	t.Helper()
	var buf bytes.Buffer
	if err := r.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	return parseExposition(t, buf.String())
}

func TestRegistryExposition(t *testing.T) {
	r := NewRegistry()
	c := r.Counter("test_events_total", "Events seen.\nSecond line with a \\ backslash.")
	cv := r.CounterVec("test_by_kind_total", "Events by kind.", "kind", "input")
	g := r.Gauge("test_temperature", "A gauge.")
	gv := r.GaugeVec("test_info", "An info metric.", "hash")
	h := r.Histogram("test_latency_seconds", "A histogram.", []float64{0.01, 0.1, 1})
	hv := r.HistogramVec("test_stage_seconds", "Per stage.", []float64{1, 2}, "stage")
	r.GaugeFunc("test_func", "Read at scrape time.", func() float64 { return 42.5 })

	c.Add(3)
	c.Inc()
	cv.With("stuck", "rail_left").Inc()
	cv.With("stuck", "rail_left").Inc()
	cv.With(`quo"te`, "new\nline\\").Add(7)
	g.Set(-1.25)
	g.Add(0.25)
	gv.With("abc123").Set(1)
	gv.Reset()
	gv.With("def456").Set(1)
	for _, v := range []float64{0.005, 0.01, 0.05, 0.5, 3, math.NaN()} {
		h.Observe(v)
	}
	hv.With("read").Observe(1.5)

	e := scrape(t, r)

	wantType := map[string]string{
		"test_events_total": "counter", "test_by_kind_total": "counter", "test_temperature": "gauge",
		"test_info": "gauge", "test_latency_seconds": "histogram", "test_stage_seconds": "histogram",
		"test_func": "gauge",
	}
	for name, typ := range wantType {
		if e.typ[name] != typ {
			t.Errorf("TYPE %s = %q, want %q", name, e.typ[name], typ)
		}
	}
	if want := []string{"test_events_total", "test_by_kind_total", "test_temperature", "test_info",
		"test_latency_seconds", "test_stage_seconds", "test_func"}; strings.Join(e.order, ",") != strings.Join(want, ",") {
		t.Errorf("family order %v, want registration order %v", e.order, want)
	}
	if got, want := e.help["test_events_total"], "Events seen.\nSecond line with a \\ backslash."; got != want {
		t.Errorf("HELP round trip = %q, want %q", got, want)
	}

	tests := []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"test_events_total", nil, 4},
		{"test_by_kind_total", map[string]string{"kind": "stuck", "input": "rail_left"}, 2},
		{"test_by_kind_total", map[string]string{"kind": `quo"te`, "input": "new\nline\\"}, 7},
		{"test_temperature", nil, -1},
		{"test_info", map[string]string{"hash": "def456"}, 1},
		{"test_latency_seconds_bucket", map[string]string{"le": "0.01"}, 2}, // le is inclusive
		{"test_latency_seconds_bucket", map[string]string{"le": "0.1"}, 3},
		{"test_latency_seconds_bucket", map[string]string{"le": "1"}, 4},
		{"test_latency_seconds_bucket", map[string]string{"le": "+Inf"}, 5},
		{"test_latency_seconds_count", nil, 5},
		{"test_latency_seconds_sum", nil, 0.005 + 0.01 + 0.05 + 0.5 + 3},
		{"test_stage_seconds_bucket", map[string]string{"stage": "read", "le": "1"}, 0},
		{"test_stage_seconds_bucket", map[string]string{"stage": "read", "le": "2"}, 1},
		{"test_stage_seconds_sum", map[string]string{"stage": "read"}, 1.5},
		{"test_func", nil, 42.5},
	}
	for _, tc := range tests {
		key := sampleKey(tc.name, tc.labels)
		got, ok := e.samples[key]
		if !ok {
			t.Errorf("missing sample %s", key)
			continue
		}
		if math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s = %v, want %v", key, got, tc.want)
		}
	}
	if _, ok := e.samples[sampleKey("test_info", map[string]string{"hash": "abc123"})]; ok {
		t.Error("Reset left the old info series")
	}
	// 1 + 2 + 1 + 1 + (4 buckets, sum, count) + (3 buckets, sum, count) + 1.
	if n := len(e.samples); n != 17 {
		t.Errorf("got %d samples, want 17", n)
	}
}

func TestRegistryRejectsBadNames(t *testing.T) {
	tests := []struct {
		name string
		reg  func(r *Registry)
	}{
		{"bad metric name", func(r *Registry) { r.Counter("9lives", "x") }},
		{"dash", func(r *Registry) { r.Gauge("a-b", "x") }},
		{"reserved label", func(r *Registry) { r.CounterVec("a", "x", "__x") }},
		{"le on histogram", func(r *Registry) { r.HistogramVec("a", "x", []float64{1}, "le") }},
		{"unsorted buckets", func(r *Registry) { r.Histogram("a", "x", []float64{2, 1}) }},
		{"duplicate buckets", func(r *Registry) { r.Histogram("a", "x", []float64{1, 1}) }},
		{"twice", func(r *Registry) { r.Counter("a", "x"); r.Gauge("a", "y") }},
		{"label count", func(r *Registry) { r.CounterVec("a", "x", "k").With("1", "2") }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			tc.reg(NewRegistry())
		})
	}
}

func TestConcurrentObservations(t *testing.T) {
	r := NewRegistry()
	c := r.Counter("c_total", "c")
	g := r.Gauge("g", "g")
	h := r.Histogram("h", "h", []float64{1, 10})
	cv := r.CounterVec("cv_total", "cv", "k")
	const workers, per = 8, 1000
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < per; i++ {
				c.Inc()
				g.Add(1)
				h.Observe(float64(i % 20))
				cv.With(strconv.Itoa(w % 2)).Inc()
			}
		}(w)
		// A scrape in parallel must never see count != +Inf bucket.
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf bytes.Buffer
			_ = r.WriteText(&buf)
		}()
	}
	wg.Wait()
	e := scrape(t, r)
	if got := e.samples["c_total"]; got != workers*per {
		t.Errorf("counter = %v, want %d", got, workers*per)
	}
	if got := e.samples["g"]; got != workers*per {
		t.Errorf("gauge = %v, want %d", got, workers*per)
	}
	if got := e.samples["h_count"]; got != workers*per {
		t.Errorf("histogram count = %v, want %d", got, workers*per)
	}
	// i%20 in 0..19: 0,1 <= 1 (2 of 20); <= 10 is 11 of 20.
	if got, want := e.samples[sampleKey("h_bucket", map[string]string{"le": "1"})], float64(workers*per*2/20); got != want {
		t.Errorf("le=1 bucket = %v, want %v", got, want)
	}
	if got, want := e.samples[sampleKey("h_bucket", map[string]string{"le": "10"})], float64(workers*per*11/20); got != want {
		t.Errorf("le=10 bucket = %v, want %v", got, want)
	}
	if got := e.samples[sampleKey("cv_total", map[string]string{"k": "0"})] + e.samples[sampleKey("cv_total", map[string]string{"k": "1"})]; got != workers*per {
		t.Errorf("vec total = %v, want %d", got, workers*per)
	}
}

func TestDaemonMetrics(t *testing.T) {
	m := NewMetrics("v1.2.3")
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	// 31 frames 1/30 s apart: the 31st closes a one-second window of 30.
	for i := 0; i <= 30; i++ {
		m.FrameRead(base.Add(time.Duration(i) * time.Second / 30))
	}
	m.ObserveStage(StageCapture, 3*time.Millisecond)
	m.ObserveStage(StagePublish, 40*time.Millisecond)
	m.ObserveStage(Stage(99), time.Second) // ignored
	m.ObserveDecision("valid")
	m.ObserveDecision("no_roll", "off_table", "stacked")
	type verdict string
	type reason string
	RecordDecision(m, verdict("no_roll"), []reason{"off_table"})
	m.JournalBacklog.Set(12)
	m.BrokerConnected.SetBool(true)
	m.SetSensor("rail_left", true, false)
	m.SensorFault("bowl", "stuck")
	m.SensorFault("bowl", "stuck")
	m.CameraLost()
	m.CameraRecovered()
	m.SetCalibrationHash("sha256:aaa")
	m.SetCalibrationHash("sha256:bbb")
	h := NewHealth(func() time.Time { return base })
	h.Export(m.ComponentHealthy)
	h.OK(ComponentCamera)

	e := scrape(t, m.Registry)
	tests := []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"dicewatch_frames_read_total", nil, 31},
		{"dicewatch_fps", nil, 30},
		{"dicewatch_stage_latency_seconds_count", map[string]string{"stage": "capture"}, 1},
		{"dicewatch_stage_latency_seconds_bucket", map[string]string{"stage": "capture", "le": "0.0025"}, 0},
		{"dicewatch_stage_latency_seconds_bucket", map[string]string{"stage": "capture", "le": "0.005"}, 1},
		{"dicewatch_stage_latency_seconds_count", map[string]string{"stage": "publish"}, 1},
		{"dicewatch_stage_latency_seconds_count", map[string]string{"stage": "journal"}, 0},
		{"dicewatch_decisions_total", map[string]string{"verdict": "valid"}, 1},
		{"dicewatch_decisions_total", map[string]string{"verdict": "no_roll"}, 2},
		{"dicewatch_decisions_total", map[string]string{"verdict": "reroll"}, 0},
		{"dicewatch_decision_reasons_total", map[string]string{"reason": "off_table"}, 2},
		{"dicewatch_decision_reasons_total", map[string]string{"reason": "stacked"}, 1},
		{"dicewatch_journal_backlog_records", nil, 12},
		{"dicewatch_broker_connected", nil, 1},
		{"dicewatch_sensor_active", map[string]string{"input": "rail_left"}, 1},
		{"dicewatch_sensor_faulted", map[string]string{"input": "rail_left"}, 0},
		{"dicewatch_sensor_faulted", map[string]string{"input": "bowl"}, 1},
		{"dicewatch_sensor_faults_total", map[string]string{"input": "bowl", "kind": "stuck"}, 2},
		{"dicewatch_camera_faults_total", nil, 1},
		{"dicewatch_camera_up", nil, 1},
		{"dicewatch_calibration_info", map[string]string{"hash": "sha256:bbb"}, 1},
		{"dicewatch_component_healthy", map[string]string{"component": "camera"}, 1},
		{"dicewatch_component_healthy", map[string]string{"component": "journal"}, 0},
	}
	for _, tc := range tests {
		key := sampleKey(tc.name, tc.labels)
		got, ok := e.samples[key]
		if !ok {
			t.Errorf("missing sample %s", key)
			continue
		}
		if got != tc.want {
			t.Errorf("%s = %v, want %v", key, got, tc.want)
		}
	}
	if _, ok := e.samples[sampleKey("dicewatch_calibration_info", map[string]string{"hash": "sha256:aaa"})]; ok {
		t.Error("old calibration hash still exported")
	}
	var build int
	for k, v := range e.samples {
		if strings.HasPrefix(k, `dicewatch_build_info{`) && strings.Contains(k, `version="v1.2.3"`) && v == 1 {
			build++
		}
	}
	if build != 1 {
		t.Errorf("want one build_info series with version v1.2.3, got %d", build)
	}
	for _, name := range []string{"process_resident_memory_bytes", "go_goroutines", "go_heap_objects_bytes"} {
		if e.typ[name] != "gauge" || !(e.samples[name] > 0) {
			t.Errorf("%s: type %q value %v, want a positive gauge", name, e.typ[name], e.samples[name])
		}
	}
	for name := range e.typ {
		if e.help[name] == "" {
			t.Errorf("%s has no HELP text", name)
		}
	}
}

func TestRateMeter(t *testing.T) {
	base := time.Unix(1000, 0)
	tests := []struct {
		name  string
		ticks []int64   // milliseconds after base
		want  []float64 // rates reported, in order
	}{
		{"first tick only starts", []int64{0}, nil},
		{"under a second", []int64{0, 500}, nil},
		{"10 in one second", []int64{0, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000}, []float64{10}},
		{"two windows", []int64{0, 500, 1000, 1250, 1500, 1750, 2000}, []float64{2, 4}},
		{"gap of two seconds", []int64{0, 2000}, []float64{0.5}},
		{"clock going back restarts", []int64{1000, 0, 1000}, []float64{1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var r RateMeter
			var got []float64
			for _, d := range tc.ticks {
				if rate, ok := r.Tick(base.Add(time.Duration(d) * time.Millisecond)); ok {
					got = append(got, rate)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("rates %v, want %v", got, tc.want)
			}
		})
	}
}

func BenchmarkObserveStage(b *testing.B) {
	m := NewMetrics("bench")
	d := 3 * time.Millisecond
	b.ReportAllocs()
	for b.Loop() {
		m.ObserveStage(StageRead, d)
	}
}

func BenchmarkFrameHotPath(b *testing.B) {
	// What the frame loop does per frame: count it, update fps, and record
	// three stage latencies.
	m := NewMetrics("bench")
	at := time.Unix(0, 0)
	b.ReportAllocs()
	for b.Loop() {
		at = at.Add(33 * time.Millisecond)
		m.FrameRead(at)
		m.ObserveStage(StageCapture, 2*time.Millisecond)
		m.ObserveStage(StageMotion, 1*time.Millisecond)
		m.ObserveStage(StageRead, 5*time.Millisecond)
	}
}

func BenchmarkCounterVecWith(b *testing.B) {
	m := NewMetrics("bench")
	m.SensorFault("rail_left", "stuck")
	b.ReportAllocs()
	for b.Loop() {
		m.SensorFaults.With("rail_left", "stuck").Inc()
	}
}

func BenchmarkObserveParallel(b *testing.B) {
	m := NewMetrics("bench")
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			m.ObserveStage(StageCapture, time.Millisecond)
		}
	})
}

func BenchmarkScrape(b *testing.B) {
	m := NewMetrics("bench")
	for s := Stage(0); s < NumStages; s++ {
		m.ObserveStage(s, time.Millisecond)
	}
	for _, in := range []string{"rail_left", "rail_right", "bowl", "back_wall", "noroll_button"} {
		m.SetSensor(in, false, false)
	}
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := m.Registry.WriteText(&buf); err != nil {
			b.Fatal(err)
		}
	}
}

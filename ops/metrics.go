// Package ops is the operations surface of the dicewatch daemon: Prometheus
// metrics written in the text exposition format without a client library, a
// health model, the latest annotated snapshot, and the loopback HTTP server
// that serves them. It is pure Go (no cgo) and knows nothing about cameras or
// brokers: the daemon feeds it through small setters.
//
// Observations on the hot path (Counter.Inc, Gauge.Set, Histogram.Observe)
// are atomic operations that never allocate. Labelled children are resolved
// once (With) and kept; With itself does not allocate on a hit either.
package ops

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// MetricType is the TYPE line of a metric family.
type MetricType string

// Metric types of the text exposition format used here.
const (
	TypeCounter   MetricType = "counter"
	TypeGauge     MetricType = "gauge"
	TypeHistogram MetricType = "histogram"
)

// Counter is a monotonically increasing integer count.
type Counter struct{ v atomic.Uint64 }

// Inc adds one.
func (c *Counter) Inc() { c.v.Add(1) }

// Add adds n.
func (c *Counter) Add(n uint64) { c.v.Add(n) }

// Value returns the current count.
func (c *Counter) Value() uint64 { return c.v.Load() }

// Gauge is a float64 value that can go up and down.
type Gauge struct{ bits atomic.Uint64 }

// Set stores v.
func (g *Gauge) Set(v float64) { g.bits.Store(math.Float64bits(v)) }

// SetBool stores 1 for true and 0 for false.
func (g *Gauge) SetBool(b bool) {
	if b {
		g.Set(1)
		return
	}
	g.Set(0)
}

// Add adds d (which may be negative).
func (g *Gauge) Add(d float64) {
	for {
		old := g.bits.Load()
		nv := math.Float64bits(math.Float64frombits(old) + d)
		if g.bits.CompareAndSwap(old, nv) {
			return
		}
	}
}

// Inc adds one.
func (g *Gauge) Inc() { g.Add(1) }

// Dec subtracts one.
func (g *Gauge) Dec() { g.Add(-1) }

// Value returns the current value.
func (g *Gauge) Value() float64 { return math.Float64frombits(g.bits.Load()) }

// Histogram counts observations into cumulative buckets with fixed upper
// bounds, plus their sum. Observe is lock-free and does not allocate.
type Histogram struct {
	upper  []float64       // sorted upper bounds, without +Inf
	counts []atomic.Uint64 // per bucket (not cumulative); last is +Inf
	sum    atomic.Uint64   // float64 bits
}

func newHistogram(upper []float64) *Histogram {
	return &Histogram{upper: upper, counts: make([]atomic.Uint64, len(upper)+1)}
}

// Observe records one value. NaN is ignored (it has no bucket).
func (h *Histogram) Observe(v float64) {
	if math.IsNaN(v) {
		return
	}
	// Bucket bounds are few (about a dozen); a linear scan beats a binary
	// search on this size and keeps the common, fast values cheapest.
	i := 0
	for i < len(h.upper) && v > h.upper[i] {
		i++
	}
	h.counts[i].Add(1)
	for {
		old := h.sum.Load()
		nv := math.Float64bits(math.Float64frombits(old) + v)
		if h.sum.CompareAndSwap(old, nv) {
			return
		}
	}
}

// HistogramSnapshot is a point-in-time copy of a histogram.
type HistogramSnapshot struct {
	Upper      []float64 // bucket upper bounds; the last is +Inf
	Cumulative []uint64  // cumulative count per bucket
	Count      uint64
	Sum        float64
}

// Snapshot copies the histogram. Count always equals the +Inf bucket.
func (h *Histogram) Snapshot() HistogramSnapshot {
	s := HistogramSnapshot{
		Upper:      append(append([]float64(nil), h.upper...), math.Inf(1)),
		Cumulative: make([]uint64, len(h.counts)),
	}
	var acc uint64
	for i := range h.counts {
		acc += h.counts[i].Load()
		s.Cumulative[i] = acc
	}
	s.Count = acc
	s.Sum = math.Float64frombits(h.sum.Load())
	return s
}

// LatencyBuckets are upper bounds in seconds for per-stage latencies: from
// 0.5 ms (a decision) to 2.5 s (a stalled publish).
var LatencyBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5}

// family is one metric name with its HELP, TYPE, label names and children.
type family struct {
	name   string
	help   string
	typ    MetricType
	labels []string
	upper  []float64 // histograms only

	mu       sync.RWMutex
	children map[string]*child // key: label values joined by 0xff
	fn       func() float64    // scrape-time gauge, no children
}

type child struct {
	values []string
	c      *Counter
	g      *Gauge
	h      *Histogram
}

const labelSep = "\xff"

// lookup returns the child for values, creating it if needed. The key is
// built in a stack buffer and the map is read through string(key), which the
// compiler does without allocating, so a hit costs no allocation.
func (f *family) lookup(values []string) *child {
	if len(values) != len(f.labels) {
		panic(fmt.Sprintf("ops: metric %s wants %d label values, got %d", f.name, len(f.labels), len(values)))
	}
	var buf [128]byte
	key := buf[:0]
	for i, v := range values {
		if i > 0 {
			key = append(key, labelSep...)
		}
		key = append(key, v...)
	}
	f.mu.RLock()
	c, ok := f.children[string(key)]
	f.mu.RUnlock()
	if ok {
		return c
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if c, ok := f.children[string(key)]; ok {
		return c
	}
	c = &child{values: append([]string(nil), values...)}
	switch f.typ {
	case TypeCounter:
		c.c = &Counter{}
	case TypeGauge:
		c.g = &Gauge{}
	case TypeHistogram:
		c.h = newHistogram(f.upper)
	}
	f.children[string(key)] = c
	return c
}

func (f *family) reset() {
	f.mu.Lock()
	clear(f.children)
	f.mu.Unlock()
}

// CounterVec is a counter family partitioned by labels.
type CounterVec struct{ f *family }

// With returns the counter for the label values, in label-name order.
func (v *CounterVec) With(values ...string) *Counter { return v.f.lookup(values).c }

// GaugeVec is a gauge family partitioned by labels.
type GaugeVec struct{ f *family }

// With returns the gauge for the label values, in label-name order.
func (v *GaugeVec) With(values ...string) *Gauge { return v.f.lookup(values).g }

// Reset drops every child (for info metrics whose label changes).
func (v *GaugeVec) Reset() { v.f.reset() }

// HistogramVec is a histogram family partitioned by labels.
type HistogramVec struct{ f *family }

// With returns the histogram for the label values, in label-name order.
func (v *HistogramVec) With(values ...string) *Histogram { return v.f.lookup(values).h }

// Registry holds metric families and writes them in registration order.
type Registry struct {
	mu       sync.Mutex
	families []*family
	names    map[string]bool
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{names: map[string]bool{}} }

func (r *Registry) add(name, help string, typ MetricType, labels []string, upper []float64) *family {
	if !validName(name) {
		panic("ops: invalid metric name " + strconv.Quote(name))
	}
	for _, l := range labels {
		if !validName(l) || strings.HasPrefix(l, "__") || (typ == TypeHistogram && l == "le") {
			panic("ops: invalid label name " + strconv.Quote(l) + " for " + name)
		}
	}
	if typ == TypeHistogram {
		if len(upper) == 0 || !sort.Float64sAreSorted(upper) {
			panic("ops: histogram " + name + " needs sorted bucket bounds")
		}
		for i := 1; i < len(upper); i++ {
			if upper[i] == upper[i-1] {
				panic("ops: histogram " + name + " has a duplicate bucket bound")
			}
		}
		if math.IsInf(upper[len(upper)-1], 1) {
			upper = upper[:len(upper)-1] // +Inf is implicit
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.names[name] {
		panic("ops: metric " + name + " registered twice")
	}
	r.names[name] = true
	f := &family{
		name: name, help: help, typ: typ,
		labels:   append([]string(nil), labels...),
		upper:    append([]float64(nil), upper...),
		children: map[string]*child{},
	}
	r.families = append(r.families, f)
	return f
}

// Counter registers an unlabelled counter.
func (r *Registry) Counter(name, help string) *Counter {
	return r.add(name, help, TypeCounter, nil, nil).lookup(nil).c
}

// CounterVec registers a labelled counter family.
func (r *Registry) CounterVec(name, help string, labels ...string) *CounterVec {
	return &CounterVec{r.add(name, help, TypeCounter, labels, nil)}
}

// Gauge registers an unlabelled gauge.
func (r *Registry) Gauge(name, help string) *Gauge {
	return r.add(name, help, TypeGauge, nil, nil).lookup(nil).g
}

// GaugeVec registers a labelled gauge family.
func (r *Registry) GaugeVec(name, help string, labels ...string) *GaugeVec {
	return &GaugeVec{r.add(name, help, TypeGauge, labels, nil)}
}

// GaugeFunc registers a gauge whose value is read by fn at scrape time
// (resident memory, goroutines). fn must be safe for concurrent use.
func (r *Registry) GaugeFunc(name, help string, fn func() float64) {
	f := r.add(name, help, TypeGauge, nil, nil)
	f.fn = fn
}

// Histogram registers an unlabelled histogram with the given upper bounds.
func (r *Registry) Histogram(name, help string, upper []float64) *Histogram {
	return r.add(name, help, TypeHistogram, nil, upper).lookup(nil).h
}

// HistogramVec registers a labelled histogram family.
func (r *Registry) HistogramVec(name, help string, upper []float64, labels ...string) *HistogramVec {
	return &HistogramVec{r.add(name, help, TypeHistogram, labels, upper)}
}

// ContentType is the media type of WriteText's output.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// WriteText writes every family in the Prometheus text exposition format
// (version 0.0.4): HELP and TYPE lines, then one sample per line, children
// sorted by label values so the output is stable.
func (r *Registry) WriteText(w io.Writer) error {
	r.mu.Lock()
	fams := append([]*family(nil), r.families...)
	r.mu.Unlock()
	bw := bufio.NewWriter(w)
	for _, f := range fams {
		f.write(bw)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("ops: write metrics: %w", err)
	}
	return nil
}

func (f *family) write(w *bufio.Writer) {
	w.WriteString("# HELP ")
	w.WriteString(f.name)
	w.WriteByte(' ')
	w.WriteString(escapeHelp(f.help))
	w.WriteString("\n# TYPE ")
	w.WriteString(f.name)
	w.WriteByte(' ')
	w.WriteString(string(f.typ))
	w.WriteByte('\n')
	if f.fn != nil {
		writeSample(w, f.name, nil, nil, "", "", formatFloat(f.fn()))
		return
	}
	f.mu.RLock()
	kids := make([]*child, 0, len(f.children))
	for _, c := range f.children {
		kids = append(kids, c)
	}
	f.mu.RUnlock()
	sort.Slice(kids, func(i, j int) bool { return lessValues(kids[i].values, kids[j].values) })
	for _, c := range kids {
		switch f.typ {
		case TypeCounter:
			writeSample(w, f.name, f.labels, c.values, "", "", strconv.FormatUint(c.c.Value(), 10))
		case TypeGauge:
			writeSample(w, f.name, f.labels, c.values, "", "", formatFloat(c.g.Value()))
		case TypeHistogram:
			s := c.h.Snapshot()
			for i, ub := range s.Upper {
				writeSample(w, f.name+"_bucket", f.labels, c.values, "le", formatFloat(ub), strconv.FormatUint(s.Cumulative[i], 10))
			}
			writeSample(w, f.name+"_sum", f.labels, c.values, "", "", formatFloat(s.Sum))
			writeSample(w, f.name+"_count", f.labels, c.values, "", "", strconv.FormatUint(s.Count, 10))
		}
	}
}

func writeSample(w *bufio.Writer, name string, labels, values []string, extraName, extraValue, value string) {
	w.WriteString(name)
	if len(labels) > 0 || extraName != "" {
		w.WriteByte('{')
		for i, l := range labels {
			if i > 0 {
				w.WriteByte(',')
			}
			w.WriteString(l)
			w.WriteString(`="`)
			w.WriteString(escapeLabel(values[i]))
			w.WriteByte('"')
		}
		if extraName != "" {
			if len(labels) > 0 {
				w.WriteByte(',')
			}
			w.WriteString(extraName)
			w.WriteString(`="`)
			w.WriteString(extraValue)
			w.WriteByte('"')
		}
		w.WriteByte('}')
	}
	w.WriteByte(' ')
	w.WriteString(value)
	w.WriteByte('\n')
}

func lessValues(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

func formatFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

var helpEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
var labelEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`)

func escapeHelp(s string) string  { return helpEscaper.Replace(s) }
func escapeLabel(s string) string { return labelEscaper.Replace(s) }

// validName reports whether s matches [a-zA-Z_][a-zA-Z0-9_]* (colons are
// reserved for recording rules and not accepted here).
func validName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_', r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

func nan() float64 { return math.NaN() }

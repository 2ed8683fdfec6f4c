package ops

import (
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// Component names the daemon reports health for. /healthz is 200 only while
// every required component is healthy.
const (
	ComponentCamera      = "camera"
	ComponentCalibration = "calibration"
	ComponentJournal     = "journal"
	ComponentBroker      = "broker"
	ComponentSensors     = "sensors"
	ComponentDisk        = "disk"
	ComponentEvidence    = "evidence"
	ComponentPublisher   = "publisher"
)

// DefaultRequired are the components /healthz requires: without them no
// throw can be decided valid or recorded, or none recorded is ever
// published (the publisher, which stops only on a journal error, and then
// stops the daemon). A broker outage is reported but is not unhealthy: the
// journal keeps every decision until it reconnects.
var DefaultRequired = []string{ComponentCamera, ComponentCalibration, ComponentJournal, ComponentPublisher}

// notReported is the detail of a required component before its first report.
const notReported = "not yet reported"

// ComponentStatus is one component's health in a HealthReport.
type ComponentStatus struct {
	Healthy  bool      `json:"healthy"`
	Required bool      `json:"required"`
	Detail   string    `json:"detail,omitempty"`
	Since    time.Time `json:"since"`
}

// HealthReport is the JSON body of /healthz.
type HealthReport struct {
	Status     string                     `json:"status"` // "ok" or "unhealthy"
	Failing    []string                   `json:"failing,omitempty"`
	Components map[string]ComponentStatus `json:"components"`
}

// OK reports whether every required component is healthy.
func (r HealthReport) OK() bool { return r.Status == "ok" }

// Health collects component health from the daemon's goroutines. It is safe
// for concurrent use.
type Health struct {
	now      func() time.Time
	required []string

	mu    sync.Mutex
	comps map[string]ComponentStatus
	gauge atomic.Pointer[GaugeVec]
}

// NewHealth returns a Health whose required components start unhealthy
// ("not yet reported"). now is the clock (time.Now in the daemon); required
// defaults to DefaultRequired when empty.
func NewHealth(now func() time.Time, required ...string) *Health {
	if now == nil {
		now = time.Now
	}
	if len(required) == 0 {
		required = DefaultRequired
	}
	h := &Health{now: now, required: slices.Clone(required), comps: map[string]ComponentStatus{}}
	t := now()
	for _, c := range required {
		h.comps[c] = ComponentStatus{Required: true, Detail: notReported, Since: t}
	}
	return h
}

// Export mirrors every component into g (1 healthy, 0 not), now and on each
// later change; pass Metrics.ComponentHealthy.
func (h *Health) Export(g *GaugeVec) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.gauge.Store(g)
	for name, c := range h.comps {
		g.With(name).SetBool(c.Healthy)
	}
}

// Set records a component's health. detail says what is wrong (or, when
// healthy, optionally what is in use). Since changes only when the healthy
// flag flips.
func (h *Health) Set(component string, healthy bool, detail string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	old, seen := h.comps[component]
	c := ComponentStatus{
		Healthy:  healthy,
		Required: slices.Contains(h.required, component),
		Detail:   detail,
		Since:    old.Since,
	}
	if !seen || old.Healthy != healthy || old.Detail == notReported {
		c.Since = h.now()
	}
	h.comps[component] = c
	if g := h.gauge.Load(); g != nil {
		g.With(component).SetBool(healthy)
	}
}

// OK marks a component healthy.
func (h *Health) OK(component string) { h.Set(component, true, "") }

// Fault marks a component unhealthy with what is wrong.
func (h *Health) Fault(component, detail string) { h.Set(component, false, detail) }

// Report returns the current health; Failing lists unhealthy required
// components in name order.
func (h *Health) Report() HealthReport {
	h.mu.Lock()
	defer h.mu.Unlock()
	r := HealthReport{Status: "ok", Components: make(map[string]ComponentStatus, len(h.comps))}
	for name, c := range h.comps {
		r.Components[name] = c
		if c.Required && !c.Healthy {
			r.Failing = append(r.Failing, name)
		}
	}
	if len(r.Failing) > 0 {
		r.Status = "unhealthy"
		sort.Strings(r.Failing)
	}
	return r
}

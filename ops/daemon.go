package ops

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Stage is one step of the per-frame and per-throw pipeline whose latency is
// measured.
type Stage int

// Pipeline stages, in order. Capture to read run per frame; decide to
// decision run per decided throw (a throw closed by the max duration or the
// end of a recording, with no at-rest frame, has no decide or decision
// observation).
const (
	StageCapture  Stage = iota // grab and decode one frame (for a paced file: includes waiting for its time)
	StageMotion                // motion / at-rest detection on the landing area
	StageRead                  // locating dice and reading pips on an at-rest candidate
	StageDecide                // at-rest frame out of vision until rules.Decide returned (hand-over, tracker, rules)
	StageJournal               // append + fsync of the decision record
	StageDispatch              // decision durable until the publisher handed it to the MQTT client
	StagePublish               // MQTT publish until the broker acknowledged it
	StageDecision              // end to end: the at-rest frame delivered by the camera until the broker acknowledged the decision
	NumStages
)

var stageNames = [NumStages]string{"capture", "motion", "read", "decide", "journal", "dispatch", "publish", "decision"}

// String returns the stage's label value.
func (s Stage) String() string {
	if s < 0 || s >= NumStages {
		return "stage(" + strconv.Itoa(int(s)) + ")"
	}
	return stageNames[s]
}

// Verdict label values created at start so their series exist (at 0) before
// the first throw; they match rules.Valid, rules.NoRoll and rules.Reroll.
var knownVerdicts = []string{"valid", "no_roll", "reroll"}

// Metrics is the daemon's whole metric set, registered in one place. Fields
// are safe for concurrent use; the lead's goroutines update them directly or
// through the helper methods below.
type Metrics struct {
	Registry *Registry

	// FramesRead counts frames taken from the camera source.
	FramesRead *Counter
	// FPS is the frame rate over the last whole second (see FrameRead).
	FPS *Gauge
	// StageLatency has one histogram per Stage (label stage); Stages holds
	// them pre-resolved so ObserveStage does no map look-up.
	StageLatency *HistogramVec
	Stages       [NumStages]*Histogram
	// Decisions counts decisions by verdict; DecisionReasons counts each
	// reason a decision carried (a no-roll with two reasons adds to both).
	Decisions       *CounterVec
	DecisionReasons *CounterVec
	// JournalBacklog is the number of records appended to the journal but
	// not yet acknowledged by the broker.
	JournalBacklog *Gauge
	// BrokerConnected is 1 while the MQTT session is up.
	BrokerConnected *Gauge
	// SensorState is 1 while an input (label input) is active.
	SensorState *GaugeVec
	// SensorFaulted is 1 while an input has an uncleared fault.
	SensorFaulted *GaugeVec
	// SensorFaults counts fault events by input and kind (stuck, chatter,
	// disconnected).
	SensorFaults *CounterVec
	// CameraUp is 1 while frames arrive; CameraFaults counts camera losses.
	CameraUp     *Gauge
	CameraFaults *Counter
	// ComponentHealthy mirrors Health (label component): 1 healthy, 0 not.
	ComponentHealthy *GaugeVec
	// DiskFreeBytes is the free space of a watched path (label path).
	DiskFreeBytes *GaugeVec
	// ClipsWritten counts evidence clips put in place; ClipFailures those
	// lost to write errors; ClipFramesDropped frames the clips did not get
	// (label stage: encode, the encoder was busy; record, the recorder was
	// behind). A dropped frame repeats the previous picture in the clip.
	ClipsWritten      *Counter
	ClipFailures      *Counter
	ClipFramesDropped *CounterVec
	// JournalNotWritten counts records lost because the journal could not
	// take them (a full disk) and the daemon could hold no more for later,
	// by kind: never published.
	JournalNotWritten *CounterVec
	// CalibrationInfo is 1 with the loaded calibration's hash as a label.
	CalibrationInfo *GaugeVec
	// BuildInfo is 1 with version, revision and Go version as labels.
	BuildInfo *GaugeVec

	verdicts map[string]*Counter // read-only after NewMetrics

	calMu sync.Mutex
	fps   RateMeter
}

// NewMetrics registers the daemon metric set in a fresh registry. version is
// the binary's version string (main.version); the VCS revision and Go
// version come from the build info.
func NewMetrics(version string) *Metrics {
	r := NewRegistry()
	m := &Metrics{Registry: r}
	m.FramesRead = r.Counter("dicewatch_frames_read_total", "Frames read from the camera source.")
	m.FPS = r.Gauge("dicewatch_fps", "Frames per second over the last whole second.")
	m.StageLatency = r.HistogramVec("dicewatch_stage_latency_seconds",
		"Latency of one pipeline stage in seconds (capture, motion and read per frame; decide, journal and publish per throw).",
		LatencyBuckets, "stage")
	for s := Stage(0); s < NumStages; s++ {
		m.Stages[s] = m.StageLatency.With(s.String())
	}
	m.Decisions = r.CounterVec("dicewatch_decisions_total", "Throw decisions by verdict.", "verdict")
	m.verdicts = make(map[string]*Counter, len(knownVerdicts))
	for _, v := range knownVerdicts {
		m.verdicts[v] = m.Decisions.With(v)
	}
	m.DecisionReasons = r.CounterVec("dicewatch_decision_reasons_total",
		"Reasons carried by non-valid decisions; a decision with several reasons counts once per reason.", "reason")
	m.JournalBacklog = r.Gauge("dicewatch_journal_backlog_records",
		"Journal records appended but not yet acknowledged by the broker.")
	m.BrokerConnected = r.Gauge("dicewatch_broker_connected", "1 while connected to the MQTT broker, else 0.")
	m.SensorState = r.GaugeVec("dicewatch_sensor_active", "1 while a sensor input is active (beam broken, button pressed), else 0.", "input")
	m.SensorFaulted = r.GaugeVec("dicewatch_sensor_faulted", "1 while a sensor input has an uncleared fault, else 0.", "input")
	m.SensorFaults = r.CounterVec("dicewatch_sensor_faults_total", "Sensor fault events by input and kind.", "input", "kind")
	m.CameraUp = r.Gauge("dicewatch_camera_up", "1 while the camera delivers frames, else 0.")
	m.CameraFaults = r.Counter("dicewatch_camera_faults_total", "Camera losses (fault events).")
	m.ComponentHealthy = r.GaugeVec("dicewatch_component_healthy", "1 while a component reported healthy, else 0 (as in /healthz).", "component")
	m.DiskFreeBytes = r.GaugeVec("dicewatch_disk_free_bytes", "Free bytes on the file system of a watched path.", "path")
	m.ClipsWritten = r.Counter("dicewatch_clips_written_total", "Evidence clips written to the clip ring.")
	m.ClipFailures = r.Counter("dicewatch_clip_failures_total", "Evidence clips lost to write errors (disk full, permissions).")
	m.ClipFramesDropped = r.CounterVec("dicewatch_clip_frames_dropped_total",
		"Frames the evidence clips did not get, by stage (encode or record); the clip repeats the previous picture.", "stage")
	m.ClipFramesDropped.With("encode")
	m.ClipFramesDropped.With("record")
	m.JournalNotWritten = r.CounterVec("dicewatch_journal_not_written_total",
		"Records lost to a full disk (the journal refused them and no more could be held for later), by kind; they are never published.", "kind")
	m.CalibrationInfo = r.GaugeVec("dicewatch_calibration_info", "The loaded calibration, by content hash (value is always 1).", "hash")
	m.BuildInfo = r.GaugeVec("dicewatch_build_info", "Build of the running binary (value is always 1).", "version", "revision", "goversion")
	m.BuildInfo.With(version, vcsRevision(), runtime.Version()).Set(1)

	r.GaugeFunc("process_resident_memory_bytes", "Resident memory size in bytes.", residentBytes)
	r.GaugeFunc("go_goroutines", "Number of goroutines that currently exist.", func() float64 {
		return float64(runtime.NumGoroutine())
	})
	r.GaugeFunc("go_heap_objects_bytes", "Bytes of heap memory occupied by live and not yet swept objects.", heapObjectBytes)
	return m
}

// ObserveStage records one stage latency. It does not allocate.
func (m *Metrics) ObserveStage(s Stage, d time.Duration) {
	if s < 0 || s >= NumStages {
		return
	}
	m.Stages[s].Observe(d.Seconds())
}

// FrameRead counts a frame and updates FPS from the frame's time. Call it
// only from the one goroutine that owns the frame loop.
func (m *Metrics) FrameRead(at time.Time) {
	m.FramesRead.Inc()
	if fps, ok := m.fps.Tick(at); ok {
		m.FPS.Set(fps)
	}
}

// ObserveDecision counts one decision by verdict and each of its reasons.
func (m *Metrics) ObserveDecision(verdict string, reasons ...string) {
	if c, ok := m.verdicts[verdict]; ok {
		c.Inc()
	} else {
		m.Decisions.With(verdict).Inc()
	}
	for _, r := range reasons {
		m.DecisionReasons.With(r).Inc()
	}
}

// RecordDecision is ObserveDecision for typed verdicts and reasons, such as
// rules.Verdict and []rules.Reason, without converting the slice:
//
//	ops.RecordDecision(m, dec.Verdict, dec.Reasons)
func RecordDecision[V ~string, R ~string](m *Metrics, verdict V, reasons []R) {
	m.ObserveDecision(string(verdict))
	for _, r := range reasons {
		m.DecisionReasons.With(string(r)).Inc()
	}
}

// SetSensor records an input's current state and fault flag.
func (m *Metrics) SetSensor(input string, active, faulted bool) {
	m.SensorState.With(input).SetBool(active)
	m.SensorFaulted.With(input).SetBool(faulted)
}

// SensorFault counts a fault event (kind such as "stuck") on an input and
// marks it faulted; ClearSensorFault marks it healthy again.
func (m *Metrics) SensorFault(input, kind string) {
	m.SensorFaults.With(input, kind).Inc()
	m.SensorFaulted.With(input).Set(1)
}

// ClearSensorFault marks an input as no longer faulted.
func (m *Metrics) ClearSensorFault(input string) { m.SensorFaulted.With(input).Set(0) }

// CameraLost counts a camera fault and sets camera_up to 0.
func (m *Metrics) CameraLost() {
	m.CameraFaults.Inc()
	m.CameraUp.Set(0)
}

// CameraRecovered sets camera_up to 1.
func (m *Metrics) CameraRecovered() { m.CameraUp.Set(1) }

// SetCalibrationHash replaces the calibration info series with one for hash.
func (m *Metrics) SetCalibrationHash(hash string) {
	m.calMu.Lock()
	defer m.calMu.Unlock()
	m.CalibrationInfo.Reset()
	m.CalibrationInfo.With(hash).Set(1)
}

// RateMeter turns event times into a per-second rate over whole windows of
// one second. It is not safe for concurrent use: one goroutine owns it.
type RateMeter struct {
	start time.Time
	n     int
}

// Tick counts one event at time at. When at is a second or more after the
// window's start, it returns the window's rate and starts a new window.
func (r *RateMeter) Tick(at time.Time) (rate float64, ok bool) {
	if r.start.IsZero() || at.Before(r.start) {
		r.start, r.n = at, 0
		return 0, false
	}
	r.n++
	el := at.Sub(r.start)
	if el < time.Second {
		return 0, false
	}
	rate = float64(r.n) / el.Seconds()
	r.start, r.n = at, 0
	return rate, true
}

func vcsRevision() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	rev, dirty := "unknown", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if dirty {
		rev += "-dirty"
	}
	return rev
}

// residentBytes reads the resident set size from /proc/self/statm (Linux);
// it returns NaN where that file does not exist.
func residentBytes() float64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return nan()
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return nan()
	}
	pages, err := strconv.ParseUint(f[1], 10, 64)
	if err != nil {
		return nan()
	}
	return float64(pages) * float64(os.Getpagesize())
}

func heapObjectBytes() float64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return nan()
	}
	return float64(s[0].Value.Uint64())
}

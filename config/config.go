// Package config owns the daemon's single YAML configuration file: its
// schema, strict decoding (an unknown or misspelled key, a wrong type or an
// out-of-range value is an error naming the key and its line), defaults, and
// validation. Every problem in a file is reported, not just the first.
package config

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/dicewatch/dicewatch/calibration"
	"github.com/dicewatch/dicewatch/mqtt"
	"github.com/dicewatch/dicewatch/rules"
	"github.com/dicewatch/dicewatch/sensors"
)

// Config is the whole daemon configuration.
type Config struct {
	// Table is the table's id; it names MQTT topics and journal records.
	Table string `yaml:"table"`
	// Camera is the frame source.
	Camera Camera `yaml:"camera"`
	// Calibration is the path of the calibration file (see `dicewatch calibrate`).
	Calibration string `yaml:"calibration"`
	// Vision tunes motion and reading.
	Vision Vision `yaml:"vision"`
	// Throw tunes how throws open and close.
	Throw Throw `yaml:"throw"`
	// Profile is the house rules (see rules.Profile).
	Profile rules.Profile `yaml:"profile"`
	// Journal is the durable log.
	Journal Journal `yaml:"journal"`
	// Evidence is the ring of throw clips on disk.
	Evidence Evidence `yaml:"evidence"`
	// MQTT is the broker connection, topics and operator keys (see mqtt.Config).
	MQTT mqtt.Config `yaml:"mqtt"`
	// Sensors are the table's GPIO inputs and lamps (see sensors.Config).
	Sensors sensors.Config `yaml:"sensors"`
	// HTTP is the local operations endpoint (/metrics, /healthz, /snapshot.jpg).
	HTTP HTTP `yaml:"http"`
	// Log sets logging.
	Log Log `yaml:"log"`

	hash string
}

// Camera is the frame source.
type Camera struct {
	// Source is a URL: v4l2:///dev/video0?width=1280&height=720&fps=30,
	// file:recording.avi, rtsp://..., http://.../video.mjpg (MJPEG over
	// HTTP), gst:..., dir:stills/.
	Source string `yaml:"source"`
	Width  int    `yaml:"width"`
	Height int    `yaml:"height"`
	FPS    int    `yaml:"fps"`
	// StallMS: no frame for this long from a live source (anything but
	// file: and dir:) is a camera fault.
	StallMS int `yaml:"stall_ms"`
}

// Vision tunes motion detection and dice reading.
type Vision struct {
	// SettleMS is how long nothing may move before dice are at rest.
	SettleMS int `yaml:"settle_ms"`
	// DiePx overrides the expected die edge in pixels (0: from calibration).
	DiePx float64 `yaml:"die_px"`
	// PipSpread overrides the dice's pip spread, the pips' offset from a
	// face's centre over the edge (0: the calibration's die.pip_spread,
	// which may be unset). See calibration.Die.PipSpread.
	PipSpread float64 `yaml:"pip_spread"`
}

// Throw tunes the throw tracker.
type Throw struct {
	// MaxDurationMS closes a throw that never comes to rest.
	MaxDurationMS int `yaml:"max_duration_ms"`
	// StaffCallGraceMS is how long after rest a staff call still counts.
	StaffCallGraceMS int `yaml:"staff_call_grace_ms"`
}

// Journal is the durable log's settings.
type Journal struct {
	Dir string `yaml:"dir"`
	// MaxMB bounds the journal's size on disk; the oldest segments are
	// dropped, but never before the broker has acknowledged them (0: no limit).
	MaxMB int `yaml:"max_mb"`
	// MaxAgeDays drops segments older than this, once delivered (0: no limit).
	MaxAgeDays int `yaml:"max_age_days"`
	// MinFreeMB raises a "disk nearly full" fault when the file system of
	// a folder the daemon writes (the journal, the clips, HoldDir, the
	// MQTT state) has less free space than this (default 256), or than a
	// quarter of it on a file system smaller than four times this.
	MinFreeMB int `yaml:"min_free_mb"`
	// HoldDir, when set, keeps the records the journal refuses (a full
	// disk) in a file there as well as in memory, so a restart while they
	// are held does not lose them; it should be on another file system
	// than Dir. Empty: held in memory only.
	HoldDir string `yaml:"hold_dir"`
}

// Evidence is the ring of short clips, one per throw, kept for disputes.
type Evidence struct {
	// Enabled turns clips on (default true).
	Enabled *bool `yaml:"enabled"`
	// Dir holds the clips (default: clips/ beside journal.dir).
	Dir string `yaml:"dir"`
	// PreSeconds of video before the throw opened (default 2).
	PreSeconds float64 `yaml:"pre_seconds"`
	// PostSeconds of video after the decision (default 2).
	PostSeconds float64 `yaml:"post_seconds"`
	// MaxMB and MaxClips bound the ring; the oldest clips are removed first.
	MaxMB    int `yaml:"max_mb"`
	MaxClips int `yaml:"max_clips"`
	// Scale is the clips' size relative to the camera's (default 0.5).
	Scale float64 `yaml:"scale"`
	// Quality is the clips' JPEG quality (default 75).
	Quality int `yaml:"quality"`
}

// On reports whether clips are recorded.
func (e Evidence) On() bool { return e.Enabled == nil || *e.Enabled }

// HTTP is the operations endpoint.
type HTTP struct {
	// Listen is host:port; loopback by default. "off" disables it.
	Listen string `yaml:"listen"`
}

// Log sets logging.
type Log struct {
	Level  string `yaml:"level"`
	Format string `yaml:"format"`
}

// Error is every problem found in a config file.
type Error struct {
	Path     string
	Problems []string
}

func (e *Error) Error() string {
	return fmt.Sprintf("config %s: %d problem(s):\n  %s", e.Path, len(e.Problems), strings.Join(e.Problems, "\n  "))
}

// ErrInvalid is matched by errors.Is for any config problem.
var ErrInvalid = errors.New("invalid config")

// Is reports ErrInvalid.
func (e *Error) Is(target error) bool { return target == ErrInvalid }

// Hash is the hex SHA-256 prefix of the file's bytes, published in the
// birth message so an audit can tell which config decided a roll.
func (c *Config) Hash() string { return c.hash }

// Load reads, decodes strictly, defaults and validates a config file.
func Load(path string) (*Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return Parse(path, b)
}

// Parse decodes strictly, defaults and validates config bytes. path only
// names the file in errors.
func Parse(path string, b []byte) (*Config, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(b, &root); err != nil {
		return nil, &Error{Path: path, Problems: []string{cleanYAMLError(err.Error())}}
	}
	if len(root.Content) == 0 {
		return nil, &Error{Path: path, Problems: []string{"file is empty"}}
	}
	lines := keyLines(&root)

	var c Config
	var problems []string
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		var te *yaml.TypeError
		if errors.As(err, &te) {
			for _, m := range te.Errors {
				if strings.Contains(m, "already defined") {
					// yaml.v3 stops decoding the mapping here: the rest of
					// the file was not read, so validating it would mislead.
					return nil, &Error{Path: path, Problems: []string{explain(m, lines)}}
				}
				problems = append(problems, explain(m, lines))
			}
		} else {
			return nil, &Error{Path: path, Problems: []string{cleanYAMLError(err.Error())}}
		}
	}
	c.defaults()
	for _, p := range c.validate() {
		if _, set := lines.byPath[p.key]; !set && derived[p.key] {
			continue // derived from table or journal.dir, whose own problem is reported
		}
		if ln, ok := lines.byPath[p.key]; ok {
			problems = append(problems, fmt.Sprintf("line %d: %s: %s", ln, p.key, p.msg))
		} else {
			problems = append(problems, fmt.Sprintf("%s: %s", p.key, p.msg))
		}
	}
	if len(problems) > 0 {
		sortProblems(problems)
		return nil, &Error{Path: path, Problems: problems}
	}
	s := sha256.Sum256(b)
	c.hash = hex.EncodeToString(s[:8])
	c.resolve(filepath.Dir(path))
	return &c, nil
}

// resolve makes relative file paths relative to the config file's folder,
// so a config works from any working directory.
func (c *Config) resolve(dir string) {
	abs := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, p)
	}
	c.Calibration = abs(c.Calibration)
	c.Journal.Dir = abs(c.Journal.Dir)
	c.Journal.HoldDir = abs(c.Journal.HoldDir)
	c.Evidence.Dir = abs(c.Evidence.Dir)
	c.MQTT.StateDir = abs(c.MQTT.StateDir)
	c.MQTT.PasswordFile = abs(c.MQTT.PasswordFile)
	c.MQTT.TLS.CA = abs(c.MQTT.TLS.CA)
	c.MQTT.TLS.Cert = abs(c.MQTT.TLS.Cert)
	c.MQTT.TLS.Key = abs(c.MQTT.TLS.Key)
	for _, scheme := range []string{"file:", "dir:"} {
		if rest, ok := strings.CutPrefix(c.Camera.Source, scheme); ok && !strings.HasPrefix(rest, "//") {
			c.Camera.Source = scheme + abs(rest)
		}
	}
}

func (c *Config) defaults() {
	if c.Camera.FPS == 0 {
		c.Camera.FPS = 30
	}
	if c.Camera.StallMS == 0 {
		c.Camera.StallMS = 1000
	}
	if c.Vision.SettleMS == 0 {
		c.Vision.SettleMS = 300
	}
	if c.Throw.MaxDurationMS == 0 {
		c.Throw.MaxDurationMS = 15000
	}
	if c.Profile.Game == "" {
		c.Profile.Game = "craps"
	}
	if c.MQTT.Table == "" {
		c.MQTT.Table = c.Table
	}
	if c.MQTT.StateDir == "" && c.Journal.Dir != "" {
		c.MQTT.StateDir = filepath.Join(filepath.Dir(c.Journal.Dir), "mqtt")
	}
	c.MQTT.SetDefaults()
	if c.Journal.MinFreeMB == 0 {
		c.Journal.MinFreeMB = 256
	}
	if c.Evidence.Dir == "" && c.Journal.Dir != "" {
		c.Evidence.Dir = filepath.Join(filepath.Dir(c.Journal.Dir), "clips")
	}
	if c.Evidence.PreSeconds == 0 {
		c.Evidence.PreSeconds = 2
	}
	if c.Evidence.PostSeconds == 0 {
		c.Evidence.PostSeconds = 2
	}
	if c.Evidence.MaxMB == 0 {
		c.Evidence.MaxMB = 512
	}
	if c.Evidence.MaxClips == 0 {
		c.Evidence.MaxClips = 1000
	}
	if c.Evidence.Scale == 0 {
		c.Evidence.Scale = 0.5
	}
	if c.Evidence.Quality == 0 {
		c.Evidence.Quality = 75
	}
	if c.HTTP.Listen == "" {
		c.HTTP.Listen = "127.0.0.1:9108"
	}
	if c.Log.Level == "" {
		c.Log.Level = "info"
	}
	if c.Log.Format == "" {
		c.Log.Format = "text"
	}
}

type problem struct{ key, msg string }

// derived are keys whose defaults come from other keys (table, journal.dir).
var derived = map[string]bool{"mqtt.table": true, "mqtt.client_id": true, "mqtt.prefix": true, "mqtt.state_dir": true, "evidence.dir": true}

var tableID = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

func (c *Config) validate() []problem {
	var ps []problem
	add := func(key, format string, a ...any) { ps = append(ps, problem{key, fmt.Sprintf(format, a...)}) }
	if c.Table == "" {
		add("table", "is required")
	} else if !tableID.MatchString(c.Table) {
		add("table", "%q must be 1-64 letters, digits, '-' or '_' (it is part of MQTT topics)", c.Table)
	}
	if c.Camera.Source == "" {
		add("camera.source", "is required")
	} else if !validSource(c.Camera.Source) {
		add("camera.source", "%q is not a v4l2://, file:, rtsp://, http:// (MJPEG), gst: or dir: URL", c.Camera.Source)
	}
	if c.Camera.Width < 0 || c.Camera.Width > 8192 {
		add("camera.width", "%d is out of range 0..8192", c.Camera.Width)
	}
	if c.Camera.Height < 0 || c.Camera.Height > 8192 {
		add("camera.height", "%d is out of range 0..8192", c.Camera.Height)
	}
	if c.Camera.FPS < 1 || c.Camera.FPS > 240 {
		add("camera.fps", "%d is out of range 1..240", c.Camera.FPS)
	}
	if c.Camera.StallMS < 50 || c.Camera.StallMS > 60000 {
		add("camera.stall_ms", "%d is out of range 50..60000", c.Camera.StallMS)
	}
	if c.Calibration == "" {
		add("calibration", "is required (make one with `dicewatch calibrate`)")
	}
	if c.Vision.SettleMS < 33 || c.Vision.SettleMS > 300 {
		add("vision.settle_ms", "%d is out of range 33..300", c.Vision.SettleMS)
	}
	if v := c.Vision.DiePx; !(v >= 0 && v <= 400) { // NaN too
		add("vision.die_px", "%g is out of range 0..400", c.Vision.DiePx)
	}
	if err := calibration.CheckPipSpread(c.Vision.PipSpread); err != nil {
		add("vision.pip_spread", "%v", err)
	}
	if c.Throw.MaxDurationMS < 1000 || c.Throw.MaxDurationMS > 120000 {
		add("throw.max_duration_ms", "%d is out of range 1000..120000", c.Throw.MaxDurationMS)
	}
	if c.Throw.StaffCallGraceMS < 0 || c.Throw.StaffCallGraceMS > 10000 {
		add("throw.staff_call_grace_ms", "%d is out of range 0..10000", c.Throw.StaffCallGraceMS)
	}
	if err := c.Profile.Validate(); err != nil {
		var pe rules.ProfileError
		if errors.As(err, &pe) {
			for _, p := range pe {
				add(p.Key, "%s", p.Msg)
			}
		} else {
			add("profile", "%v", err)
		}
	}
	if c.Journal.Dir == "" {
		add("journal.dir", "is required")
	}
	if c.Journal.HoldDir != "" && filepath.Clean(c.Journal.HoldDir) == filepath.Clean(c.Journal.Dir) {
		add("journal.hold_dir", "is the journal's own folder: it is for when that disk is full")
	}
	if c.Journal.MaxMB < 0 || c.Journal.MaxMB > 1<<20 {
		add("journal.max_mb", "%d is out of range 0..1048576", c.Journal.MaxMB)
	} else if c.Journal.MaxMB > 0 && c.Journal.MaxMB < 64 {
		add("journal.max_mb", "%d is too small: at least 64 (a day of decisions with snapshots)", c.Journal.MaxMB)
	}
	if c.Journal.MaxAgeDays < 0 || c.Journal.MaxAgeDays > 3650 {
		add("journal.max_age_days", "%d is out of range 0..3650", c.Journal.MaxAgeDays)
	}
	if c.Journal.MinFreeMB < 0 || c.Journal.MinFreeMB > 1<<20 {
		add("journal.min_free_mb", "%d is out of range 1..1048576", c.Journal.MinFreeMB)
	}
	if c.Evidence.Dir != "" && c.Journal.Dir != "" && filepath.Clean(c.Evidence.Dir) == filepath.Clean(c.Journal.Dir) {
		add("evidence.dir", "%q is the journal's folder: clips need a folder of their own", c.Evidence.Dir)
	}
	if v := c.Evidence.PreSeconds; !(v >= 0.5 && v <= 30) {
		add("evidence.pre_seconds", "%g is out of range 0.5..30", v)
	}
	if v := c.Evidence.PostSeconds; !(v >= 0.5 && v <= 30) {
		add("evidence.post_seconds", "%g is out of range 0.5..30", v)
	}
	if v := c.Evidence.MaxMB; v < 16 || v > 1<<20 {
		add("evidence.max_mb", "%d is out of range 16..1048576", v)
	}
	if v := c.Evidence.MaxClips; v < 10 || v > 1000000 {
		add("evidence.max_clips", "%d is out of range 10..1000000", v)
	}
	if v := c.Evidence.Scale; !(v >= 0.1 && v <= 1) {
		add("evidence.scale", "%g is out of range 0.1..1", v)
	}
	if v := c.Evidence.Quality; v < 10 || v > 100 {
		add("evidence.quality", "%d is out of range 10..100", v)
	}
	for _, p := range c.MQTT.Problems() {
		add(p.Key, "%s", p.Msg)
	}
	if err := c.Sensors.Validate(); err != nil {
		var ve *sensors.ValidationError
		if errors.As(err, &ve) {
			for _, p := range ve.Problems {
				add(p.Key, "%s", p.Msg)
			}
		} else {
			add("sensors", "%v", err)
		}
	}
	if c.HTTP.Listen != "off" {
		if _, port, err := net.SplitHostPort(c.HTTP.Listen); err != nil || port == "" {
			add("http.listen", "%q must be host:port (127.0.0.1:9108) or off", c.HTTP.Listen)
		}
	}
	switch c.Log.Level {
	case "debug", "info", "warn", "error":
	default:
		add("log.level", "%q is not one of debug, info, warn, error", c.Log.Level)
	}
	switch c.Log.Format {
	case "text", "json":
	default:
		add("log.format", "%q is not one of text, json", c.Log.Format)
	}
	return ps
}

func validSource(s string) bool {
	for _, p := range []string{"v4l2://", "file:", "rtsp://", "rtsps://", "http://", "https://", "gst:", "dir:"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// lineIndex maps dotted key paths to the line they are on, and lines to
// the dotted key path of the key on that line.
type lineIndex struct {
	byPath map[string]int
	byLine map[int]string
}

func keyLines(root *yaml.Node) lineIndex {
	li := lineIndex{byPath: map[string]int{}, byLine: map[int]string{}}
	var walk func(n *yaml.Node, prefix string)
	walk = func(n *yaml.Node, prefix string) {
		switch n.Kind {
		case yaml.DocumentNode:
			for _, c := range n.Content {
				walk(c, prefix)
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				path := k.Value
				if prefix != "" {
					path = prefix + "." + k.Value
				}
				li.byPath[path] = k.Line
				li.byLine[k.Line] = path
				if v.Line != k.Line {
					li.byLine[v.Line] = path
				}
				walk(v, path)
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				p := fmt.Sprintf("%s[%d]", prefix, i)
				li.byPath[p] = c.Line
				if _, ok := li.byLine[c.Line]; !ok {
					li.byLine[c.Line] = p
				}
				walk(c, p)
			}
		}
	}
	walk(root, "")
	return li
}

var (
	lineRE    = regexp.MustCompile(`^line (\d+): (.*)$`)
	unknownRE = regexp.MustCompile(`^field (\S+) not found in type \S+$`)
	typeRE    = regexp.MustCompile("^cannot unmarshal !!(\\w+) `(.*)` into (\\S+)$")
	typeRE2   = regexp.MustCompile(`^cannot unmarshal !!(\w+) into (\S+)$`)
)

// explain rewrites a yaml.v3 type error to name the key path.
func explain(m string, li lineIndex) string {
	sm := lineRE.FindStringSubmatch(m)
	if sm == nil {
		return m
	}
	ln, _ := strconv.Atoi(sm[1])
	msg := sm[2]
	key := li.byLine[ln]
	if u := unknownRE.FindStringSubmatch(msg); u != nil {
		return fmt.Sprintf("line %d: %s: unknown key", ln, key)
	}
	if t := typeRE.FindStringSubmatch(msg); t != nil {
		return fmt.Sprintf("line %d: %s: %q is a %s, want %s", ln, key, t[2], yamlKind(t[1]), goKind(t[3]))
	}
	if t := typeRE2.FindStringSubmatch(msg); t != nil {
		return fmt.Sprintf("line %d: %s: a %s is not allowed here, want %s", ln, key, yamlKind(t[1]), goKind(t[2]))
	}
	return fmt.Sprintf("line %d: %s: %s", ln, key, msg)
}

func yamlKind(tag string) string {
	switch tag {
	case "str":
		return "string"
	case "int":
		return "integer"
	case "float":
		return "number"
	case "bool":
		return "boolean"
	case "seq":
		return "list"
	case "map":
		return "mapping"
	}
	return tag
}

func goKind(t string) string {
	switch {
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"):
		return "an integer"
	case strings.HasPrefix(t, "float"):
		return "a number"
	case t == "bool":
		return "true or false"
	case t == "string":
		return "a string"
	case strings.HasPrefix(t, "[]"):
		return "a list"
	}
	return "a mapping"
}

func cleanYAMLError(s string) string {
	return strings.TrimPrefix(s, "yaml: ")
}

// sortProblems orders problems by line number, then text.
func sortProblems(ps []string) {
	num := func(s string) int {
		if m := lineRE.FindStringSubmatch(s); m != nil {
			n, _ := strconv.Atoi(m[1])
			return n
		}
		return 1 << 30
	}
	sort.SliceStable(ps, func(i, j int) bool {
		ni, nj := num(ps[i]), num(ps[j])
		if ni != nj {
			return ni < nj
		}
		return ps[i] < ps[j]
	})
}

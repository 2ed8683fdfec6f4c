package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/dicewatch/dicewatch/config"
)

// daemonConfig is the configuration of a daemon under test: the settings
// every such test gives, and Extra, more YAML (whole sections, as written).
type daemonConfig struct {
	Table       string
	Source      string // camera.source
	StallMS     int    // camera.stall_ms (0: not given)
	Calibration string
	Journal     string // journal.dir
	Broker      string // mqtt.broker
	HTTP        string // http.listen ("": "off")
	Extra       string
}

// scriptedCamera is the source of a daemon whose camera is a
// sourcetest.Runs given as runFlags.openSource (the address is never
// dialled).
const scriptedCamera = "http://127.0.0.1:9/scripted.mjpg"

// noClips turns the evidence clips off.
const noClips = "evidence:\n  enabled: false\n"

// YAML is the configuration file's text.
func (c daemonConfig) YAML() string {
	var b strings.Builder
	fmt.Fprintf(&b, "table: %s\ncamera:\n  source: %s\n", c.Table, c.Source)
	if c.StallMS > 0 {
		fmt.Fprintf(&b, "  stall_ms: %d\n", c.StallMS)
	}
	listen := c.HTTP
	if listen == "" {
		listen = "off"
	}
	fmt.Fprintf(&b, "calibration: %s\njournal:\n  dir: %s\nmqtt:\n  broker: %s\nhttp:\n  listen: %q\n",
		c.Calibration, c.Journal, c.Broker, listen)
	b.WriteString(c.Extra)
	return b.String()
}

// Write writes the configuration to path and returns path.
func (c daemonConfig) Write(t testing.TB, path string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(c.YAML()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Parse is the configuration as the daemon reads it (name: the file name
// in errors).
func (c daemonConfig) Parse(t testing.TB, name string) *config.Config {
	t.Helper()
	cfg, err := config.Parse(name, []byte(c.YAML()))
	if err != nil {
		t.Fatalf("config %s: %v\n%s", name, err, c.YAML())
	}
	return cfg
}

// startDaemon starts the daemon as a process with args; stderr collects
// its log, exited gets Wait's result.
func startDaemon(t *testing.T, args ...string) (run *exec.Cmd, stderr *lockedBuffer, exited <-chan error) {
	t.Helper()
	run = dicewatchProcess(t, args...)
	stderr = &lockedBuffer{}
	run.Stderr = stderr
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- run.Wait() }()
	return run, stderr, done
}

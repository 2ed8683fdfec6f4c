// Package mqtttest runs a real mosquitto broker for tests, and a subscriber
// that records what it receives.
//
//	b := mqtttest.StartBroker(t)                       // free loopback port, stopped by PID in t.Cleanup
//	b := mqtttest.StartBroker(t, mqtttest.WithUsers(map[string]string{"t1": "pw"}),
//	        mqtttest.WithACL("user t1\ntopic readwrite dicewatch/t1/#\n"))
//	b.URL()        // tcp://127.0.0.1:PORT
//	b.Kill()       // SIGKILL, like a crash; b.Restart() starts it again on the same port and data dir
//
// The broker keeps a persistence database in its temp directory and saves
// it after every change (autosave_on_changes, autosave_interval 1), so a
// restart after Kill loses as little as mosquitto allows. Its queue per
// client is unbounded (max_queued_messages 0), so a slow subscriber is not
// silently dropped from. Tests are skipped if /usr/sbin/mosquitto is missing.
package mqtttest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// MosquittoPath is the broker binary.
var MosquittoPath = "/usr/sbin/mosquitto"

// Option configures StartBroker.
type Option func(*brokerConfig)

type brokerConfig struct {
	users       map[string]string
	acl         string
	extra       []string
	persistence bool
	tls         *TLSFiles
}

// TLSFiles are PEM files for a TLS listener (see WriteTestPKI).
type TLSFiles struct {
	CAFile, CertFile, KeyFile string
	// RequireClientCert makes the broker demand a client certificate
	// signed by CAFile.
	RequireClientCert bool
}

// WithUsers turns anonymous access off and writes a mosquitto password
// file (hashed by mosquitto_passwd) with these user:password pairs.
func WithUsers(users map[string]string) Option {
	return func(c *brokerConfig) { c.users = users }
}

// WithACL writes this text as the broker's acl_file.
func WithACL(acl string) Option { return func(c *brokerConfig) { c.acl = acl } }

// WithConfig appends raw lines to the broker config.
func WithConfig(lines ...string) Option {
	return func(c *brokerConfig) { c.extra = append(c.extra, lines...) }
}

// WithoutPersistence runs the broker without a persistence database.
func WithoutPersistence() Option { return func(c *brokerConfig) { c.persistence = false } }

// WithTLS makes the listener TLS-only with these files.
func WithTLS(f TLSFiles) Option { return func(c *brokerConfig) { c.tls = &f } }

// Broker is a mosquitto child process.
type Broker struct {
	t    testing.TB
	dir  string
	port int
	conf string
	tls  bool

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
	logf *os.File
}

// StartBroker starts mosquitto on a free loopback port and waits until it
// accepts connections. It is stopped by its PID when the test ends.
func StartBroker(t testing.TB, opts ...Option) *Broker {
	t.Helper()
	if _, err := os.Stat(MosquittoPath); err != nil {
		t.Skipf("mqtttest: %s not available: %v", MosquittoPath, err)
	}
	cfg := brokerConfig{persistence: true}
	for _, o := range opts {
		o(&cfg)
	}
	dir, err := os.MkdirTemp("", "mqtttest-")
	if err != nil {
		t.Fatalf("mqtttest: %v", err)
	}
	// mosquitto started as root drops to the mosquitto user unless told
	// otherwise; keep the directory enterable and files readable either way.
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatalf("mqtttest: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	port, err := FreePort()
	if err != nil {
		t.Fatalf("mqtttest: %v", err)
	}
	b := &Broker{t: t, dir: dir, port: port, conf: filepath.Join(dir, "mosquitto.conf"), tls: cfg.tls != nil}
	if err := b.writeConfig(cfg); err != nil {
		t.Fatalf("mqtttest: %v", err)
	}
	t.Cleanup(func() {
		b.Stop()
		if t.Failed() {
			t.Logf("mqtttest: broker log tail:\n%s", b.LogTail(40))
		}
	})
	if err := b.start(); err != nil {
		t.Fatalf("mqtttest: %v", err)
	}
	return b
}

// FreePort returns a loopback TCP port that was free a moment ago.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("mqtttest: free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func (b *Broker) writeConfig(cfg brokerConfig) error {
	var c strings.Builder
	fmt.Fprintf(&c, "# written by mqtttest\n")
	if os.Geteuid() == 0 {
		c.WriteString("user root\n")
	}
	fmt.Fprintf(&c, "listener %d 127.0.0.1\n", b.port)
	if cfg.tls != nil {
		fmt.Fprintf(&c, "cafile %s\ncertfile %s\nkeyfile %s\n", cfg.tls.CAFile, cfg.tls.CertFile, cfg.tls.KeyFile)
		if cfg.tls.RequireClientCert {
			c.WriteString("require_certificate true\n")
		}
	}
	c.WriteString("log_dest stderr\nlog_type error\nlog_type warning\nlog_type notice\nlog_type information\nconnection_messages true\nlog_timestamp_format %Y-%m-%dT%H:%M:%S\n")
	c.WriteString("max_queued_messages 0\nmax_inflight_messages 100\n")
	if cfg.persistence {
		fmt.Fprintf(&c, "persistence true\npersistence_location %s/\nautosave_interval 1\nautosave_on_changes true\n", b.dir)
	}
	if cfg.users != nil {
		pw := filepath.Join(b.dir, "passwd")
		names := make([]string, 0, len(cfg.users))
		for u := range cfg.users {
			names = append(names, u)
		}
		sort.Strings(names)
		var lines bytes.Buffer
		for _, u := range names {
			fmt.Fprintf(&lines, "%s:%s\n", u, cfg.users[u])
		}
		if err := os.WriteFile(pw, lines.Bytes(), 0o644); err != nil {
			return err
		}
		out, err := exec.Command(passwdTool(), "-U", pw).CombinedOutput()
		if err != nil {
			return fmt.Errorf("mosquitto_passwd -U: %w: %s", err, out)
		}
		if err := os.Chmod(pw, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(&c, "allow_anonymous false\npassword_file %s\n", pw)
	} else {
		c.WriteString("allow_anonymous true\n")
	}
	if cfg.acl != "" {
		p := filepath.Join(b.dir, "acl")
		if err := os.WriteFile(p, []byte(cfg.acl), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(&c, "acl_file %s\n", p)
	}
	for _, l := range cfg.extra {
		c.WriteString(l + "\n")
	}
	return os.WriteFile(b.conf, []byte(c.String()), 0o644)
}

func passwdTool() string {
	if p, err := exec.LookPath("mosquitto_passwd"); err == nil {
		return p
	}
	return "/usr/bin/mosquitto_passwd"
}

func (b *Broker) start() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cmd != nil {
		return errors.New("mqtttest: broker already running")
	}
	logf, err := os.OpenFile(filepath.Join(b.dir, "mosquitto.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	cmd := exec.Command(MosquittoPath, "-c", b.conf)
	cmd.Stdout = logf
	cmd.Stderr = logf
	cmd.SysProcAttr = childAttr()
	if err := cmd.Start(); err != nil {
		logf.Close()
		return fmt.Errorf("start mosquitto: %w", err)
	}
	done := make(chan struct{})
	go func() {
		cmd.Wait()
		close(done)
	}()
	b.cmd, b.done, b.logf = cmd, done, logf
	if err := waitListening(b.port, done, 10*time.Second); err != nil {
		cmd.Process.Kill()
		<-done
		b.cmd = nil
		logf.Close()
		return fmt.Errorf("mosquitto did not start: %w\n%s", err, b.LogTail(20))
	}
	return nil
}

// waitListening polls until the port accepts a TCP connection, the process
// exits, or the limit passes.
func waitListening(port int, exited <-chan struct{}, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		select {
		case <-exited:
			return errors.New("process exited")
		case <-ctx.Done():
			return fmt.Errorf("port %d: %w", port, err)
		case <-tick.C:
		}
	}
}

// URL is the broker's address, tcp://127.0.0.1:PORT (ssl:// with WithTLS).
func (b *Broker) URL() string {
	scheme := "tcp"
	if b.tls {
		scheme = "ssl"
	}
	return fmt.Sprintf("%s://127.0.0.1:%d", scheme, b.port)
}

// Port is the broker's TCP port.
func (b *Broker) Port() int { return b.port }

// Dir is the broker's temp directory (config, password file, ACL,
// persistence database, log).
func (b *Broker) Dir() string { return b.dir }

// PID is the running broker's process id (0 if stopped).
func (b *Broker) PID() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cmd == nil {
		return 0
	}
	return b.cmd.Process.Pid
}

// Kill sends SIGKILL to the broker, like a crash, and waits for it to exit.
func (b *Broker) Kill() { b.signal(syscall.SIGKILL, 0) }

// Stop stops the broker with SIGTERM (SIGKILL after 5 s) and waits.
func (b *Broker) Stop() { b.signal(syscall.SIGTERM, 5*time.Second) }

func (b *Broker) signal(sig syscall.Signal, grace time.Duration) {
	b.mu.Lock()
	cmd, done, logf := b.cmd, b.done, b.logf
	b.cmd = nil
	b.mu.Unlock()
	if cmd == nil {
		return
	}
	cmd.Process.Signal(sig)
	if grace > 0 {
		select {
		case <-done:
		case <-time.After(grace):
			cmd.Process.Kill()
			<-done
		}
	} else {
		<-done
	}
	logf.Close()
}

// Restart starts the broker again on the same port with the same config
// and persistence database (after Kill or Stop; a running broker is
// stopped first).
func (b *Broker) Restart() {
	b.t.Helper()
	b.Stop()
	if err := b.start(); err != nil {
		b.t.Fatalf("mqtttest: restart: %v", err)
	}
}

// LogTail returns the last n lines of the broker's log.
func (b *Broker) LogTail(n int) string {
	data, _ := os.ReadFile(filepath.Join(b.dir, "mosquitto.log"))
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

package sdnotify

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// listener is a systemd stand-in: a unixgram socket the test reads from.
type listener struct {
	t    *testing.T
	conn *net.UnixConn
	addr string // NOTIFY_SOCKET value
}

// listenPath binds a socket file in a short temp dir (sun_path is 108 bytes).
func listenPath(t *testing.T) *listener {
	t.Helper()
	dir, err := os.MkdirTemp("", "sdn")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return listenAt(t, filepath.Join(dir, "notify.sock"))
}

func listenAt(t *testing.T, name string) *listener {
	t.Helper()
	c, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: name, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &listener{t: t, conn: c, addr: name}
}

// recv returns the next datagram. The deadline only bounds a failing test;
// a passing test never waits on it because the datagram is already queued.
func (l *listener) recv() string {
	l.t.Helper()
	buf := make([]byte, 4096)
	if err := l.conn.SetReadDeadline(time.Now().Add(5 * time.Second)); err != nil {
		l.t.Fatal(err)
	}
	n, err := l.conn.Read(buf)
	if err != nil {
		l.t.Fatalf("no datagram: %v", err)
	}
	return string(buf[:n])
}

// empty reports whether no datagram is queued (a non-blocking check).
func (l *listener) empty() bool {
	l.t.Helper()
	if err := l.conn.SetReadDeadline(time.Unix(1, 0)); err != nil { // already past
		l.t.Fatal(err)
	}
	buf := make([]byte, 4096)
	n, err := l.conn.Read(buf)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	l.t.Errorf("unexpected datagram %q (err %v)", buf[:n], err)
	return false
}

func TestNotifyStates(t *testing.T) {
	abstract := fmt.Sprintf("@dicewatch-test-%d-%d", os.Getpid(), time.Now().UnixNano())
	sockets := []struct {
		name string
		l    func(t *testing.T) *listener
	}{
		{"path", listenPath},
		{"abstract", func(t *testing.T) *listener { return listenAt(t, abstract) }},
	}
	calls := []struct {
		name string
		call func(n *Notifier) error
		want string
	}{
		{"ready", (*Notifier).Ready, "READY=1"},
		{"status", func(n *Notifier) error { return n.Status("reading\ntable 7") }, "STATUS=reading table 7"},
		{"ready with status", func(n *Notifier) error { return n.ReadyStatus("up") }, "READY=1\nSTATUS=up"},
		{"watchdog", (*Notifier).Ping, "WATCHDOG=1"},
		{"stopping", (*Notifier).Stopping, "STOPPING=1"},
		{"reloading", (*Notifier).Reloading, "RELOADING=1"},
	}
	for _, s := range sockets {
		t.Run(s.name, func(t *testing.T) {
			l := s.l(t)
			n, err := New(l.addr)
			if err != nil {
				t.Fatal(err)
			}
			if !n.Enabled() {
				t.Fatal("notifier disabled")
			}
			for _, c := range calls {
				if err := c.call(n); err != nil {
					t.Fatalf("%s: %v", c.name, err)
				}
				if got := l.recv(); got != c.want {
					t.Errorf("%s sent %q, want %q", c.name, got, c.want)
				}
			}
		})
	}
}

func TestNotifyDisabledAndErrors(t *testing.T) {
	for _, n := range []*Notifier{nil, {}} {
		if n.Enabled() || n.Ready() != nil || n.Ping() != nil {
			t.Error("disabled notifier did something")
		}
	}
	n, err := New("")
	if err != nil || n.Enabled() {
		t.Errorf("New(\"\") = %v, %v; want a disabled notifier", n, err)
	}
	for _, bad := range []string{"relative/path", "@", "vsock:2:1234"} {
		if _, err := New(bad); !errors.Is(err, ErrUnsupportedSocket) {
			t.Errorf("New(%q) error %v, want ErrUnsupportedSocket", bad, err)
		}
	}
	// A socket path nobody listens on: the send fails with a wrapped error.
	dir, err := os.MkdirTemp("", "sdn")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	n, err = New(filepath.Join(dir, "gone.sock"))
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Ready(); err == nil {
		t.Error("Ready to a missing socket succeeded")
	}
}

func TestWatchdogInterval(t *testing.T) {
	const pid = 4242
	tests := []struct {
		name    string
		env     map[string]string
		want    time.Duration
		wantOK  bool
		wantErr bool
	}{
		{"not configured", nil, 0, false, false},
		{"ours, no pid", map[string]string{EnvWatchdogUSec: "10000000"}, 10 * time.Second, true, false},
		{"ours by pid", map[string]string{EnvWatchdogUSec: "3000000", EnvWatchdogPID: strconv.Itoa(pid)}, 3 * time.Second, true, false},
		{"another process", map[string]string{EnvWatchdogUSec: "3000000", EnvWatchdogPID: "1"}, 0, false, false},
		{"zero", map[string]string{EnvWatchdogUSec: "0"}, 0, false, true},
		{"garbage usec", map[string]string{EnvWatchdogUSec: "ten"}, 0, false, true},
		{"negative", map[string]string{EnvWatchdogUSec: "-5"}, 0, false, true},
		{"too large", map[string]string{EnvWatchdogUSec: "9223372036854775807"}, 0, false, true},
		{"garbage pid", map[string]string{EnvWatchdogUSec: "1000", EnvWatchdogPID: "x"}, 0, false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, ok, err := WatchdogInterval(func(k string) string { return tc.env[k] }, pid)
			if (err != nil) != tc.wantErr || ok != tc.wantOK || d != tc.want {
				t.Errorf("= %v, %v, %v; want %v, %v, err %v", d, ok, err, tc.want, tc.wantOK, tc.wantErr)
			}
		})
	}
}

func TestWatchdogPingsOnlyOnProgress(t *testing.T) {
	l := listenPath(t)
	n, err := New(l.addr)
	if err != nil {
		t.Fatal(err)
	}
	wd := NewWatchdog(n, 10*time.Second)
	if wd.Period() != 5*time.Second {
		t.Errorf("period %v, want 5s", wd.Period())
	}
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	// Each step: frames the loop finishes, then one tick at t0+at.
	steps := []struct {
		name     string
		frames   int
		wantSent bool
	}{
		{"no frame yet", 0, false},
		{"frames flowing", 150, true},
		{"still flowing", 1, true},
		{"camera hung", 0, false},
		{"still hung", 0, false},
		{"recovered", 30, true},
	}
	for i, s := range steps {
		for j := 0; j < s.frames; j++ {
			wd.Pet()
		}
		now := t0.Add(time.Duration(i) * wd.Period())
		sent, err := wd.Tick(now)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if sent != s.wantSent {
			t.Errorf("%s: sent %v, want %v", s.name, sent, s.wantSent)
		}
		if s.wantSent {
			if got := l.recv(); got != "WATCHDOG=1" {
				t.Errorf("%s: datagram %q", s.name, got)
			}
			if !wd.LastPing().Equal(now) {
				t.Errorf("%s: last ping %v, want %v", s.name, wd.LastPing(), now)
			}
		} else {
			l.empty()
		}
	}
}

func TestWatchdogDisabled(t *testing.T) {
	tests := []struct {
		name    string
		n       *Notifier
		timeout time.Duration
	}{
		{"no notifier", nil, 10 * time.Second},
		{"not under systemd", &Notifier{}, 10 * time.Second},
		{"no timeout", func() *Notifier { n, _ := New("/nonexistent/sock"); return n }(), 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wd := NewWatchdog(tc.n, tc.timeout)
			wd.Pet()
			sent, err := wd.Tick(time.Unix(1, 0))
			if sent || err != nil || wd.Enabled() || wd.Period() != 0 {
				t.Errorf("sent %v err %v enabled %v period %v", sent, err, wd.Enabled(), wd.Period())
			}
		})
	}
}

func TestWatchdogRun(t *testing.T) {
	l := listenPath(t)
	n, err := New(l.addr)
	if err != nil {
		t.Fatal(err)
	}
	wd := NewWatchdog(n, 2*time.Second)
	ticks := make(chan time.Time)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { wd.Run(ctx, ticks, func(err error) { t.Errorf("send error: %v", err) }); close(done) }()

	wd.Pet()
	ticks <- time.Unix(10, 0) // progress: ping
	if got := l.recv(); got != "WATCHDOG=1" {
		t.Errorf("datagram %q", got)
	}
	ticks <- time.Unix(11, 0) // no progress: nothing
	wd.Pet()
	ticks <- time.Unix(12, 0) // progress again: ping
	if got := l.recv(); got != "WATCHDOG=1" {
		t.Errorf("datagram %q", got)
	}
	// The unbuffered sends above mean Run took every tick; the second tick
	// sent nothing, or recv would have returned two datagrams in order and
	// this check would find one left over.
	cancel()
	<-done
	l.empty()
}

// Package sdnotify speaks the systemd service notification protocol: state
// lines ("READY=1", "STATUS=…", "WATCHDOG=1", "STOPPING=1") sent as one
// datagram to the AF_UNIX socket named by $NOTIFY_SOCKET, which may be a
// path or an abstract socket written with a leading '@'. Outside systemd
// (no $NOTIFY_SOCKET) every call is a no-op.
//
// The Watchdog helper sends WATCHDOG=1 only when the frame loop made
// progress since the previous ping, so a hung camera stops the pings and
// systemd restarts the service after WatchdogSec.
package sdnotify

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Environment variables systemd sets for a service.
const (
	EnvSocket       = "NOTIFY_SOCKET"
	EnvWatchdogUSec = "WATCHDOG_USEC"
	EnvWatchdogPID  = "WATCHDOG_PID"
)

// ErrUnsupportedSocket is returned for a NOTIFY_SOCKET that is neither a
// path nor an abstract socket (for example systemd's vsock: addresses).
var ErrUnsupportedSocket = errors.New("sdnotify: unsupported NOTIFY_SOCKET address")

// Notifier sends state lines to systemd. The zero value and a nil *Notifier
// are disabled: every method returns nil without doing anything.
type Notifier struct {
	addr *net.UnixAddr
}

// FromEnv returns a Notifier for $NOTIFY_SOCKET; it is disabled when the
// variable is empty (not started by systemd, or Type=simple).
func FromEnv() (*Notifier, error) { return New(os.Getenv(EnvSocket)) }

// New returns a Notifier for a NOTIFY_SOCKET value: an absolute path, or
// '@' followed by an abstract socket name. An empty value is disabled.
func New(socket string) (*Notifier, error) {
	switch {
	case socket == "":
		return &Notifier{}, nil
	case strings.HasPrefix(socket, "/"), strings.HasPrefix(socket, "@") && len(socket) > 1:
		// Go's net package maps a leading '@' to the abstract namespace.
		return &Notifier{addr: &net.UnixAddr{Name: socket, Net: "unixgram"}}, nil
	default:
		return nil, fmt.Errorf("%w: %q", ErrUnsupportedSocket, socket)
	}
}

// Enabled reports whether notifications are sent anywhere.
func (n *Notifier) Enabled() bool { return n != nil && n.addr != nil }

// Notify sends state, one or more newline-separated KEY=VALUE lines, as a
// single datagram. A fresh socket per call keeps working across a systemd
// re-exec; notifications are rare (start, stop, a ping every few seconds).
func (n *Notifier) Notify(state string) error {
	if !n.Enabled() {
		return nil
	}
	c, err := net.DialUnix("unixgram", nil, n.addr)
	if err != nil {
		return fmt.Errorf("sdnotify: dial %s: %w", n.addr.Name, err)
	}
	defer c.Close()
	if _, err := c.Write([]byte(state)); err != nil {
		return fmt.Errorf("sdnotify: send %q: %w", firstKey(state), err)
	}
	return nil
}

// Ready tells systemd start-up is complete (Type=notify). Send it only
// when camera, calibration and broker are up.
func (n *Notifier) Ready() error { return n.Notify("READY=1") }

// ReadyStatus sends READY=1 together with a status line.
func (n *Notifier) ReadyStatus(status string) error {
	return n.Notify("READY=1\nSTATUS=" + oneLine(status))
}

// Status sets the one-line status shown by systemctl status.
func (n *Notifier) Status(status string) error { return n.Notify("STATUS=" + oneLine(status)) }

// Stopping tells systemd the service is shutting down.
func (n *Notifier) Stopping() error { return n.Notify("STOPPING=1") }

// Reloading tells systemd a configuration reload started; send Ready when
// it is done.
func (n *Notifier) Reloading() error { return n.Notify("RELOADING=1") }

// Ping sends WATCHDOG=1 unconditionally. The frame loop should go through
// Watchdog instead, which pings only on progress.
func (n *Notifier) Ping() error { return n.Notify("WATCHDOG=1") }

func oneLine(s string) string { return strings.ReplaceAll(s, "\n", " ") }

func firstKey(state string) string {
	k, _, _ := strings.Cut(state, "=")
	return k
}

// WatchdogInterval returns the watchdog timeout systemd expects pings
// within, from WATCHDOG_USEC and WATCHDOG_PID (read through getenv; pass
// os.Getenv and os.Getpid()). ok is false when no watchdog is configured or
// it is meant for another process. A malformed value is an error.
func WatchdogInterval(getenv func(string) string, pid int) (d time.Duration, ok bool, err error) {
	us := getenv(EnvWatchdogUSec)
	if us == "" {
		return 0, false, nil
	}
	if p := getenv(EnvWatchdogPID); p != "" {
		wp, err := strconv.Atoi(p)
		if err != nil || wp <= 0 {
			return 0, false, fmt.Errorf("sdnotify: bad %s %q", EnvWatchdogPID, p)
		}
		if wp != pid {
			return 0, false, nil
		}
	}
	u, err := strconv.ParseUint(us, 10, 63)
	if err != nil || u == 0 {
		return 0, false, fmt.Errorf("sdnotify: bad %s %q", EnvWatchdogUSec, us)
	}
	if u > uint64(time.Duration(1<<63-1)/time.Microsecond) {
		return 0, false, fmt.Errorf("sdnotify: %s %q out of range", EnvWatchdogUSec, us)
	}
	return time.Duration(u) * time.Microsecond, true, nil
}

// Watchdog pings systemd's watchdog only while the frame loop makes
// progress. The frame loop calls Pet for every frame it finishes (an atomic
// add); a separate goroutine calls Tick every Period (Run does that from a
// ticker channel). Tick sends WATCHDOG=1 only when Pet was called since the
// last ping, so when the camera hangs the pings stop and systemd kills and
// restarts the service WatchdogSec later.
//
// Progress means the loop came round, not that a frame arrived: while the
// camera is lost and the loop is reconnecting with backoff, each attempt
// (failed or not) should Pet too, with a backoff step shorter than Period.
// Otherwise an unplugged camera becomes a restart loop instead of a fault
// event and a recovery. Only a call that never returns (a hung driver)
// stops the pets.
type Watchdog struct {
	n        *Notifier
	timeout  time.Duration
	progress atomic.Uint64

	// Owned by the goroutine calling Tick.
	lastSeen uint64
	lastPing time.Time
}

// NewWatchdog returns a watchdog for the given systemd timeout (from
// WatchdogInterval). A nil or disabled notifier or a zero timeout make a
// watchdog that counts progress but never sends.
func NewWatchdog(n *Notifier, timeout time.Duration) *Watchdog {
	return &Watchdog{n: n, timeout: timeout}
}

// Enabled reports whether pings are sent anywhere.
func (w *Watchdog) Enabled() bool { return w.n.Enabled() && w.timeout > 0 }

// Period is how often Tick should run: half the timeout, as systemd
// recommends, so one late tick does not trigger a restart. It is zero when
// the watchdog is disabled.
func (w *Watchdog) Period() time.Duration {
	if !w.Enabled() {
		return 0
	}
	return w.timeout / 2
}

// Pet records that the frame loop made progress. It is cheap and safe to
// call from any goroutine.
func (w *Watchdog) Pet() { w.progress.Add(1) }

// Tick sends WATCHDOG=1 if the loop made progress since the last ping, and
// reports whether it sent. now is the caller's clock reading, kept for
// LastPing. Tick must be called from one goroutine at a time.
func (w *Watchdog) Tick(now time.Time) (sent bool, err error) {
	p := w.progress.Load()
	if p == w.lastSeen {
		return false, nil // no frame since the last ping (or none yet)
	}
	w.lastSeen = p
	if !w.Enabled() {
		return false, nil
	}
	if err := w.n.Ping(); err != nil {
		return false, err
	}
	w.lastPing = now
	return true, nil
}

// LastPing is the clock reading of the last successful ping (zero before).
// Read it only from the goroutine calling Tick.
func (w *Watchdog) LastPing() time.Time { return w.lastPing }

// Run calls Tick for every value received from ticks until ctx is done or
// ticks is closed. In the daemon:
//
//	t := time.NewTicker(wd.Period()); defer t.Stop()
//	go wd.Run(ctx, t.C, onErr)
//
// onErr (may be nil) receives send errors; Run keeps going after them.
func (w *Watchdog) Run(ctx context.Context, ticks <-chan time.Time, onErr func(error)) {
	for {
		select {
		case <-ctx.Done():
			return
		case now, ok := <-ticks:
			if !ok {
				return
			}
			if _, err := w.Tick(now); err != nil && onErr != nil {
				onErr(err)
			}
		}
	}
}

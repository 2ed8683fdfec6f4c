package calibration

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
)

// Watcher holds the calibration in force and reloads it on request (the
// daemon calls Reload on SIGHUP). A file that fails to load, to validate,
// or the extra check (for example CheckResolution against the running
// camera) is refused and the calibration in force is kept.
type Watcher struct {
	path  string
	check func(*Calibration) error
	cur   atomic.Pointer[Calibration]
	mu    sync.Mutex // serialises reloads
}

// NewWatcher loads path (and runs check on it, when not nil).
func NewWatcher(path string, check func(*Calibration) error) (*Watcher, error) {
	w := &Watcher{path: path, check: check}
	c, err := w.load()
	if err != nil {
		return nil, err
	}
	w.cur.Store(c)
	return w, nil
}

func (w *Watcher) load() (*Calibration, error) {
	c, err := Load(w.path)
	if err != nil {
		return nil, err
	}
	if w.check != nil {
		if err := w.check(c); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Current is the calibration in force. Safe for concurrent use.
func (w *Watcher) Current() *Calibration { return w.cur.Load() }

// Reload reads the file again. On success the new calibration is in force
// and changed says whether its hash differs from the old one; on error the
// old calibration stays in force and the error says why the file was
// refused.
func (w *Watcher) Reload() (c *Calibration, changed bool, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	old := w.cur.Load()
	c, err = w.load()
	if err != nil {
		return old, false, fmt.Errorf("calibration: reload refused, keeping %s: %w", old.Hash(), err)
	}
	w.cur.Store(c)
	return c, c.Hash() != old.Hash(), nil
}

// Run reloads on every value from reload (e.g. a channel fed by
// signal.Notify for SIGHUP) until ctx is done. onChange (if not nil) is
// called with each newly loaded calibration whose hash changed. Refusals
// are logged and the old calibration is kept.
func (w *Watcher) Run(ctx context.Context, reload <-chan struct{}, logger *slog.Logger, onChange func(*Calibration)) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-reload:
			c, changed, err := w.Reload()
			if err != nil {
				logger.Error("calibration reload refused", "path", w.path, "hash", c.Hash(), "err", err)
				continue
			}
			logger.Info("calibration reloaded", "path", w.path, "hash", c.Hash(), "changed", changed)
			if changed && onChange != nil {
				onChange(c)
			}
		}
	}
}

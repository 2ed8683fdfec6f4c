//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package journal

import (
	"errors"
	"fmt"
	"os"
	"runtime"
)

// lockExclusive refuses: without flock(2) nothing keeps a second process
// from appending to the same journal and repeating its seqs, so Open
// fails here instead of running unlocked.
func lockExclusive(*os.File) error {
	return fmt.Errorf("no flock(2) on %s to keep the journal to one process: %w", runtime.GOOS, errors.ErrUnsupported)
}

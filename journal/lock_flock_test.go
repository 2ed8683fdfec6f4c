//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package journal

import (
	"os"
	"syscall"
)

// tryShared takes and drops a shared flock on f without waiting: an error
// while another open file holds the exclusive one.
func tryShared(f *os.File) error {
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		return err
	}
	return syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
}

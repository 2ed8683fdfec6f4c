// Package journaltest gives tests a file system that fills up: a small
// tmpfs, and a way to fill it, for the journal's and the daemon's
// full-disk tests.
package journaltest

import (
	"errors"
	"os"
	"syscall"
	"testing"
)

// SmallDisk mounts a tmpfs of size (as mount takes it: "256k", "24m") on
// a temporary folder for the test and returns its path, unmounted when
// the test ends. It skips the test where mounting is not permitted (not
// root, no CAP_SYS_ADMIN, a sandbox).
func SmallDisk(t testing.TB, size string) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		t.Skipf("cannot mount a %s tmpfs for a full disk: %v", size, err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// Fill writes the file path until its file system is full (ENOSPC); any
// other error is returned.
func Fill(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for {
		if _, err := f.Write(buf); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				return nil
			}
			return err
		}
	}
}

package journaltest

import (
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

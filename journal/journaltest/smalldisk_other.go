//go:build !linux

package journaltest

import (
	"runtime"
	"testing"
)

// SmallDisk skips the test: mounting a small tmpfs is Linux's.
func SmallDisk(t testing.TB, size string) string {
	t.Helper()
	t.Skipf("a %s tmpfs for a full disk needs Linux (this is %s)", size, runtime.GOOS)
	return ""
}

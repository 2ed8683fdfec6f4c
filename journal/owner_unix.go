//go:build unix

package journal

import (
	"os"
	"syscall"
)

// sameOwner gives path the owner and group of like, where the caller may
// (root may): a repair run as root must leave files the daemon's own user
// can still open. What it may not do is left as it is.
func sameOwner(path, like string) {
	info, err := os.Stat(like)
	if err != nil {
		return
	}
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		_ = os.Lchown(path, int(st.Uid), int(st.Gid))
	}
}

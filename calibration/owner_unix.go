//go:build unix

package calibration

import (
	"os"
	"syscall"
)

// keepOwner gives path the owner and group of the file old describes, as
// far as the caller may (root may; another user may keep the group if it
// is one of theirs). What it may not do is left as it is.
func keepOwner(path string, old os.FileInfo) {
	st, ok := old.Sys().(*syscall.Stat_t)
	if !ok {
		return
	}
	if os.Chown(path, int(st.Uid), int(st.Gid)) != nil {
		_ = os.Chown(path, -1, int(st.Gid))
	}
}

package mqtt

import (
	"os"
	"syscall"
)

// reservePage is the granularity of the search for the room that is left.
const reservePage = 4 << 10

// reserveSpace allocates n bytes of f past off without changing its size
// (FALLOC_FL_KEEP_SIZE), so appends there need no new blocks on a full
// disk. Best effort: where it cannot (a file system without fallocate)
// nothing changes. Where the whole of it does not fit (a disk full, with
// part of the reserve used or freed by a cut at the start) it keeps as
// much as it can, to a page: tmpfs allocates all of a request or none of
// it, and asking for the whole reserve again after a start's cut left the
// store with only its last page.
func reserveSpace(f *os.File, off, n int64) {
	const keepSize = 0x1 // FALLOC_FL_KEEP_SIZE
	fd := int(f.Fd())
	err := syscall.Fallocate(fd, keepSize, off, n)
	if err != syscall.ENOSPC {
		return
	}
	// Room for lo bytes is held (none asked yet); hi bytes do not fit.
	lo, hi := int64(0), n
	for hi-lo > reservePage {
		mid := lo + (hi-lo)/2
		if syscall.Fallocate(fd, keepSize, off, mid) == nil {
			lo = mid
		} else {
			hi = mid
		}
	}
}

package mqtt

import (
	"os"
	"syscall"
)

// reserveSpace allocates n bytes of f past off without changing its size
// (FALLOC_FL_KEEP_SIZE), so appends there need no new blocks on a full
// disk. Best effort: where it cannot (the disk already full, a file system
// without fallocate) nothing changes.
func reserveSpace(f *os.File, off, n int64) {
	const keepSize = 0x1 // FALLOC_FL_KEEP_SIZE
	_ = syscall.Fallocate(int(f.Fd()), keepSize, off, n)
}

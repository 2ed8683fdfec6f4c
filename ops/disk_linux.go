package ops

import (
	"fmt"
	"syscall"
)

// DiskSpace returns the bytes available to an unprivileged writer and the
// total size of the file system holding path (for dicewatch_disk_free_bytes
// and the "disk nearly full" fault).
func DiskSpace(path string) (free, total uint64, err error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return 0, 0, fmt.Errorf("ops: statfs %s: %w", path, err)
	}
	bs := uint64(st.Bsize)
	return st.Bavail * bs, st.Blocks * bs, nil
}

// FileSystemID names the file system holding path: two paths with the same
// ID share free space (the device number stat gives, equal for every folder
// of one mount and for bind mounts of it).
func FileSystemID(path string) (uint64, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return 0, fmt.Errorf("ops: stat %s: %w", path, err)
	}
	return uint64(st.Dev), nil // Dev is narrower on some Linux ports
}

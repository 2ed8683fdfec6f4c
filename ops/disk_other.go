//go:build !linux

package ops

import (
	"errors"
	"fmt"
)

// DiskSpace is only implemented on Linux.
func DiskSpace(path string) (free, total uint64, err error) {
	return 0, 0, fmt.Errorf("ops: statfs %s: %w", path, errors.ErrUnsupported)
}

// FileSystemID is only implemented on Linux.
func FileSystemID(path string) (uint64, error) {
	return 0, fmt.Errorf("ops: stat %s: %w", path, errors.ErrUnsupported)
}

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

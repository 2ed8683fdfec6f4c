//go:build !linux

package journal

import "os"

// fdatasync falls back to a full fsync where there is no fdatasync(2)
// (on macOS, os.File.Sync asks the drive to flush too: F_FULLFSYNC).
func fdatasync(f *os.File) error { return f.Sync() }

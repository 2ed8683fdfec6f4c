//go:build linux

package ops

import (
	"errors"
	"io/fs"
	"path/filepath"
	"testing"
)

func TestDiskSpace(t *testing.T) {
	dir := t.TempDir()
	free, total, err := DiskSpace(dir)
	if err != nil {
		t.Fatal(err)
	}
	if total == 0 || free > total {
		t.Errorf("free %d total %d: want 0 < total and free <= total", free, total)
	}
	if _, _, err := DiskSpace(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing path: err %v, want ErrNotExist", err)
	}
}

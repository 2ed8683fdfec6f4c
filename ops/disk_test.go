//go:build linux

package ops

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/dicewatch/dicewatch/journal/journaltest"
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

// TestFileSystemID tells two tmpfs mounts apart and finds two folders of
// one mount alike.
func TestFileSystemID(t *testing.T) {
	a, b := journaltest.SmallDisk(t, "64k"), journaltest.SmallDisk(t, "64k")
	if err := os.Mkdir(filepath.Join(a, "sub"), 0o750); err != nil {
		t.Fatal(err)
	}
	ida, err := FileSystemID(a)
	if err != nil {
		t.Fatal(err)
	}
	idsub, err := FileSystemID(filepath.Join(a, "sub"))
	if err != nil {
		t.Fatal(err)
	}
	idb, err := FileSystemID(b)
	if err != nil {
		t.Fatal(err)
	}
	if ida != idsub {
		t.Errorf("a folder of a mount has ID %d, the mount %d: want one file system", idsub, ida)
	}
	if ida == idb {
		t.Errorf("two tmpfs mounts share ID %d", ida)
	}
	if _, err := FileSystemID(filepath.Join(a, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing path: err %v, want ErrNotExist", err)
	}
}

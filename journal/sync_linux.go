package journal

import (
	"os"
	"syscall"
)

// fdatasync makes f's data durable without its metadata times (the size,
// which it does sync, is what a reader needs).
func fdatasync(f *os.File) error { return syscall.Fdatasync(int(f.Fd())) }

// Package journaltest gives tests a file system that fills up: a small
// tmpfs, and a way to fill it, for the journal's and the daemon's
// full-disk tests.
package journaltest

import (
	"errors"
	"os"
	"syscall"
)

// Fill writes the file path until its file system is full (ENOSPC); any
// other error is returned.
func Fill(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for {
		if _, err := f.Write(buf); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				return nil
			}
			return err
		}
	}
}

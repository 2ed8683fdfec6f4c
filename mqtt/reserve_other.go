//go:build !linux

package mqtt

import "os"

// reserveSpace does nothing here: only Linux has fallocate's KEEP_SIZE.
func reserveSpace(*os.File, int64, int64) {}

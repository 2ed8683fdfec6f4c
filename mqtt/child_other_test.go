//go:build !linux

package mqtt

import "syscall"

// childAttr is empty here: only Linux kills a child when its parent dies.
func childAttr() *syscall.SysProcAttr { return nil }

//go:build !linux

package mqtttest

import "syscall"

// childAttr is empty here: only Linux kills a child when its parent dies,
// so a test process killed outright leaves its broker running.
func childAttr() *syscall.SysProcAttr { return nil }

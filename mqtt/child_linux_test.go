package mqtt

import "syscall"

// childAttr has the kernel kill a helper daemon if the test dies first.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

package mqtttest

import "syscall"

// childAttr has the kernel kill the broker if the test process dies
// before it can stop it.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

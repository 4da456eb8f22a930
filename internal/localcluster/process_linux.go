package localcluster

import "syscall"

// childAttrs puts a child in its own process group and asks the kernel to
// send it SIGTERM when the process that started it dies.
func childAttrs() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}

package localcluster

import "syscall"

// childAttrs puts a child in its own process group and asks the kernel to
// kill it when the process that started it dies. SIGKILL, not SIGTERM: all
// components get the signal at once, and a kube-apiserver told to stop
// gracefully while its etcd vanishes can hang in shutdown for minutes. The
// data of a run that ended that way is treated as unclean anyway.
func childAttrs() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

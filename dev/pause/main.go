// Command pause is the sandbox ("pause") container of the local fleet's real
// nodes: it holds a pod's namespaces and does nothing else until it is
// signalled. Nothing can be pulled on the machines the fleet runs on, so
// the fleet builds this one (a static binary, an image FROM scratch) instead
// of registry.k8s.io/pause.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	// As the first process of its PID namespace it must reap orphans, or
	// they stay zombies for the pod's life.
	reap := make(chan os.Signal, 1)
	signal.Notify(reap, syscall.SIGCHLD)
	for {
		select {
		case <-stop:
			return
		case <-reap:
			for {
				pid, err := syscall.Wait4(-1, nil, syscall.WNOHANG, nil)
				if pid <= 0 || err != nil {
					break
				}
			}
		}
	}
}

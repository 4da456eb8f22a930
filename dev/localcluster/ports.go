package localcluster

import (
	"fmt"
	"net"
	"slices"
)

// freePorts returns n distinct loopback ports that were free a moment ago.
// Another process may still take one before it is used; Start retries with
// new ports when a component reports its address in use.
func freePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	listeners := make([]net.Listener, 0, n)
	defer func() {
		for _, l := range listeners {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		listeners = append(listeners, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// freePortsBut is freePorts, none of them avoid.
func freePortsBut(n, avoid int) ([]int, error) {
	ports, err := freePorts(n + 1)
	if err != nil {
		return nil, err
	}
	return firstBut(ports, n, avoid), nil
}

// firstBut is the first n of ports (n+1 of them) that are not avoid.
func firstBut(ports []int, n, avoid int) []int {
	if i := slices.Index(ports, avoid); i >= 0 {
		return slices.Delete(ports, i, i+1)
	}
	return ports[:n]
}

// isFree says whether port on the loopback address can be listened on now.
func isFree(port int) bool {
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return false
	}
	_ = l.Close()
	return true
}

// FreePort is a loopback port that was free a moment ago, for a process a
// test starts beside its control planes.
func FreePort() (int, error) {
	ports, err := freePorts(1)
	if err != nil {
		return 0, err
	}
	return ports[0], nil
}

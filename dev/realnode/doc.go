// Package realnode runs the real nodes of the local fleet: a kubelet with
// its own containerd and runc, and a kube-proxy, so that pods scheduled there
// really run, with `kubectl logs`, `exec` and `port-forward`.
//
// Everything a node makes stays on the machine and is found again by name:
//
//   - The fleet's Network is one bridge on the host ("crl<id>") with the
//     address its API servers listen on, in a 10.x.0.0/16 no interface or
//     route of the machine uses. Each node lives in a network namespace of
//     its own ("corral-<id>-<node>"), wired to the bridge by a veth pair,
//     with its own address there and a /24 for its pods behind it; the
//     kubelet's and kube-proxy's rules live in that namespace.
//   - A node's processes share a private mount namespace in which /run,
//     /var/lib and /var/log are empty tmpfs: the kubelet's volume mounts, the
//     pods' network namespaces, containerd's shim sockets and the CNI state
//     are all in it, and vanish with the node's last process.
//   - Every process of a node — containerd, its shims, the kubelet,
//     kube-proxy and the containers — is in the cgroup "corral-<id>-<node>"
//     of every hierarchy (the kubelet's cgroupRoot), so stopping a node, or
//     cleaning up after a crash, is killing what that cgroup holds and
//     removing it.
//
// ClusterIP Services work (kube-proxy in nftables mode, masquerading all
// Service traffic so a pod may reach a Service backed by its own bridge);
// there is no cluster DNS, so a pod reaches a Service by its ClusterIP, and
// the API server by KUBERNETES_SERVICE_HOST, not by name.
//
// Remove and RemoveLeftovers undo all of it, and only it: what they touch is
// named with the fleet's id.
package realnode

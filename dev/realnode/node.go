package realnode

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Node is one real node: where it lives and what it needs of its cluster.
type Node struct {
	// Name is the node's name in its cluster, and its hostname.
	Name string
	// Dir holds the node's configuration, containerd's data, the pods' logs.
	Dir string
	// BinDir holds kubelet and kube-proxy; CNIBinDir the CNI plugins.
	BinDir, CNIBinDir string
	// Net is the node's place on the fleet's network.
	Net NodeNet
	// Kubeconfig is the kubelet's (system:node:<Name>), ProxyKubeconfig
	// kube-proxy's; ClientCA verifies the API server's client certificate
	// when it calls the kubelet (logs, exec, port-forward).
	Kubeconfig, ProxyKubeconfig, ClientCA string
	// Labels and Taints are registered with the node.
	Labels map[string]string
	Taints []string
}

// CNIBinDirs are where Debian's containernetworking-plugins and the
// upstream layout put the CNI plugins; the first that has bridge is used.
var CNIBinDirs = []string{"/usr/lib/cni", "/opt/cni/bin"}

// FindCNIBinDir is the first of CNIBinDirs that holds the bridge plugin, or
// "" when none does.
func FindCNIBinDir() string {
	for _, d := range CNIBinDirs {
		if _, err := os.Stat(filepath.Join(d, "bridge")); err == nil {
			return d
		}
	}
	return ""
}

// IP is the node's address; the ones below are shorthands of Net's.
func (n Node) IP() string      { return n.Net.IP }
func (n Node) PodCIDR() string { return n.Net.PodCIDR }

// Socket is the node's containerd socket.
func (n Node) Socket() string { return filepath.Join(n.Dir, containerdSocketFile) }

// Prepare writes the node's configuration, creates its cgroup and wires
// its network namespace. Remove undoes it.
func (n Node) Prepare() error {
	if n.CNIBinDir == "" {
		return errors.New("no CNI plugins: install them (apt-get install containernetworking-plugins)")
	}
	if err := n.writeConfigs(); err != nil {
		return err
	}
	if _, err := createCgroups(cgroupName(n.Net.Network.ID, n.Name)); err != nil {
		return err
	}
	return n.Net.wire()
}

// Remove kills every process of the node (containers included), removes its
// cgroups and its network namespace. Its directory stays, for its logs.
func (n Node) Remove() error {
	return errors.Join(removeCgroups(cgroupName(n.Net.Network.ID, n.Name)), n.Net.unwire())
}

// RemoveLeftovers removes what the nodes and the network of the fleet with
// id left behind: their processes, cgroups, network namespaces and bridge.
// What other fleets made is not touched.
func RemoveLeftovers(id string) error {
	prefix := nsPrefix(id)
	errs := []error{removeCgroups(prefix)}
	names, err := netNSes(prefix)
	errs = append(errs, err)
	for _, name := range names {
		errs = append(errs, removeNetNS(name))
	}
	errs = append(errs, removeVeths(id), Network{ID: id}.Remove())
	return errors.Join(errs...)
}

// Command is how to run one of a node's processes: in its network
// namespace, its mount namespace and its cgroup.
type Command struct {
	Name string
	Path string
	Args []string
}

// enter is the shell that puts itself in the node's cgroup and runs "$@".
func (n Node) enter(extra string) string {
	var b strings.Builder
	b.WriteString("set -e\n")
	roots, err := hierarchies()
	if err != nil {
		// Prepare found them; should they be gone, run nothing outside
		// the node's cgroup, where no cleanup would find it.
		fmt.Fprintf(&b, "echo %q >&2; exit 1\n", err.Error())
	}
	for _, r := range roots {
		fmt.Fprintf(&b, "echo $$ > %s/cgroup.procs\n", filepath.Join(r, cgroupName(n.Net.Network.ID, n.Name), systemCgroup))
	}
	b.WriteString(extra)
	b.WriteString(`exec "$@"` + "\n")
	return b.String()
}

// privateDirs are the directories a node sees empty and its own: what the
// kubelet, containerd and the CNI plugins put there by fixed paths
// (/var/lib/kubelet, /run/containerd/s, /var/run/netns, /var/lib/cni,
// /var/log/containers) goes when the node does.
var privateDirs = []string{"/run", "/var/lib", "/var/log"}

// Containerd starts the node's containerd, which makes the node's private
// mount namespace that its other processes join.
func (n Node) Containerd() Command {
	var mounts strings.Builder
	for _, d := range privateDirs {
		fmt.Fprintf(&mounts, "mount -t tmpfs -o mode=0755 corral-node %s\n", d)
	}
	args := []string{
		"--net=/run/netns/" + n.Net.NetNS(), "--",
		"unshare", "--mount", "--propagation", "private", "--",
		"/bin/sh", "-c", n.enter(mounts.String()), "containerd",
		"containerd", "--config", filepath.Join(n.Dir, containerdConfigFile),
	}
	return Command{Name: "containerd", Path: nsenterPath(), Args: args}
}

// Kubelet starts the kubelet in the namespaces of the containerd with pid.
func (n Node) Kubelet(containerdPID int) Command {
	args := []string{
		"--config=" + filepath.Join(n.Dir, kubeletConfigFile),
		"--kubeconfig=" + n.Kubeconfig,
		"--root-dir=/var/lib/kubelet",
		"--hostname-override=" + n.Name,
		"--node-ip=" + n.IP(),
	}
	if len(n.Labels) > 0 {
		var l []string
		for k, v := range n.Labels {
			l = append(l, k+"="+v)
		}
		sort.Strings(l)
		args = append(args, "--node-labels="+strings.Join(l, ","))
	}
	if len(n.Taints) > 0 {
		args = append(args, "--register-with-taints="+strings.Join(n.Taints, ","))
	}
	return n.joined("kubelet", containerdPID, args)
}

// Proxy starts kube-proxy in the namespaces of the containerd with pid.
func (n Node) Proxy(containerdPID int) Command {
	return n.joined("kube-proxy", containerdPID, []string{"--config=" + filepath.Join(n.Dir, proxyConfigFile)})
}

func (n Node) joined(name string, pid int, args []string) Command {
	all := append([]string{
		"--target", strconv.Itoa(pid), "--mount", "--net", "--",
		"/bin/sh", "-c", n.enter(""), name, filepath.Join(n.BinDir, name),
	}, args...)
	return Command{Name: name, Path: nsenterPath(), Args: all}
}

func nsenterPath() string {
	if p, err := exec.LookPath("nsenter"); err == nil {
		return p
	}
	return "nsenter"
}

// ContainerdReady says whether containerd answers on its socket.
func (n Node) ContainerdReady(ctx context.Context) error {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", n.Socket())
	if err != nil {
		return err
	}
	return c.Close()
}

// ProxyHealthURL is kube-proxy's health endpoint, 200 once it has synced.
func (n Node) ProxyHealthURL() string {
	return fmt.Sprintf("http://%s:%d/healthz", n.IP(), proxyHealthPort)
}

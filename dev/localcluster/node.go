package localcluster

import (
	"context"
	"fmt"
	"net"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/corral-dev/corral/dev/realnode"
)

// Where pods go on a cluster with a real node: kwok's nodes carry the taint
// KwokTaintKey=KwokNodeValue:NoSchedule, so that only a pod that tolerates
// it (KwokToleration: a scale test's) lands there, and everything else runs
// on the real node, labelled RealNodeLabel.
const (
	KwokTaintKey  = KwokNodeAnnotation
	RealNodeLabel = "node.corral.dev/real"
	// NodeDir is the real node's directory, inside the cluster's.
	NodeDir = "node"
)

// KwokToleration is what a pod meant for kwok's nodes tolerates.
func KwokToleration() corev1.Toleration {
	return corev1.Toleration{Key: KwokTaintKey, Operator: corev1.TolerationOpEqual, Value: KwokNodeValue, Effect: corev1.TaintEffectNoSchedule}
}

// NodeName is the name of a cluster's real node.
func NodeName(cluster string) string { return cluster + "-node" }

// node is the cluster's real node, or nil.
func (c *Cluster) node() *realnode.Node {
	if c.opts.RealNode == nil {
		return nil
	}
	name := NodeName(c.Name)
	return &realnode.Node{
		Name:            name,
		Dir:             filepath.Join(c.Dir, NodeDir),
		BinDir:          c.opts.BinDir,
		CNIBinDir:       realnode.FindCNIBinDir(),
		Net:             *c.opts.RealNode,
		Kubeconfig:      c.layout.componentKubeconfig(kubeletIdentity(name)),
		ProxyKubeconfig: c.layout.componentKubeconfig(proxyIdentity),
		ClientCA:        c.layout.pki().caCert(),
		Labels:          map[string]string{RealNodeLabel: "true"},
	}
}

// nodeIdentities are the client identities the real node needs.
func (o Options) nodeIdentities() []identity {
	if o.RealNode == nil {
		return nil
	}
	return []identity{kubeletIdentity(NodeName(o.Name)), proxyIdentity}
}

// hostIP is the network address the API server listens on: the real
// node's network's host address, or HostIP; "" means loopback only.
func (o Options) hostIP() string {
	if o.RealNode != nil {
		return o.RealNode.Network.HostIP()
	}
	return o.HostIP
}

// nodeIPs are the addresses the API server's certificate must cover.
func (o Options) nodeIPs() []net.IP {
	if o.hostIP() == "" {
		return nil
	}
	return []net.IP{net.ParseIP(o.hostIP())}
}

func kubeletIdentity(node string) identity {
	return identity{file: "kubelet", cn: "system:node:" + node, groups: []string{"system:nodes"}}
}

var proxyIdentity = identity{file: "kube-proxy", cn: "system:kube-proxy"}

// startRuntime wires the real node, starts its containerd and imports the
// images: what needs no API server, so it runs beside the control plane's
// start.
func (c *Cluster) startRuntime(ctx context.Context) error {
	n := c.node()
	if err := n.Prepare(); err != nil {
		return err
	}
	cd := n.Containerd()
	if err := c.run(ctx, component{name: cd.Name, path: cd.Path, args: cd.Args, ready: n.ContainerdReady}); err != nil {
		return err
	}
	return n.Import(ctx, c.opts.Images...)
}

// startNodeAgents starts the real node's kubelet and kube-proxy, in the
// namespaces of its containerd, and waits until the node is Ready and
// kube-proxy has synced.
func (c *Cluster) startNodeAgents(ctx context.Context) error {
	n := c.node()
	pid := c.pidOf("containerd")
	kubelet, proxy := n.Kubelet(pid), n.Proxy(pid)
	client, err := kubernetes.NewForConfig(c.Config)
	if err != nil {
		return err
	}
	nodeReady := func(ctx context.Context) error { return readyNode(ctx, client, n.Name) }
	return c.runAll(ctx,
		component{name: kubelet.Name, path: kubelet.Path, args: kubelet.Args, ready: nodeReady},
		component{name: proxy.Name, path: proxy.Path, args: proxy.Args, ready: httpReady(n.ProxyHealthURL(), nil)})
}

// Import loads image archives into the cluster's real node.
func (c *Cluster) Import(ctx context.Context, archives ...string) error {
	n := c.node()
	if n == nil {
		return fmt.Errorf("cluster %s has no real node to load images into", c.Name)
	}
	return n.Import(ctx, archives...)
}

// removeNode kills what is left of the real node (its shims and
// containers) and removes its cgroups and network namespace.
func (c *Cluster) removeNode() error {
	if n := c.node(); n != nil {
		return n.Remove()
	}
	return nil
}

func (c *Cluster) pidOf(name string) int {
	for _, p := range c.processes() {
		if p.name == name {
			return p.pid()
		}
	}
	return 0
}

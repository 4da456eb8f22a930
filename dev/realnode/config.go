package realnode

import (
	"fmt"
	"os"
	"path/filepath"
	"text/template"
)

// The files a node writes in its directory.
const (
	containerdConfigFile = "containerd.toml"
	kubeletConfigFile    = "kubelet.yaml"
	proxyConfigFile      = "kube-proxy.yaml"
	cniConfigDir         = "cni"
	containerdSocketFile = "containerd.sock"
	podLogsDir           = "pod-logs"
)

// Ports a node's components listen on, on the node's own address.
const (
	kubeletPort       = 10250
	kubeletHealthPort = 10248
	proxyHealthPort   = 10256
)

// PauseImage is the sandbox image every node's containerd runs pods in; the
// fleet builds it (dev/pause) and imports it at start.
const PauseImage = "localhost/corral/pause:dev"

var containerdConfig = template.Must(template.New("containerd").Parse(`version = 2
root = "{{.Dir}}/containerd/root"
state = "{{.Dir}}/containerd/state"
disabled_plugins = ["io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.aufs", "io.containerd.internal.v1.tracing", "io.containerd.tracing.processor.v1.otlp"]

[grpc]
  address = "{{.Socket}}"

[plugins."io.containerd.internal.v1.opt"]
  path = "{{.Dir}}/containerd/opt"

[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "{{.PauseImage}}"
  # This machine's processes lack CAP_SYS_RESOURCE: without this every
  # sandbox fails with "can't get final child's PID from pipe: EOF".
  restrict_oom_score_adj = true
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  enable_selinux = false
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        Root = "{{.Dir}}/runc"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "{{.CNIBinDir}}"
    conf_dir = "{{.Dir}}/{{.CNIConfigDir}}"
`))

var kubeletConfig = template.Must(template.New("kubelet").Parse(`apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
# This machine runs cgroup v1 (hybrid); the kubelet refuses it without this.
failCgroupV1: false
cgroupDriver: cgroupfs
cgroupRoot: /{{.Cgroup}}
cgroupsPerQOS: true
containerRuntimeEndpoint: unix://{{.Socket}}
imageServiceEndpoint: unix://{{.Socket}}
podLogsDir: {{.Dir}}/{{.PodLogsDir}}
address: {{.IP}}
port: {{.KubeletPort}}
readOnlyPort: 0
healthzBindAddress: {{.IP}}
healthzPort: {{.KubeletHealthPort}}
podCIDR: {{.PodCIDR}}
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: {{.ClientCA}}}
authorization: {mode: Webhook}
clusterDomain: cluster.local
failSwapOn: false
resolvConf: ""
# A developer's disk is often fuller than a server's: evict only when it is
# truly full, and keep the images the fleet imported (nothing can pull them
# again).
evictionHard: {memory.available: "100Mi", nodefs.available: "1%", imagefs.available: "1%", nodefs.inodesFree: "1%"}
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
serializeImagePulls: false
`))

var proxyConfig = template.Must(template.New("kube-proxy").Parse(`apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: nftables
clientConnection:
  kubeconfig: {{.ProxyKubeconfig}}
hostnameOverride: {{.Name}}
bindAddress: {{.IP}}
healthzBindAddress: {{.IP}}:{{.ProxyHealthPort}}
metricsBindAddress: 127.0.0.1:10249
clusterCIDR: {{.PodCIDR}}
# Masquerade all Service traffic, so a pod reaching a Service whose
# endpoint is on its own bridge gets the answer back through the node.
nftables:
  masqueradeAll: true
# Leave the machine's conntrack sysctls alone.
conntrack:
  maxPerCore: 0
  min: 0
  tcpEstablishedTimeout: 0s
  tcpCloseWaitTimeout: 0s
`))

var cniConfig = template.Must(template.New("cni").Parse(`{
  "cniVersion": "1.0.0",
  "name": "corral",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "cni0",
      "isGateway": true,
      "ipMasq": false,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "ranges": [[{"subnet": "{{.PodCIDR}}"}]],
        "routes": [{"dst": "0.0.0.0/0"}]
      }
    },
    {"type": "portmap", "capabilities": {"portMappings": true}}
  ]
}
`))

// configValues are what the templates fill in.
type configValues struct {
	Node
	Socket, Cgroup, PauseImage, CNIBinDir, CNIConfigDir, PodLogsDir string
	KubeletPort, KubeletHealthPort, ProxyHealthPort                 int
}

func (n Node) values() configValues {
	return configValues{
		Node: n, Socket: n.Socket(), Cgroup: cgroupName(n.Net.Network.ID, n.Name), PauseImage: PauseImage,
		CNIBinDir: n.CNIBinDir, CNIConfigDir: cniConfigDir, PodLogsDir: podLogsDir,
		KubeletPort: kubeletPort, KubeletHealthPort: kubeletHealthPort, ProxyHealthPort: proxyHealthPort,
	}
}

// writeConfigs writes the node's configuration files into its directory.
func (n Node) writeConfigs() error {
	for _, dir := range []string{n.Dir, filepath.Join(n.Dir, cniConfigDir), filepath.Join(n.Dir, podLogsDir)} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	v := n.values()
	for name, t := range map[string]*template.Template{
		containerdConfigFile: containerdConfig,
		kubeletConfigFile:    kubeletConfig,
		proxyConfigFile:      proxyConfig,
		filepath.Join(cniConfigDir, "10-corral.conflist"): cniConfig,
	} {
		f, err := os.Create(filepath.Join(n.Dir, name))
		if err != nil {
			return err
		}
		err = t.Execute(f, v)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("writing %s: %w", name, err)
		}
	}
	return nil
}

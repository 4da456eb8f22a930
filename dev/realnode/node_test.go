package realnode

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// script is where a Command's shell script stands in its arguments, which
// the tests compare apart.
const script = "<script>"

// splitScript returns args with the script after "/bin/sh -c" replaced by
// a placeholder, and the script.
func splitScript(t *testing.T, args []string) ([]string, string) {
	t.Helper()
	i := slices.Index(args, "-c")
	if i < 1 || args[i-1] != "/bin/sh" || i+1 >= len(args) {
		t.Fatalf("no /bin/sh -c <script> in %q", args)
	}
	out := slices.Clone(args)
	out[i+1] = script
	return out, args[i+1]
}

// checkScript checks that the shell script is valid, puts itself in the
// node's system cgroup of every hierarchy, runs its arguments, and mounts
// what mounts says, and nothing else.
func checkScript(t *testing.T, n Node, s string, mounts []string) {
	t.Helper()
	if out, err := exec.Command("/bin/sh", "-n", "-c", s).CombinedOutput(); err != nil {
		t.Errorf("the script is not valid sh: %v: %s\n%s", err, out, s)
	}
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	if lines[0] != "set -e" || lines[len(lines)-1] != `exec "$@"` {
		t.Errorf("the script does not start with set -e and end with exec \"$@\":\n%s", s)
	}
	roots, err := hierarchies()
	if err != nil {
		t.Logf("no cgroup hierarchy here (%v): the script joins none", err)
	}
	var joins, gotMounts []string
	for _, l := range lines {
		if cg, ok := strings.CutPrefix(l, "echo $$ > "); ok {
			joins = append(joins, cg)
		}
		if m, ok := strings.CutPrefix(l, "mount "); ok {
			gotMounts = append(gotMounts, m)
		}
	}
	var wantJoins []string
	for _, r := range roots {
		wantJoins = append(wantJoins, filepath.Join(r, "corral-"+n.Net.Network.ID+"-"+n.Name, "node", "cgroup.procs"))
	}
	if diff := cmp.Diff(wantJoins, joins); diff != "" {
		t.Errorf("cgroups the script joins (-want +got):\n%s", diff)
	}
	var wantMounts []string
	for _, d := range mounts {
		wantMounts = append(wantMounts, "-t tmpfs -o mode=0755 corral-node "+d)
	}
	if diff := cmp.Diff(wantMounts, gotMounts); diff != "" {
		t.Errorf("the script's mounts (-want +got):\n%s", diff)
	}
}

func TestContainerd(t *testing.T) {
	n := testNode(t)
	c := n.Containerd()
	if c.Name != "containerd" || filepath.Base(c.Path) != "nsenter" {
		t.Errorf("Containerd() is %q running %q, want containerd running nsenter", c.Name, c.Path)
	}
	args, s := splitScript(t, c.Args)
	want := []string{
		"--net=/run/netns/corral-a1b2c3-c2-node", "--",
		"unshare", "--mount", "--propagation", "private", "--",
		"/bin/sh", "-c", script, "containerd",
		"containerd", "--config", filepath.Join(n.Dir, "containerd.toml"),
	}
	if diff := cmp.Diff(want, args); diff != "" {
		t.Errorf("Containerd() args (-want +got):\n%s", diff)
	}
	checkScript(t, n, s, []string{"/run", "/var/lib", "/var/log"})
}

func TestKubelet(t *testing.T) {
	cases := map[string]struct {
		labels map[string]string
		taints []string
		extra  []string
	}{
		"no labels, no taints": {},
		"labels": {
			labels: map[string]string{"corral.dev/pool": "edge", "kubernetes.io/os": "linux"},
			extra:  []string{"--node-labels=corral.dev/pool=edge,kubernetes.io/os=linux"},
		},
		"taints": {
			taints: []string{"dedicated=edge:NoSchedule", "gpu:NoExecute"},
			extra:  []string{"--register-with-taints=dedicated=edge:NoSchedule,gpu:NoExecute"},
		},
		"both": {
			labels: map[string]string{"corral.dev/pool": "edge"},
			taints: []string{"dedicated=edge:NoSchedule"},
			extra:  []string{"--node-labels=corral.dev/pool=edge", "--register-with-taints=dedicated=edge:NoSchedule"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			n := testNode(t)
			n.Labels, n.Taints = tc.labels, tc.taints
			c := n.Kubelet(4242)
			if c.Name != "kubelet" || filepath.Base(c.Path) != "nsenter" {
				t.Errorf("Kubelet() is %q running %q, want kubelet running nsenter", c.Name, c.Path)
			}
			args, s := splitScript(t, c.Args)
			// The labels come from a map: their order is not kept.
			for i, a := range args {
				if l, ok := strings.CutPrefix(a, "--node-labels="); ok {
					parts := strings.Split(l, ",")
					slices.Sort(parts)
					args[i] = "--node-labels=" + strings.Join(parts, ",")
				}
			}
			want := append([]string{
				"--target", "4242", "--mount", "--net", "--",
				"/bin/sh", "-c", script, "kubelet", "/opt/corral/bin/kubelet",
				"--config=" + filepath.Join(n.Dir, "kubelet.yaml"),
				"--kubeconfig=/fleet/c2/kubelet.kubeconfig",
				"--root-dir=/var/lib/kubelet",
				"--hostname-override=c2-node",
				"--node-ip=10.201.0.11",
			}, tc.extra...)
			if diff := cmp.Diff(want, args); diff != "" {
				t.Errorf("Kubelet(4242) args (-want +got):\n%s", diff)
			}
			// The kubelet joins containerd's mounts: it mounts nothing.
			checkScript(t, n, s, nil)
		})
	}
}

func TestProxy(t *testing.T) {
	n := testNode(t)
	c := n.Proxy(4242)
	if c.Name != "kube-proxy" || filepath.Base(c.Path) != "nsenter" {
		t.Errorf("Proxy() is %q running %q, want kube-proxy running nsenter", c.Name, c.Path)
	}
	args, s := splitScript(t, c.Args)
	want := []string{
		"--target", "4242", "--mount", "--net", "--",
		"/bin/sh", "-c", script, "kube-proxy", "/opt/corral/bin/kube-proxy",
		"--config=" + filepath.Join(n.Dir, "kube-proxy.yaml"),
	}
	if diff := cmp.Diff(want, args); diff != "" {
		t.Errorf("Proxy(4242) args (-want +got):\n%s", diff)
	}
	checkScript(t, n, s, nil)
}

func TestNodeAddresses(t *testing.T) {
	n := testNode(t)
	got := map[string]string{
		"IP":             n.IP(),
		"PodCIDR":        n.PodCIDR(),
		"Socket":         n.Socket(),
		"ProxyHealthURL": n.ProxyHealthURL(),
	}
	want := map[string]string{
		"IP":             "10.201.0.11",
		"PodCIDR":        "10.201.2.0/24",
		"Socket":         filepath.Join(n.Dir, "containerd.sock"),
		"ProxyHealthURL": "http://10.201.0.11:10256/healthz",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("node addresses (-want +got):\n%s", diff)
	}
}

package realnode

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

// testNode is node 1 of a made-up fleet, living in a temporary directory.
func testNode(t *testing.T) Node {
	t.Helper()
	return Node{
		Name:            "c2-node",
		Dir:             filepath.Join(t.TempDir(), "nodes", "c2-node"),
		BinDir:          "/opt/corral/bin",
		CNIBinDir:       "/usr/lib/cni",
		Net:             Network{ID: "a1b2c3", Octet: 201}.Node(1, "c2-node"),
		Kubeconfig:      "/fleet/c2/kubelet.kubeconfig",
		ProxyKubeconfig: "/fleet/c2/kube-proxy.kubeconfig",
		ClientCA:        "/fleet/c2/pki/client-ca.crt",
	}
}

// writtenConfigs writes n's configuration and returns the files written.
func writtenConfigs(t *testing.T, n Node) map[string]string {
	t.Helper()
	if err := n.writeConfigs(); err != nil {
		t.Fatalf("writeConfigs: %v", err)
	}
	files := map[string]string{}
	for _, name := range []string{containerdConfigFile, kubeletConfigFile, proxyConfigFile, filepath.Join(cniConfigDir, "10-corral.conflist")} {
		b, err := os.ReadFile(filepath.Join(n.Dir, name))
		if err != nil {
			t.Fatalf("reading %s: %v", name, err)
		}
		files[name] = string(b)
	}
	return files
}

// pick is the values of m at the paths of want's keys, whose parts are
// separated by "/" (a kubelet key may hold a dot: "nodefs.available").
func pick(m map[string]any, want map[string]any) map[string]any {
	got := map[string]any{}
	for path := range want {
		var v any = m
		for _, k := range strings.Split(path, "/") {
			mm, ok := v.(map[string]any)
			if !ok {
				v = nil
				break
			}
			v = mm[k]
		}
		got[path] = v
	}
	return got
}

func TestWriteConfigsYAML(t *testing.T) {
	n := testNode(t)
	files := writtenConfigs(t, n)
	socket := filepath.Join(n.Dir, "containerd.sock")
	cases := map[string]struct {
		file string
		want map[string]any
	}{
		"kubelet": {
			file: kubeletConfigFile,
			want: map[string]any{
				"kind":                             "KubeletConfiguration",
				"failCgroupV1":                     false,
				"cgroupDriver":                     "cgroupfs",
				"cgroupRoot":                       "/corral-a1b2c3-c2-node",
				"containerRuntimeEndpoint":         "unix://" + socket,
				"imageServiceEndpoint":             "unix://" + socket,
				"podLogsDir":                       filepath.Join(n.Dir, "pod-logs"),
				"address":                          "10.201.0.11",
				"port":                             float64(kubeletPort),
				"readOnlyPort":                     float64(0),
				"healthzBindAddress":               "10.201.0.11",
				"podCIDR":                          "10.201.2.0/24",
				"authentication/anonymous/enabled": false,
				"authentication/webhook/enabled":   true,
				"authentication/x509/clientCAFile": "/fleet/c2/pki/client-ca.crt",
				"authorization/mode":               "Webhook",
				"evictionHard/nodefs.available":    "1%",
				"evictionHard/imagefs.available":   "1%",
				"imageGCHighThresholdPercent":      float64(100),
				"resolvConf":                       "",
				"clusterDomain":                    "cluster.local",
			},
		},
		"kube-proxy": {
			file: proxyConfigFile,
			want: map[string]any{
				"kind":                            "KubeProxyConfiguration",
				"mode":                            "nftables",
				"hostnameOverride":                "c2-node",
				"bindAddress":                     "10.201.0.11",
				"healthzBindAddress":              "10.201.0.11:10256",
				"clusterCIDR":                     "10.201.2.0/24",
				"clientConnection/kubeconfig":     "/fleet/c2/kube-proxy.kubeconfig",
				"nftables/masqueradeAll":          true,
				"conntrack/maxPerCore":            float64(0),
				"conntrack/tcpEstablishedTimeout": "0s",
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var m map[string]any
			if err := yaml.Unmarshal([]byte(files[tc.file]), &m); err != nil {
				t.Fatalf("%s is no YAML: %v\n%s", tc.file, err, files[tc.file])
			}
			if diff := cmp.Diff(tc.want, pick(m, tc.want)); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tc.file, diff)
			}
		})
	}
}

func TestWriteConfigsCNI(t *testing.T) {
	n := testNode(t)
	files := writtenConfigs(t, n)
	var conf struct {
		CNIVersion string `json:"cniVersion"`
		Name       string `json:"name"`
		Plugins    []struct {
			Type string `json:"type"`
			IPAM struct {
				Type   string                `json:"type"`
				Ranges [][]map[string]string `json:"ranges"`
			} `json:"ipam"`
		} `json:"plugins"`
	}
	name := filepath.Join(cniConfigDir, "10-corral.conflist")
	if err := json.Unmarshal([]byte(files[name]), &conf); err != nil {
		t.Fatalf("%s is no JSON: %v\n%s", name, err, files[name])
	}
	if conf.Name != "corral" || conf.CNIVersion == "" || len(conf.Plugins) == 0 {
		t.Fatalf("%s: name %q, cniVersion %q, %d plugins; want corral, a version, plugins", name, conf.Name, conf.CNIVersion, len(conf.Plugins))
	}
	bridge := conf.Plugins[0]
	if bridge.Type != "bridge" || bridge.IPAM.Type != "host-local" {
		t.Errorf("first plugin %q with IPAM %q, want bridge with host-local", bridge.Type, bridge.IPAM.Type)
	}
	if diff := cmp.Diff([][]map[string]string{{{"subnet": "10.201.2.0/24"}}}, bridge.IPAM.Ranges); diff != "" {
		t.Errorf("IPAM ranges (-want +got):\n%s", diff)
	}
}

func TestWriteConfigsContainerd(t *testing.T) {
	n := testNode(t)
	got := writtenConfigs(t, n)[containerdConfigFile]
	for _, want := range []string{
		`address = "` + filepath.Join(n.Dir, "containerd.sock") + `"`,
		`root = "` + filepath.Join(n.Dir, "containerd", "root") + `"`,
		`state = "` + filepath.Join(n.Dir, "containerd", "state") + `"`,
		`sandbox_image = "` + PauseImage + `"`,
		`restrict_oom_score_adj = true`,
		`bin_dir = "/usr/lib/cni"`,
		`conf_dir = "` + filepath.Join(n.Dir, "cni") + `"`,
		`Root = "` + filepath.Join(n.Dir, "runc") + `"`,
		`SystemdCgroup = false`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("containerd.toml lacks %s:\n%s", want, got)
		}
	}
	if PauseImage != "localhost/corral/pause:dev" {
		t.Errorf("PauseImage = %q, want the image the fleet builds, localhost/corral/pause:dev", PauseImage)
	}
}

func TestWriteConfigsMakesTheNodesDirectories(t *testing.T) {
	n := testNode(t)
	writtenConfigs(t, n)
	for _, d := range []string{n.Dir, filepath.Join(n.Dir, "cni"), filepath.Join(n.Dir, "pod-logs")} {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			t.Errorf("%s: %v, want a directory", d, err)
		}
	}
	// A second start rewrites the files in place.
	if err := n.writeConfigs(); err != nil {
		t.Errorf("writeConfigs again: %v", err)
	}
}

package localcluster

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/client-go/tools/clientcmd"
)

func TestWriteKubeconfig(t *testing.T) {
	k := ensuredPKI(t)
	path := filepath.Join(t.TempDir(), "kubeconfig")
	const server = "https://127.0.0.1:6443"
	if err := writeKubeconfig(path, "hub", server, k, adminIdentity); err != nil {
		t.Fatalf("writeKubeconfig() = %v", err)
	}
	cfg, err := clientcmd.LoadFromFile(path)
	if err != nil {
		t.Fatalf("loading the kubeconfig: %v", err)
	}
	type view struct {
		CurrentContext, Cluster, AuthInfo, Server string
	}
	got := view{CurrentContext: cfg.CurrentContext}
	if ctx := cfg.Contexts[cfg.CurrentContext]; ctx != nil {
		got.Cluster, got.AuthInfo = ctx.Cluster, ctx.AuthInfo
	}
	if c := cfg.Clusters[got.Cluster]; c != nil {
		got.Server = c.Server
		if !bytes.Equal(c.CertificateAuthorityData, readFile(t, k.caCert())) {
			t.Error("the cluster's CA data is not the cluster CA")
		}
	}
	if diff := cmp.Diff(view{CurrentContext: "hub", Cluster: "hub", AuthInfo: "admin", Server: server}, got); diff != "" {
		t.Errorf("kubeconfig (-want +got):\n%s", diff)
	}
	if a := cfg.AuthInfos["admin"]; a == nil || !bytes.Equal(a.ClientCertificateData, readFile(t, k.cert(adminIdentity))) ||
		!bytes.Equal(a.ClientKeyData, readFile(t, k.key(adminIdentity))) {
		t.Error("the admin user does not carry the admin certificate and key")
	}
	if _, err := clientcmd.BuildConfigFromFlags("", path); err != nil {
		t.Errorf("building a client config from the kubeconfig: %v", err)
	}
	if got := serverPort(path); got != 6443 {
		t.Errorf("serverPort() = %d, want 6443", got)
	}
	if got := serverPort(filepath.Join(t.TempDir(), "missing")); got != 0 {
		t.Errorf("serverPort() of no kubeconfig = %d, want 0", got)
	}
}

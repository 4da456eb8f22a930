package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	certificatesv1 "k8s.io/api/certificates/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clusterv1 "open-cluster-management.io/api/cluster/v1"

	"github.com/corral-dev/corral/registration/clientcsr"
)

// TestRequestPassesHubValidation: what the agent asks for is exactly what
// the hub's approver and corral accept take for an agent request.
func TestRequestPassesHubValidation(t *testing.T) {
	id := Identity{Cluster: "c1", AgentID: "a1b2c"}
	_, requestPEM, err := newKeyAndRequest(id)
	if err != nil {
		t.Fatal(err)
	}
	csr := &certificatesv1.CertificateSigningRequest{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{clusterv1.ClusterNameLabelKey: id.Cluster}},
		Spec: certificatesv1.CertificateSigningRequestSpec{
			Request: requestPEM, SignerName: certificatesv1.KubeAPIServerClientSignerName,
			Usages: []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature, certificatesv1.UsageKeyEncipherment, certificatesv1.UsageClientAuth},
		},
	}
	req, err := clientcsr.Validate(csr)
	if err != nil {
		t.Fatalf("the hub would refuse the agent's own request: %v", err)
	}
	if req.CommonName != "system:open-cluster-management:c1:a1b2c" {
		t.Errorf("CommonName = %q", req.CommonName)
	}
}

// TestHubKubeconfigKeepsServerAndCA: the stored kubeconfig talks to the
// bootstrap kubeconfig's hub, verified by its CA, as the new identity.
func TestHubKubeconfigKeepsServerAndCA(t *testing.T) {
	boot := &rest.Config{Host: "https://hub.example:6443", TLSClientConfig: rest.TLSClientConfig{CAData: []byte("ca")}}
	b, err := hubKubeconfig(boot, []byte("cert"), []byte("key"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.RESTConfigFromKubeConfig(b)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host != boot.Host || string(cfg.CAData) != "ca" || string(cfg.CertData) != "cert" || string(cfg.KeyData) != "key" || cfg.BearerToken != "" {
		t.Errorf("hub kubeconfig = host %q ca %q cert %q key %q token %q", cfg.Host, cfg.CAData, cfg.CertData, cfg.KeyData, cfg.BearerToken)
	}
}

// TestHubKubeconfigStoresCAFileAsData: a bootstrap kubeconfig that names
// its CA by file gives a stored kubeconfig that holds the CA itself, not
// a path on this host.
func TestHubKubeconfigStoresCAFileAsData(t *testing.T) {
	caFile := filepath.Join(t.TempDir(), "ca.crt")
	if err := os.WriteFile(caFile, []byte("ca from file"), 0o600); err != nil {
		t.Fatal(err)
	}
	boot := &rest.Config{Host: "https://hub.example:6443", TLSClientConfig: rest.TLSClientConfig{CAFile: caFile}}
	b, err := hubKubeconfig(boot, []byte("cert"), []byte("key"))
	if err != nil {
		t.Fatal(err)
	}
	stored, err := clientcmd.Load(b)
	if err != nil {
		t.Fatal(err)
	}
	hub := stored.Clusters["hub"]
	if hub == nil || hub.CertificateAuthority != "" || string(hub.CertificateAuthorityData) != "ca from file" {
		t.Errorf("stored hub cluster = %+v, want the CA file's data and no path", hub)
	}

	boot.CAFile = filepath.Join(t.TempDir(), "missing.crt")
	if _, err := hubKubeconfig(boot, []byte("cert"), []byte("key")); err == nil || !strings.Contains(err.Error(), "missing.crt") {
		t.Errorf("with a missing CA file: error = %v, want one naming the file", err)
	}
}

// TestSameHub: a stored identity serves only the hub the bootstrap
// kubeconfig names; another server or CA is another hub, to join afresh.
func TestSameHub(t *testing.T) {
	caFile := filepath.Join(t.TempDir(), "ca.crt")
	if err := os.WriteFile(caFile, []byte("ca\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	boot := func(host, ca string) *rest.Config {
		return &rest.Config{Host: host, TLSClientConfig: rest.TLSClientConfig{CAData: []byte(ca)}}
	}
	stored, err := hubKubeconfig(boot("https://hub.example:6443", "ca"), []byte("cert"), []byte("key"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.RESTConfigFromKubeConfig(stored)
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		bootstrap *rest.Config
		want      bool
	}{
		"the same hub":               {boot("https://hub.example:6443", "ca"), true},
		"a trailing slash":           {boot("https://hub.example:6443/", "ca"), true},
		"the CA by file":             {&rest.Config{Host: "https://hub.example:6443", TLSClientConfig: rest.TLSClientConfig{CAFile: caFile}}, true},
		"no CA named":                {boot("https://hub.example:6443", ""), true},
		"the hub moved":              {boot("https://hub.example:7443", "ca"), false},
		"another hub at that server": {boot("https://hub.example:6443", "other-ca"), false},
	} {
		t.Run(name, func(t *testing.T) {
			if got := sameHub(cfg, tc.bootstrap); got != tc.want {
				t.Errorf("sameHub() = %v, want %v", got, tc.want)
			}
		})
	}
}

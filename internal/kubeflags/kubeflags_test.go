package kubeflags

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/corral-dev/corral/internal/devdir"
)

// TestNoKubeconfigSaysWhatToPass: with no kubeconfig at all, the message
// names the flag and, when a local fleet is there, its kubeconfig; never
// client-go's hint about KUBERNETES_MASTER.
func TestNoKubeconfigSaysWhatToPass(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("KUBECONFIG", "")
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	t.Setenv(devdir.Env, filepath.Join(home, "fleet"))
	_, err := New("hub").RESTConfig()
	if err == nil || err.Error() != "no kubeconfig for the hub: pass --kubeconfig or set KUBECONFIG" {
		t.Fatalf("no kubeconfig, no fleet: %v", err)
	}
	hub := filepath.Join(home, "fleet", "hub", "kubeconfig")
	if err := os.MkdirAll(filepath.Dir(hub), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hub, []byte("apiVersion: v1\nkind: Config\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = New("hub").RESTConfig()
	if err == nil || !strings.HasSuffix(err.Error(), "(the local fleet's hub: --kubeconfig "+hub+")") || strings.Contains(err.Error(), "KUBERNETES_MASTER") {
		t.Fatalf("no kubeconfig, a local fleet: %v, want its hub's kubeconfig named", err)
	}
}

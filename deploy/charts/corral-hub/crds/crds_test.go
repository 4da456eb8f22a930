package crds

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/rest"

	"github.com/corral-dev/corral/internal/crdfiles"
)

// TestMatchesAPIModule fails when the chart's CRDs and the pinned api module
// disagree: run hack/update-crds.sh.
func TestMatchesAPIModule(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "open-cluster-management.io/api").Output()
	if err != nil {
		t.Fatalf("locating the api module: %v", err)
	}
	apiDir := strings.TrimSpace(string(out))
	crds, err := crdfiles.Read(files, ocmFiles)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, group := range []string{"cluster", "addon", "work"} {
		matches, _ := filepath.Glob(filepath.Join(apiDir, group, "*", "*.crd.yaml"))
		for _, m := range matches {
			want[filepath.Base(m)] = true
		}
	}
	if len(crds) != len(want) {
		t.Errorf("the chart has %d CRDs, the api module %d distinct files: run hack/update-crds.sh", len(crds), len(want))
	}
	for name := range want {
		embedded, err := files.ReadFile(name)
		if err != nil {
			t.Errorf("%s is missing: run hack/update-crds.sh", name)
			continue
		}
		newest := newestVersion(t, apiDir, name)
		if !bytes.Equal(embedded, newest) {
			t.Errorf("%s differs from the api module's: run hack/update-crds.sh", name)
		}
	}
}

// TestAllParse checks every CRD parses and serves at least one version.
func TestAllParse(t *testing.T) {
	crds, err := All()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, crd := range crds {
		if seen[crd.Name] {
			t.Errorf("%s appears twice", crd.Name)
		}
		seen[crd.Name] = true
		if len(crd.Spec.Versions) == 0 {
			t.Errorf("%s serves no version", crd.Name)
		}
	}
	for _, name := range []string{"managedclusters.cluster.open-cluster-management.io", "manifestworks.work.open-cluster-management.io", "managedclusteraddons.addon.open-cluster-management.io", "propagations.apps.corral.dev", "clusterpropagationrevisions.apps.corral.dev"} {
		if !seen[name] {
			t.Errorf("%s is missing", name)
		}
	}
}

// TestOwnAreApps: the files `make generate` writes hold apps.corral.dev
// CRDs only, and no api module file is one of them.
func TestOwnAreApps(t *testing.T) {
	own, err := Own()
	if err != nil {
		t.Fatal(err)
	}
	if len(own) != 6 {
		t.Errorf("%d apps.corral.dev CRDs, want 6 (propagations, clusterpropagations, their revisions, overridepolicies, clusteroverridepolicies): run make generate", len(own))
	}
	for _, crd := range own {
		if crd.Spec.Group != "apps.corral.dev" {
			t.Errorf("%s (group %s) among corral's own CRDs", crd.Name, crd.Spec.Group)
		}
	}
}

// newestVersion returns the file of that name from the newest API version
// directory that has it, as hack/update-crds.sh picks it.
func newestVersion(t *testing.T, apiDir, name string) []byte {
	t.Helper()
	matches, _ := filepath.Glob(filepath.Join(apiDir, "*", "*", name))
	if len(matches) == 0 {
		t.Fatalf("%s not found in %s", name, apiDir)
	}
	b, err := os.ReadFile(matches[len(matches)-1])
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestInstallUnknownName checks a CRD the api module does not ship is
// refused before anything is written.
func TestInstallUnknownName(t *testing.T) {
	err := Install(t.Context(), &rest.Config{Host: "https://127.0.0.1:1"}, "widgets.example.com")
	if err == nil || !strings.Contains(err.Error(), "not all of them are known") {
		t.Errorf("Install(widgets.example.com) = %v, want an error saying it is not known", err)
	}
}

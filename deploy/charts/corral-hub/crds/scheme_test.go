package crds_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/corral-dev/corral/deploy/charts/corral-hub/crds"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

var metaKinds = map[string]bool{
	"WatchEvent": true, "ListOptions": true, "GetOptions": true, "DeleteOptions": true,
	"CreateOptions": true, "UpdateOptions": true, "PatchOptions": true,
}

// TestOwnServesTheScheme checks that corral's own CRDs serve exactly the
// kinds the Go types register, in the group and version they register:
// a type added without `make generate` fails here.
func TestOwnServesTheScheme(t *testing.T) {
	all, err := crds.Own()
	if err != nil {
		t.Fatal(err)
	}
	served := map[string]string{}
	for _, crd := range all {
		for _, v := range crd.Spec.Versions {
			served[crd.Spec.Names.Kind] = crd.Spec.Group + "/" + v.Name
			served[crd.Spec.Names.ListKind] = crd.Spec.Group + "/" + v.Name
		}
	}
	s := runtime.NewScheme()
	if err := v1alpha1.Install(s); err != nil {
		t.Fatal(err)
	}
	registered := map[string]string{}
	for gvk := range s.AllKnownTypes() {
		// metav1.AddToGroupVersion adds the options and WatchEvent kinds to
		// every group: the scheme's own, not served by a CRD.
		if gvk.Group == v1alpha1.GroupName && !metaKinds[gvk.Kind] {
			registered[gvk.Kind] = gvk.GroupVersion().String()
		}
	}
	if diff := cmp.Diff(registered, served); diff != "" {
		t.Errorf("CRD kinds differ from the scheme's (-registered +served):\n%s", diff)
	}
}

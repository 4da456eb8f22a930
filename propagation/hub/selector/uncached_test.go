package selector

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

// TestListReadsUncachedKindsFromTheAPIServer: a kind the hub's cache holds
// only some objects of (Namespaces: only the clusters') is read through
// APIReader; the cache would say a user's namespace does not exist.
func TestListReadsUncachedKindsFromTheAPIServer(t *testing.T) {
	r := reconciler(t) // its Reader, the "cache", holds no namespace
	r.APIReader = fake.NewClientBuilder().WithScheme(scheme(t)).WithRESTMapper(mapper()).WithObjects(namespace("shop")).Build()
	m, err := mapper().RESTMapping(schema.GroupKind{Kind: "Namespace"}, "v1")
	if err != nil {
		t.Fatal(err)
	}
	selector := v1alpha1.ResourceSelector{Version: "v1", Kind: "Namespace", Name: "shop"}
	for name, tc := range map[string]struct {
		uncached bool
		want     int
	}{
		"a cached kind is read from the cache": {uncached: false, want: 0},
		"an uncached kind from the API server": {uncached: true, want: 1},
	} {
		t.Run(name, func(t *testing.T) {
			r.Uncached = map[schema.GroupKind]bool{{Kind: "Namespace"}: tc.uncached}
			objs, err := r.list(context.Background(), m, "", selector)
			if err != nil {
				t.Fatal(err)
			}
			if len(objs) != tc.want {
				t.Errorf("list found %d namespaces, want %d", len(objs), tc.want)
			}
		})
	}
}

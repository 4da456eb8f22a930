package manifestwork

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	workv1 "open-cluster-management.io/api/work/v1"
)

func TestApplyOrder(t *testing.T) {
	kinds := []struct{ apiVersion, kind string }{
		{"example.com/v1", "Widget"}, {"v1", "ConfigMap"}, {"apiextensions.k8s.io/v1", "CustomResourceDefinition"}, {"v1", "Namespace"},
	}
	objs := make([]*unstructured.Unstructured, len(kinds)+1) // the last is a manifest that did not decode
	for i, k := range kinds {
		objs[i] = &unstructured.Unstructured{}
		objs[i].SetAPIVersion(k.apiVersion)
		objs[i].SetKind(k.kind)
	}
	if diff := cmp.Diff([]int{3, 2, 0, 1, 4}, applyOrder(objs)); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

func TestDecode(t *testing.T) {
	cases := map[string]struct {
		raw     string
		wantErr string
	}{
		"a ConfigMap":  {raw: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}`},
		"no name":      {raw: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{}}`, wantErr: "has no metadata.name"},
		"no kind":      {raw: `{"apiVersion":"v1","metadata":{"name":"a"}}`, wantErr: "not a Kubernetes object"},
		"not JSON":     {raw: `{`, wantErr: "not a Kubernetes object"},
		"over the cap": {raw: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"a":"` + strings.Repeat("x", MaxManifestSize) + `"}}`, wantErr: "-byte cap"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := decode(workv1.Manifest{RawExtension: runtime.RawExtension{Raw: []byte(tc.raw)}})
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("error %v, want one with %q", err, tc.wantErr)
			}
		})
	}
}

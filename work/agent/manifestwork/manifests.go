package manifestwork

import (
	"encoding/json"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	workv1 "open-cluster-management.io/api/work/v1"
)

// MaxManifestSize is the largest manifest the agent applies, in bytes of
// JSON; the hub refuses a ManifestWork over 500 KiB in all.
const MaxManifestSize = 500 * 1024

// decode reads one manifest of a ManifestWork, saying what is wrong with
// it and what to do when it cannot be applied.
func decode(m workv1.Manifest) (*unstructured.Unstructured, error) {
	raw := m.Raw
	if len(raw) == 0 && m.Object != nil {
		var err error
		if raw, err = json.Marshal(m.Object); err != nil {
			return nil, fmt.Errorf("the manifest cannot be encoded: %w", err)
		}
	}
	if len(raw) > MaxManifestSize {
		return nil, fmt.Errorf("the manifest is %d bytes, over the %d-byte cap: split it into smaller objects", len(raw), MaxManifestSize)
	}
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(raw); err != nil {
		return nil, fmt.Errorf("the manifest is not a Kubernetes object (it needs apiVersion, kind and metadata.name): %w", err)
	}
	if obj.GetName() == "" {
		return nil, fmt.Errorf("the %s manifest has no metadata.name: give it one", obj.GetKind())
	}
	return obj, nil
}

// applyOrder is the order manifests are applied in: Namespaces, then
// CRDs, then the rest, each in the work's order.
func applyOrder(objs []*unstructured.Unstructured) []int {
	order := make([]int, len(objs))
	for i := range order {
		order[i] = i
	}
	rank := func(o *unstructured.Unstructured) int {
		if o == nil {
			return 2
		}
		switch o.GroupVersionKind().GroupKind().String() {
		case "Namespace":
			return 0
		case "CustomResourceDefinition.apiextensions.k8s.io":
			return 1
		}
		return 2
	}
	slices.SortStableFunc(order, func(a, b int) int { return rank(objs[a]) - rank(objs[b]) })
	return order
}

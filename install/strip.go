package install

import (
	"context"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ReleaseFinalizers removes the finalizers of every object of the kinds
// crds define, so that deleting the CRDs is not held up by objects whose
// controllers are gone (the hub was removed first). progress, when not
// nil, hears one line per object released.
func ReleaseFinalizers(ctx context.Context, c client.Client, crds []*unstructured.Unstructured, progress io.Writer) error {
	for _, crd := range crds {
		gvk, ok := storedKind(crd)
		if !ok {
			continue
		}
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if err := c.List(ctx, list); err != nil {
			if meta.IsNoMatchError(err) || client.IgnoreNotFound(err) == nil {
				continue
			}
			return fmt.Errorf("listing %s: %w", gvk.Kind, err)
		}
		for i := range list.Items {
			obj := &list.Items[i]
			if len(obj.GetFinalizers()) == 0 {
				continue
			}
			patch := client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`))
			if err := c.Patch(ctx, obj, patch); client.IgnoreNotFound(err) != nil {
				return fmt.Errorf("releasing %s: %w", Describe(obj), err)
			}
			if progress != nil {
				fmt.Fprintf(progress, "  released %s\n", Describe(obj))
			}
		}
	}
	return nil
}

// storedKind is the kind a CRD object defines, at its storage version.
func storedKind(crd *unstructured.Unstructured) (schema.GroupVersionKind, bool) {
	group, _, _ := unstructured.NestedString(crd.Object, "spec", "group")
	kind, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "kind")
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	for _, v := range versions {
		m, _ := v.(map[string]any)
		if stored, _ := m["storage"].(bool); stored {
			name, _ := m["name"].(string)
			return schema.GroupVersionKind{Group: group, Version: name, Kind: kind}, kind != ""
		}
	}
	return schema.GroupVersionKind{}, false
}

package apply

import (
	"fmt"
	"maps"
	"reflect"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	workv1 "open-cluster-management.io/api/work/v1"
)

// updateBody is the object the Update strategy writes over live, as OCM's
// Update applier makes it: every field outside metadata and status as the
// manifest has it, so that a field dropped from the manifest is dropped on
// the managed cluster; the manifest's labels and annotations merged into
// the live ones, which keep those others set (see mergeMap); the
// AppliedManifestWork added to the owners; the rest of metadata (finalizers
// included) and the status as they are. A service-account-token Secret
// keeps the data the token controller put in it, as OCM's does.
// metadataChanged says whether the labels, annotations or owners differ
// from live's.
func updateBody(live, desired *unstructured.Unstructured, owner metav1.OwnerReference) (body *unstructured.Unstructured, metadataChanged bool) {
	body = desired.DeepCopy()
	body.Object["metadata"] = runtime.DeepCopyJSONValue(live.Object["metadata"])
	if status, ok := live.Object["status"]; ok {
		// Kept for kinds without a status subresource, whose status an
		// update would otherwise clear.
		body.Object["status"] = runtime.DeepCopyJSONValue(status)
	}
	// Left out, the server keeps the field managers as they are.
	body.SetManagedFields(nil)
	labels, labelsChanged := mergeMap(live.GetLabels(), desired.GetLabels())
	annotations, annotationsChanged := mergeMap(live.GetAnnotations(), desired.GetAnnotations())
	body.SetLabels(labels)
	body.SetAnnotations(annotations)
	body.SetOwnerReferences(withOwner(live.GetOwnerReferences(), owner))
	if isTokenSecret(body) {
		if data, _, _ := unstructured.NestedMap(live.Object, "data"); len(data) > 0 {
			manifestData, _, _ := unstructured.NestedMap(body.Object, "data")
			maps.Copy(data, manifestData)
			body.Object["data"] = data
		}
	}
	return body, labelsChanged || annotationsChanged || !hasOwner(live.GetOwnerReferences(), owner)
}

func isTokenSecret(obj *unstructured.Unstructured) bool {
	t, _ := obj.Object["type"].(string)
	return obj.GroupVersionKind().GroupKind() == (schema.GroupKind{Kind: "Secret"}) && t == string(corev1.SecretTypeServiceAccountToken)
}

// mergeMap is live with want's entries set over it, and whether that
// differs from live. A key ending in "-" removes that key instead: the
// convention of the library OCM applies with, safe because no label or
// annotation key may end in "-".
func mergeMap(live, want map[string]string) (map[string]string, bool) {
	out := maps.Clone(live)
	changed := false
	for k, v := range want {
		if base, remove := strings.CutSuffix(k, "-"); remove {
			if _, ok := out[base]; ok {
				delete(out, base)
				changed = true
			}
			continue
		}
		if cur, ok := out[k]; !ok || cur != v {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = v
			changed = true
		}
	}
	return out, changed
}

// sameContent says whether a and b agree outside metadata and status.
func sameContent(a, b *unstructured.Unstructured) bool {
	return equal(content(a), content(b))
}

// contentDigest is a digest of obj's fields outside metadata and status;
// "" when it cannot be had.
func contentDigest(obj *unstructured.Unstructured) string {
	d, _ := digest(content(obj))
	return d
}

func content(obj *unstructured.Unstructured) map[string]any {
	c := make(map[string]any, len(obj.Object))
	for k, v := range obj.Object {
		if k != "metadata" && k != "status" {
			c[k] = v
		}
	}
	return c
}

// equal reports whether a and b are the same JSON value: numbers compared
// by value, and a missing field, null, {} and [] alike, as the API server
// drops empty fields.
func equal(a, b any) bool {
	if empty(a) && empty(b) {
		return true
	}
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return false
		}
		for k, v := range x {
			if !equal(v, y[k]) {
				return false
			}
		}
		for k, v := range y {
			if _, ok := x[k]; !ok && !empty(v) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(normalise(a), normalise(b))
}

func empty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case map[string]any:
		return len(x) == 0
	case []any:
		return len(x) == 0
	}
	return false
}

func normalise(v any) any {
	switch n := v.(type) {
	case int64:
		return float64(n)
	case int:
		return float64(n)
	case int32:
		return float64(n)
	}
	return v
}

// keepIgnored sets in config the ignored fields to their values in
// existing, so that a server-side apply leaves them as they are on the
// managed cluster: always for OnSpokePresent, and for OnSpokeChange while
// the manifest on the hub has not changed since it was last applied.
func keepIgnored(config, existing *unstructured.Unstructured, fields []workv1.IgnoreField, unchangedOnHub bool) error {
	for _, f := range fields {
		if f.Condition == workv1.IgnoreFieldsConditionOnSpokeChange && !unchangedOnHub {
			continue
		}
		if len(f.JQPathExpressions) > 0 {
			return fmt.Errorf("ignoreFields jqPathExpressions are not supported by this agent: use jsonPaths or jsonPointers")
		}
		paths, err := ignoredPaths(f)
		if err != nil {
			return fmt.Errorf("ignoreFields: %w", err)
		}
		for _, path := range paths {
			if v, found := path.get(existing.Object); found {
				path.set(config.Object, runtime.DeepCopyJSONValue(v))
			} else {
				path.remove(config.Object)
			}
		}
	}
	return nil
}

// ignoredPaths are the fields f names, by JSON path and JSON pointer.
func ignoredPaths(f workv1.IgnoreField) ([]fieldPath, error) {
	var paths []fieldPath
	for _, p := range f.JSONPaths {
		path, err := parseJSONPath(p)
		if err != nil {
			return nil, err
		}
		paths = append(paths, path)
	}
	for _, p := range f.JSONPointers {
		path, err := parseJSONPointer(p)
		if err != nil {
			return nil, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}

package apply

import (
	"fmt"
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	workv1 "open-cluster-management.io/api/work/v1"
)

// Contains reports whether have holds every field of want with the same
// value: maps by key, lists element by element with the same length, so
// that fields the API server defaults do not count as a difference.
func Contains(have, want any) bool {
	switch w := want.(type) {
	case map[string]any:
		h, ok := have.(map[string]any)
		if !ok {
			return len(w) == 0 && have == nil
		}
		for k, wv := range w {
			if !Contains(h[k], wv) {
				return false
			}
		}
		return true
	case []any:
		h, ok := have.([]any)
		if !ok || len(h) != len(w) {
			return len(w) == 0 && have == nil
		}
		for i := range w {
			if !Contains(h[i], w[i]) {
				return false
			}
		}
		return true
	case nil:
		return have == nil
	default:
		return reflect.DeepEqual(normalise(have), normalise(want))
	}
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

// Merge lays want over have: maps merge key by key, anything else (lists
// too) is replaced by want's value.
func Merge(have, want any) any {
	w, ok := want.(map[string]any)
	if !ok {
		return want
	}
	h, ok := have.(map[string]any)
	if !ok {
		h = map[string]any{}
	}
	for k, wv := range w {
		h[k] = Merge(h[k], wv)
	}
	return h
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
		var paths [][]string
		for _, p := range f.JSONPaths {
			paths = append(paths, splitPath(strings.TrimPrefix(p, "."), "."))
		}
		for _, p := range f.JSONPointers {
			paths = append(paths, splitPath(strings.TrimPrefix(p, "/"), "/"))
		}
		if len(f.JQPathExpressions) > 0 {
			return fmt.Errorf("ignoreFields jqPathExpressions are not supported by this agent: use jsonPaths or jsonPointers")
		}
		for _, path := range paths {
			v, found, err := unstructured.NestedFieldNoCopy(existing.Object, path...)
			if err != nil {
				return fmt.Errorf("ignoreFields path %s: %w", strings.Join(path, "."), err)
			}
			if found {
				if err := unstructured.SetNestedField(config.Object, runtimeCopy(v), path...); err != nil {
					return fmt.Errorf("ignoreFields path %s: %w", strings.Join(path, "."), err)
				}
			} else {
				unstructured.RemoveNestedField(config.Object, path...)
			}
		}
	}
	return nil
}

func splitPath(p, sep string) []string {
	var out []string
	for _, s := range strings.Split(p, sep) {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

func runtimeCopy(v any) any {
	return (&unstructured.Unstructured{Object: map[string]any{"v": v}}).DeepCopy().Object["v"]
}

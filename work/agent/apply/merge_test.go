package apply

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestEqual(t *testing.T) {
	cases := map[string]struct {
		a, b  any
		equal bool
	}{
		"same maps":                {a: map[string]any{"a": "x"}, b: map[string]any{"a": "x"}, equal: true},
		"changed value":            {a: map[string]any{"a": "x"}, b: map[string]any{"a": "y"}},
		"a key only in one":        {a: map[string]any{"a": "x", "b": "y"}, b: map[string]any{"a": "x"}},
		"a key only in the other":  {a: map[string]any{"a": "x"}, b: map[string]any{"a": "x", "b": "y"}},
		"int and float agree":      {a: map[string]any{"n": float64(3)}, b: map[string]any{"n": int64(3)}, equal: true},
		"empty and missing agree":  {a: map[string]any{"data": map[string]any{}}, b: map[string]any{}, equal: true},
		"null and missing agree":   {a: map[string]any{"l": nil}, b: map[string]any{"l": []any{}}, equal: true},
		"lists element by element": {a: []any{map[string]any{"name": "c", "x": int64(1)}}, b: []any{map[string]any{"name": "c"}}},
		"list of another length":   {a: []any{"a", "b"}, b: []any{"a"}},
		"an empty string counts":   {a: map[string]any{"a": ""}, b: map[string]any{}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := equal(tc.a, tc.b); got != tc.equal {
				t.Errorf("equal(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.equal)
			}
		})
	}
}

func TestMergeMap(t *testing.T) {
	cases := map[string]struct {
		live, want, merged map[string]string
		changed            bool
	}{
		"a key only on the cluster stays": {
			live: map[string]string{"a": "1", "theirs": "x"}, want: map[string]string{"a": "1"},
			merged: map[string]string{"a": "1", "theirs": "x"},
		},
		"a changed value is set": {
			live: map[string]string{"a": "1"}, want: map[string]string{"a": "2"},
			merged: map[string]string{"a": "2"}, changed: true,
		},
		"a key ending in - removes the key": {
			live: map[string]string{"a": "1", "b": "1"}, want: map[string]string{"a-": ""},
			merged: map[string]string{"b": "1"}, changed: true,
		},
		"removing a key that is not there changes nothing": {
			want: map[string]string{"a-": ""},
		},
		"nothing on the cluster yet": {
			want: map[string]string{"a": "1"}, merged: map[string]string{"a": "1"}, changed: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			merged, changed := mergeMap(tc.live, tc.want)
			if diff := cmp.Diff(tc.merged, merged); diff != "" {
				t.Errorf("merged (-want +got):\n%s", diff)
			}
			if changed != tc.changed {
				t.Errorf("changed = %v, want %v", changed, tc.changed)
			}
		})
	}
}

func TestUpdateBody(t *testing.T) {
	owner := metav1.OwnerReference{APIVersion: "work.open-cluster-management.io/v1", Kind: "AppliedManifestWork", Name: "amw", UID: "amw-uid"}
	ownerRef := map[string]any{"apiVersion": owner.APIVersion, "kind": owner.Kind, "name": owner.Name, "uid": string(owner.UID)}
	configMap := func(metadata, data map[string]any) map[string]any {
		return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata, "data": data}
	}
	cases := map[string]struct {
		live, desired, body map[string]any
		metadataChanged     bool
	}{
		"a data key dropped from the manifest is dropped": {
			live: configMap(map[string]any{"name": "cm", "resourceVersion": "7", "ownerReferences": []any{ownerRef}},
				map[string]any{"a": "1", "gone": "1"}),
			desired: configMap(map[string]any{"name": "cm"}, map[string]any{"a": "1"}),
			body: configMap(map[string]any{"name": "cm", "resourceVersion": "7", "ownerReferences": []any{ownerRef}},
				map[string]any{"a": "1"}),
		},
		"labels merge; finalizers, status and the rest of metadata stay; the owner is added": {
			live: map[string]any{"apiVersion": "v1", "kind": "Thing",
				"metadata": map[string]any{"name": "t", "uid": "u", "labels": map[string]any{"theirs": "x", "ours": "old"},
					"finalizers": []any{"f"}, "managedFields": []any{map[string]any{"manager": "m"}}},
				"spec": map[string]any{"a": "1", "defaulted": "x"}, "status": map[string]any{"phase": "Ready"}},
			desired: map[string]any{"apiVersion": "v1", "kind": "Thing",
				"metadata": map[string]any{"name": "t", "labels": map[string]any{"ours": "new"}}, "spec": map[string]any{"a": "1"}},
			body: map[string]any{"apiVersion": "v1", "kind": "Thing",
				"metadata": map[string]any{"name": "t", "uid": "u", "labels": map[string]any{"theirs": "x", "ours": "new"},
					"finalizers": []any{"f"}, "ownerReferences": []any{ownerRef}},
				"spec": map[string]any{"a": "1"}, "status": map[string]any{"phase": "Ready"}},
			metadataChanged: true,
		},
		"a service-account-token Secret keeps the data injected into it": {
			live: map[string]any{"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/service-account-token",
				"metadata": map[string]any{"name": "s", "ownerReferences": []any{ownerRef}}, "data": map[string]any{"token": "dA=="}},
			desired: map[string]any{"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/service-account-token",
				"metadata": map[string]any{"name": "s"}, "data": map[string]any{"extra": "eA=="}},
			body: map[string]any{"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/service-account-token",
				"metadata": map[string]any{"name": "s", "ownerReferences": []any{ownerRef}}, "data": map[string]any{"token": "dA==", "extra": "eA=="}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			body, changed := updateBody(&unstructured.Unstructured{Object: tc.live}, &unstructured.Unstructured{Object: tc.desired}, owner)
			if diff := cmp.Diff(tc.body, body.Object); diff != "" {
				t.Errorf("body (-want +got):\n%s", diff)
			}
			if changed != tc.metadataChanged {
				t.Errorf("metadataChanged = %v, want %v", changed, tc.metadataChanged)
			}
		})
	}
}

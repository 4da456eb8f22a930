package apply

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	workv1 "open-cluster-management.io/api/work/v1"
)

func TestParseJSONPath(t *testing.T) {
	cases := map[string]struct {
		path fieldPath
		err  string
	}{
		".spec.replicas":                         {path: fieldPath{"spec", "replicas"}},
		"{.spec.replicas}":                       {path: fieldPath{"spec", "replicas"}},
		"$.spec.replicas":                        {path: fieldPath{"spec", "replicas"}},
		"spec.replicas":                          {path: fieldPath{"spec", "replicas"}},
		".spec.containers[0].image":              {path: fieldPath{"spec", "containers", "0", "image"}},
		".spec.containers[-1].image":             {path: fieldPath{"spec", "containers", "-1", "image"}},
		`.metadata.annotations.example\.com/tag`: {path: fieldPath{"metadata", "annotations", "example.com/tag"}},
		".spec.containers[*].image":              {err: "a slice or a wildcard"},
		".spec.containers[0:2]":                  {err: "a slice or a wildcard"},
		".spec.*":                                {err: "a wildcard"},
		".spec.containers[?(@.name=='a')].image": {err: "unsupported"},
		"{.a}{.b}":                               {err: "several expressions"},
		"{.spec":                                 {err: `jsonPath "{.spec"`},
	}
	for expr, tc := range cases {
		t.Run(expr, func(t *testing.T) {
			path, err := parseJSONPath(expr)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("parseJSONPath() = %v, %v; want an error with %q", path, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.path, path); diff != "" {
				t.Errorf("path (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseJSONPointer(t *testing.T) {
	path, err := parseJSONPointer("/metadata/annotations/example.com~1tag~0x")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(fieldPath{"metadata", "annotations", "example.com/tag~x"}, path); diff != "" {
		t.Errorf("path (-want +got):\n%s", diff)
	}
	for _, bad := range []string{"", "/", "spec/replicas"} {
		if _, err := parseJSONPointer(bad); err == nil {
			t.Errorf("parseJSONPointer(%q) took it; want an error", bad)
		}
	}
}

// TestKeepIgnored: the fields named, in either syntax and inside lists,
// keep their values on the managed cluster, and a field missing there is
// not set; every other field is as the manifest says.
func TestKeepIgnored(t *testing.T) {
	deployment := func(image, sidecar string, replicas int64, tag string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{
			"metadata": map[string]any{"name": "app"},
			"spec": map[string]any{"replicas": replicas, "template": map[string]any{"spec": map[string]any{"containers": []any{
				map[string]any{"name": "app", "image": image},
				map[string]any{"name": "sidecar", "image": sidecar},
			}}}},
		}}
		if tag != "" {
			u.SetAnnotations(map[string]string{"example.com/tag": tag})
		}
		return u
	}
	config := deployment("app:2", "sidecar:2", 3, "hub")
	existing := deployment("app:1", "sidecar:1", 5, "")
	fields := []workv1.IgnoreField{{
		Condition:    workv1.IgnoreFieldsConditionOnSpokePresent,
		JSONPaths:    []string{".spec.replicas", "{.spec.template.spec.containers[0].image}"},
		JSONPointers: []string{"/metadata/annotations/example.com~1tag"},
	}}
	if err := keepIgnored(config, existing, fields, false); err != nil {
		t.Fatal(err)
	}
	want := deployment("app:1", "sidecar:2", 5, "")
	want.SetAnnotations(map[string]string{})
	if diff := cmp.Diff(want.Object, config.Object); diff != "" {
		t.Errorf("applied configuration (-want +got):\n%s", diff)
	}
}

func TestKeepIgnoredRefusesAPathItCannotName(t *testing.T) {
	fields := []workv1.IgnoreField{{Condition: workv1.IgnoreFieldsConditionOnSpokePresent, JSONPaths: []string{".spec.containers[*].image"}}}
	err := keepIgnored(&unstructured.Unstructured{Object: map[string]any{}}, &unstructured.Unstructured{Object: map[string]any{}}, fields, false)
	if err == nil || !strings.Contains(err.Error(), ".spec.containers[*].image") {
		t.Errorf("keepIgnored() = %v, want an error naming the path", err)
	}
}

package apply

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestFoldStringData(t *testing.T) {
	secret := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Secret",
		"data":       map[string]any{"a": "YQ==", "b": "old"},
		"stringData": map[string]any{"b": "b"},
	}}
	foldStringData(secret)
	want := map[string]any{"apiVersion": "v1", "kind": "Secret", "data": map[string]any{"a": "YQ==", "b": "Yg=="}}
	if diff := cmp.Diff(want, secret.Object); diff != "" {
		t.Errorf("folded Secret (-want +got):\n%s", diff)
	}
	cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "stringData": map[string]any{"b": "b"}}}
	foldStringData(cm)
	if _, ok := cm.Object["stringData"]; !ok {
		t.Error("a ConfigMap's fields were changed")
	}
}

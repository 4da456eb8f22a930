package addons

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	toolscache "k8s.io/client-go/tools/cache"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func TestHubCacheChainsTheAddonsTransformsByType(t *testing.T) {
	mark := func(value string) toolscache.TransformFunc {
		return func(obj any) (any, error) {
			o := obj.(client.Object)
			o.SetAnnotations(map[string]string{"seen": o.GetAnnotations()["seen"] + value})
			return o, nil
		}
	}
	list := []Addon{
		{Name: "a", HubCache: map[client.Object]toolscache.TransformFunc{&workv1.ManifestWork{}: mark("a")}},
		{Name: "b"},
		{Name: "c", HubCache: map[client.Object]toolscache.TransformFunc{&workv1.ManifestWork{}: mark("c"), &corev1.ConfigMap{}: mark("c")}},
	}
	got := HubCache(list)
	if len(got) != 2 {
		t.Fatalf("%d types, want 2 (ManifestWork, ConfigMap)", len(got))
	}
	for obj, by := range got {
		in := obj.DeepCopyObject().(client.Object)
		in.SetManagedFields([]metav1.ManagedFieldsEntry{{Manager: "kubectl"}})
		out, err := by.Transform(in)
		if err != nil {
			t.Fatal(err)
		}
		o := out.(client.Object)
		want := "c"
		if _, ok := obj.(*workv1.ManifestWork); ok {
			want = "ac"
		}
		if o.GetAnnotations()["seen"] != want || len(o.GetManagedFields()) != 0 {
			t.Errorf("%T: transforms seen %q, managedFields %v; want %q and none", obj, o.GetAnnotations()["seen"], o.GetManagedFields(), want)
		}
	}
}

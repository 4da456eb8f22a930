package manifestwork

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/corral-dev/corral/internal/fieldpatch"
)

// BenchmarkFinalizerPatch: the patch that adds the agent's finalizer to a
// work of a ConfigMap and a Secret (the work benchmark's), made from the
// two finalizer lists (setFinalizers) and, as before, by a merge patch
// from a copy of the work.
func BenchmarkFinalizerPatch(b *testing.B) {
	work := &workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{Namespace: "cluster1", Name: "w1", ResourceVersion: "1234"}}
	for _, kind := range []string{"ConfigMap", "Secret"} {
		raw, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": kind,
			"metadata": map[string]any{"namespace": "default", "name": "w1"}, "data": map[string]any{"k": "v"}})
		if err != nil {
			b.Fatal(err)
		}
		work.Spec.Workload.Manifests = append(work.Spec.Workload.Manifests, workv1.Manifest{RawExtension: runtime.RawExtension{Raw: raw}})
	}
	patches := map[string]func(w *workv1.ManifestWork) (client.Patch, error){
		"fields": func(w *workv1.ManifestWork) (client.Patch, error) {
			have := slices.Clone(w.Finalizers)
			controllerutil.AddFinalizer(w, workv1.ManifestWorkFinalizer)
			return fieldpatch.Set("/metadata/finalizers", have, w.Finalizers)
		},
		"merge-from-copy": func(w *workv1.ManifestWork) (client.Patch, error) {
			old := w.DeepCopy()
			controllerutil.AddFinalizer(w, workv1.ManifestWorkFinalizer)
			return client.MergeFromWithOptions(old, client.MergeFromWithOptimisticLock{}), nil
		},
	}
	for _, name := range []string{"fields", "merge-from-copy"} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				w := work.DeepCopy()
				patch, err := patches[name](w)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := patch.Data(w); err != nil {
					b.Fatal(fmt.Errorf("%s: %w", name, err))
				}
			}
		})
	}
}

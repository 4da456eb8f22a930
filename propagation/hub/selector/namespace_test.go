package selector

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/steps"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

func TestBringNamespace(t *testing.T) {
	shop := namespace(ns)
	shop.Annotations = map[string]string{"owner": "team-a", "kubectl.kubernetes.io/last-applied-configuration": "{}"}
	shop.Spec.Finalizers = []corev1.FinalizerName{corev1.FinalizerKubernetes}
	shop.Status.Phase = corev1.NamespaceActive
	inDefault := propagation(sel("", "v1", "ConfigMap"))
	inDefault.Namespace = "default"
	shell := map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{
		"name": ns, "labels": map[string]any{"team": "a"}, "annotations": map[string]any{"owner": "team-a"}}}
	cases := map[string]struct {
		obj  client.Object
		hub  []client.Object
		want []map[string]any // the objects after the step
	}{
		"a Propagation brings its namespace, first, without spec or status": {
			obj: propagation(sel("", "v1", "ConfigMap")), hub: []client.Object{shop, namespace("default")},
			want: []map[string]any{shell, cmObject("web")},
		},
		"a Propagation in a namespace every cluster has does not": {
			obj: inDefault, hub: []client.Object{namespace("default")},
			want: []map[string]any{cmObject("web")},
		},
		"a namespace not found is not brought": {
			obj:  propagation(sel("", "v1", "ConfigMap")),
			want: []map[string]any{cmObject("web")},
		},
		"a ClusterPropagation brings nothing": {
			obj: clusterPropagation(v1alpha1.ClusterResourceSelector{ResourceSelector: sel("", "v1", "Namespace")}), hub: []client.Object{shop},
			want: []map[string]any{cmObject("web")},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := reconciler(t, append([]client.Object{tc.obj}, tc.hub...)...)
			s := loaded(t, r, tc.obj.GetNamespace(), tc.obj.GetName())
			s.objects = []*unstructured.Unstructured{{Object: cmObject("web")}}
			res, err := r.bringNamespace(context.Background(), s)
			if err != nil || res != steps.Continue {
				t.Fatalf("result %+v, %v", res, err)
			}
			var got []map[string]any
			for _, o := range s.objects {
				got = append(got, o.Object)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("objects (-want +got):\n%s", diff)
			}
		})
	}
}

// cmObject is a cleaned ConfigMap shop/name.
func cmObject(name string) map[string]any {
	return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": name, "namespace": ns}}
}

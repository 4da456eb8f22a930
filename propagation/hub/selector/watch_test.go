package selector

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

func TestRequestsFor(t *testing.T) {
	cm := sel("", "v1", "ConfigMap")
	nsSel := sel("", "v1", "Namespace")
	webCMs := propagation(cm)
	webDeploys := propagation(sel("apps", "v1", "Deployment"))
	webDeploys.Name = "deploys"
	elsewhere := propagation(cm)
	elsewhere.Namespace = "other"
	contents := clusterPropagation(v1alpha1.ClusterResourceSelector{ResourceSelector: nsSel})
	only := clusterPropagation(v1alpha1.ClusterResourceSelector{ResourceSelector: nsSel, SelectionScope: v1alpha1.NamespaceOnly})
	only.Name = "only"
	c := fake.NewClientBuilder().WithScheme(scheme(t)).
		WithIndex(&v1alpha1.Propagation{}, SelectsIndex, propagationKinds).
		WithIndex(&v1alpha1.ClusterPropagation{}, SelectsIndex, clusterPropagationKinds).
		WithObjects(webCMs, webDeploys, elsewhere, contents, only).Build()
	w := newWatcher(nil, nil, c)
	req := func(ns, name string) reconcile.Request {
		return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: name}}
	}
	cases := map[string]struct {
		gk   schema.GroupKind
		obj  client.Object
		want []reconcile.Request
	}{
		"a ConfigMap: its namespace's Propagations of ConfigMaps, and namespace contents": {
			gk: schema.GroupKind{Kind: "ConfigMap"}, obj: configMap(ns, "x", nil),
			want: []reconcile.Request{req(ns, "web"), req("", "shop")},
		},
		"a Deployment elsewhere: namespace contents only": {
			gk: schema.GroupKind{Group: "apps", Kind: "Deployment"}, obj: deployment("third", "x", nil),
			want: []reconcile.Request{req("", "shop")},
		},
		"a Namespace: the Propagations in it, which bring it, and the ClusterPropagations selecting Namespaces": {
			gk: schema.GroupKind{Kind: "Namespace"}, obj: namespace(ns),
			want: []reconcile.Request{req(ns, "web"), req(ns, "deploys"), req("", "only"), req("", "shop")},
		},
		"a Namespace without Propagations: the ClusterPropagations selecting Namespaces": {
			gk: schema.GroupKind{Kind: "Namespace"}, obj: namespace("x"),
			want: []reconcile.Request{req("", "only"), req("", "shop")},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := w.requestsFor(context.Background(), tc.gk, tc.obj)
			less := func(a, b reconcile.Request) bool { return a.String() < b.String() }
			if diff := cmp.Diff(tc.want, got, cmpopts.SortSlices(less)); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
		})
	}
}

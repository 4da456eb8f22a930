package selector

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
	webOnly := propagation(named(sel("apps", "v1", "Deployment"), "web"))
	webOnly.Name = "web-only"
	c := fake.NewClientBuilder().WithScheme(scheme(t)).
		WithIndex(&v1alpha1.Propagation{}, SelectsIndex, propagationKinds).
		WithIndex(&v1alpha1.ClusterPropagation{}, SelectsIndex, clusterPropagationKinds).
		WithObjects(webCMs, webDeploys, elsewhere, contents, only, webOnly).Build()
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
		"Deployment web: the Propagations selecting it by name or Deployments by labels": {
			gk: schema.GroupKind{Group: "apps", Kind: "Deployment"}, obj: deployment(ns, "web", nil),
			want: []reconcile.Request{req(ns, "deploys"), req(ns, "web-only"), req("", "shop")},
		},
		"Deployment api: not a Propagation naming another": {
			gk: schema.GroupKind{Group: "apps", Kind: "Deployment"}, obj: deployment(ns, "api", nil),
			want: []reconcile.Request{req(ns, "deploys"), req("", "shop")},
		},
		"a Namespace: the Propagations in it, which bring it, and the ClusterPropagations selecting Namespaces": {
			gk: schema.GroupKind{Kind: "Namespace"}, obj: namespace(ns),
			want: []reconcile.Request{req(ns, "web"), req(ns, "deploys"), req(ns, "web-only"), req("", "only"), req("", "shop")},
		},
		"a Deployment elsewhere: namespace contents only": {
			gk: schema.GroupKind{Group: "apps", Kind: "Deployment"}, obj: deployment("third", "x", nil),
			want: []reconcile.Request{req("", "shop")},
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

func TestSelectableSkipsStatusOnlyUpdates(t *testing.T) {
	withGen := func(gen int64, mutate func(*appsv1.Deployment)) *appsv1.Deployment {
		d := deployment(ns, "web", map[string]string{"app": "web"})
		d.Generation = gen
		if mutate != nil {
			mutate(d)
		}
		return d
	}
	old := withGen(2, nil)
	cases := map[string]struct {
		old, new client.Object
		want     bool
	}{
		"the status only": {old: old, new: withGen(2, func(d *appsv1.Deployment) { d.Status.Replicas = 4 })},
		"a spec change":   {old: old, new: withGen(3, nil), want: true},
		"a label":         {old: old, new: withGen(2, func(d *appsv1.Deployment) { d.Labels["tier"] = "web" }), want: true},
		"an annotation":   {old: old, new: withGen(2, func(d *appsv1.Deployment) { d.Annotations = map[string]string{"a": "b"} }), want: true},
		"a finalizer":     {old: old, new: withGen(2, func(d *appsv1.Deployment) { d.Finalizers = []string{"f"} }), want: true},
		"an owner":        {old: old, new: withGen(2, func(d *appsv1.Deployment) { d.OwnerReferences = []metav1.OwnerReference{{Name: "o"}} }), want: true},
		"a kind without generation (a ConfigMap's data)": {old: configMap(ns, "a", nil), new: configMap(ns, "a", nil), want: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := selectable(tc.old, tc.new); got != tc.want {
				t.Errorf("selectable = %v, want %v", got, tc.want)
			}
		})
	}
}

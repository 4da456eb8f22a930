package selector

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/steps"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

func TestSelectObjects(t *testing.T) {
	web := map[string]string{"app": "web"}
	owned := configMap(ns, "owned", web)
	owned.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: "u", Controller: ptr.To(true)}}
	hub := []client.Object{
		namespace(ns), namespace("other"),
		deployment(ns, "web", web), deployment(ns, "db", nil), deployment("other", "web", web),
		configMap(ns, "web", web), configMap(ns, "kube-root-ca.crt", nil), owned,
		configMap("other", "x", nil),
	}
	nsSel := func(scope v1alpha1.SelectionScope, s v1alpha1.ResourceSelector) v1alpha1.ClusterResourceSelector {
		return v1alpha1.ClusterResourceSelector{ResourceSelector: s, SelectionScope: scope}
	}
	cases := map[string]struct {
		obj         client.Object
		want        []string // kind namespace/name, in delivery order
		wantBlocked string   // the Selected message when blocked
		wantSkipped []string
	}{
		"by name and by label, each once, in dependency order": {
			obj:         propagation(named(sel("apps", "v1", "Deployment"), "web"), labelled(sel("", "v1", "ConfigMap"), web), sel("apps", "v1", "Deployment")),
			want:        []string{"ConfigMap shop/web", "Deployment shop/db", "Deployment shop/web"},
			wantSkipped: []string{"ConfigMap shop/owned: controlled by Deployment/web, which makes it on each cluster"},
		},
		"every object of a kind, but the skipped": {
			obj:         propagation(sel("", "v1", "ConfigMap")),
			want:        []string{"ConfigMap shop/web"},
			wantSkipped: []string{"ConfigMap shop/kube-root-ca.crt: each cluster publishes its own kube-root-ca.crt", "ConfigMap shop/owned: controlled by Deployment/web, which makes it on each cluster"},
		},
		"a name that does not exist": {
			obj:         propagation(named(sel("apps", "v1", "Deployment"), "web"), named(sel("apps", "v1", "Deployment"), "gone")),
			wantBlocked: "selector 2 (Deployment.v1.apps gone) selects nothing that may be delivered",
		},
		"a skipped object by name": {
			obj:         propagation(named(sel("", "v1", "ConfigMap"), "kube-root-ca.crt")),
			wantBlocked: "selector 1 (ConfigMap.v1 kube-root-ca.crt) selects nothing that may be delivered; skipped: ConfigMap shop/kube-root-ca.crt: each cluster publishes its own kube-root-ca.crt",
		},
		"a namespace with its resources": {
			obj:  clusterPropagation(nsSel("", named(sel("", "v1", "Namespace"), ns))),
			want: []string{"Namespace /shop", "ConfigMap shop/web", "Deployment shop/db", "Deployment shop/web"},
			wantSkipped: []string{
				"ConfigMap shop/kube-root-ca.crt: each cluster publishes its own kube-root-ca.crt",
				"ConfigMap shop/owned: controlled by Deployment/web, which makes it on each cluster",
			},
		},
		"namespaces by label, alone": {
			obj:  clusterPropagation(nsSel(v1alpha1.NamespaceOnly, labelled(sel("", "v1", "Namespace"), map[string]string{"team": "a"}))),
			want: []string{"Namespace /other", "Namespace /shop"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := reconciler(t, append([]client.Object{tc.obj}, hub...)...)
			s := loaded(t, r, tc.obj.GetNamespace(), tc.obj.GetName())
			ctx := context.Background()
			if _, err := r.resolve(ctx, s); err != nil || s.blocked() {
				t.Fatalf("resolving: %v, %+v", err, s.selected)
			}
			res, err := r.selectObjects(ctx, s)
			if err != nil {
				t.Fatal(err)
			}
			if tc.wantBlocked != "" {
				if res != steps.StopList || !s.blocked() || s.selected.Reason != v1alpha1.ReasonNothingSelected {
					t.Fatalf("result %+v, Selected %+v; want the list stopped, NothingSelected", res, s.selected)
				}
				if diff := cmp.Diff(tc.wantBlocked, s.selected.Message); diff != "" {
					t.Errorf("message (-want +got):\n%s", diff)
				}
				return
			}
			var got []string
			for _, o := range s.objects {
				got = append(got, o.GetKind()+" "+o.GetNamespace()+"/"+o.GetName())
				if o.GetResourceVersion() != "" || o.Object["status"] != nil {
					t.Errorf("%s/%s not cleaned: %v", o.GetKind(), o.GetName(), o.Object)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("objects (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantSkipped, s.skipped); diff != "" {
				t.Errorf("skipped (-want +got):\n%s", diff)
			}
		})
	}
}

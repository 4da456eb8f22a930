package selector

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/steps"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

func TestSelectEnvelopes(t *testing.T) {
	const (
		webDeploy  = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: 1}\n"
		otherNS    = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: other}\n"
		reader     = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: reader}\n"
		widget     = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n"
		settings   = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: shop}\n"
		event      = "apiVersion: v1\nkind: Event\nmetadata: {name: e}\n"
		undecoding = "kind: [x\n"
	)
	cms := sel("", "v1", "ConfigMap")
	byName := func(name string) v1alpha1.ResourceSelector { return named(cms, name) }
	nsContents := v1alpha1.ClusterResourceSelector{ResourceSelector: named(sel("", "v1", "Namespace"), ns)}
	cases := map[string]struct {
		obj         client.Object
		hub         []client.Object
		want        []string // Kind namespace/name [envelope], in delivery order
		wantReason  string
		wantMessage string
		wantRequeue bool
	}{
		"a Propagation's envelope: its objects in its namespace, in order with the rest, not the ConfigMap": {
			obj: propagation(cms, sel("apps", "v1", "Deployment")),
			hub: []client.Object{configMap(ns, "plain", nil), deployment(ns, "db", nil),
				envelope(ns, "hooks", map[string]string{"a": webDeploy + "---\n" + settings, "b": event})},
			want: []string{"ConfigMap shop/plain", "ConfigMap shop/settings [shop/hooks]", "Deployment shop/db", "Deployment shop/web [shop/hooks]"},
		},
		"an envelope selected twice is opened once": {
			obj:  propagation(byName("hooks"), cms),
			hub:  []client.Object{envelope(ns, "hooks", map[string]string{"a": webDeploy})},
			want: []string{"Deployment shop/web [shop/hooks]"},
		},
		"a ClusterPropagation's envelope carries anything": {
			obj:  clusterPropagation(nsContents),
			hub:  []client.Object{namespace(ns), envelope(ns, "hooks", map[string]string{"a": reader + "---\n" + otherNS + "---\n" + widget})},
			want: []string{"Namespace /shop", "ClusterRole /reader [shop/hooks]", "Deployment other/web [shop/hooks]", "Widget /w [shop/hooks]"},
		},
		"an envelope with nothing deliverable": {
			obj:         propagation(byName("hooks")),
			hub:         []client.Object{envelope(ns, "hooks", map[string]string{"a": event})},
			wantReason:  v1alpha1.ReasonNothingSelected,
			wantMessage: "selector 1 (ConfigMap.v1 hooks) selects nothing that may be delivered; skipped: Event e in envelope shop/hooks: events are not propagated",
		},
		"a value that does not decode": {
			obj:         propagation(byName("hooks")),
			hub:         []client.Object{envelope(ns, "hooks", map[string]string{"a": webDeploy, "b": undecoding})},
			wantReason:  v1alpha1.ReasonUndecodable,
			wantMessage: `envelope ConfigMap shop/hooks, key "b": document 1: yaml: line 1: did not find expected ',' or ']'`,
		},
		"a cluster-scoped object in a Propagation's envelope": {
			obj:         propagation(byName("hooks")),
			hub:         []client.Object{envelope(ns, "hooks", map[string]string{"a": reader})},
			wantReason:  ReasonWrongScope,
			wantMessage: `envelope ConfigMap shop/hooks, key "a": ClusterRole reader is cluster-scoped; a Propagation's envelope carries objects of its namespace only (use a ClusterPropagation)`,
		},
		"another namespace's object in a Propagation's envelope": {
			obj:         propagation(byName("hooks")),
			hub:         []client.Object{envelope(ns, "hooks", map[string]string{"a": otherNS})},
			wantReason:  ReasonWrongScope,
			wantMessage: `envelope ConfigMap shop/hooks, key "a": Deployment other/web is of another namespace; a Propagation's envelope carries objects of its namespace (shop) only`,
		},
		"a kind the hub does not serve in a Propagation's envelope": {
			obj:         propagation(byName("hooks")),
			hub:         []client.Object{envelope(ns, "hooks", map[string]string{"a": widget})},
			wantReason:  v1alpha1.ReasonUnknownKind,
			wantMessage: `envelope ConfigMap shop/hooks, key "a": the hub serves no Widget.v1.example.com, so cannot tell it is namespaced; a Propagation's envelope carries objects of its namespace only`,
			wantRequeue: true,
		},
		"an envelope's object also selected on the hub": {
			obj:         propagation(sel("apps", "v1", "Deployment"), byName("hooks")),
			hub:         []client.Object{deployment(ns, "web", nil), envelope(ns, "hooks", map[string]string{"a": webDeploy})},
			wantReason:  ReasonDuplicate,
			wantMessage: `envelope ConfigMap shop/hooks, key "a": Deployment shop/web is also selected on the hub; deliver each object once`,
		},
		"a hub object also in an envelope": {
			obj:         propagation(byName("hooks"), sel("apps", "v1", "Deployment")),
			hub:         []client.Object{deployment(ns, "web", nil), envelope(ns, "hooks", map[string]string{"a": webDeploy})},
			wantReason:  ReasonDuplicate,
			wantMessage: `Deployment shop/web is selected on the hub and is in envelope ConfigMap shop/hooks, key "a"; deliver each object once`,
		},
		"one object in two envelopes": {
			obj: propagation(cms),
			hub: []client.Object{envelope(ns, "a", map[string]string{"x": webDeploy}),
				envelope(ns, "b", map[string]string{"y": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\n"})},
			wantReason:  ReasonDuplicate,
			wantMessage: `envelope ConfigMap shop/b, key "y": Deployment shop/web is also in envelope ConfigMap shop/a, key "x"; deliver each object once`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := reconciler(t, append([]client.Object{tc.obj}, tc.hub...)...)
			s := loaded(t, r, tc.obj.GetNamespace(), tc.obj.GetName())
			ctx := context.Background()
			if _, err := r.resolve(ctx, s); err != nil || s.blocked() {
				t.Fatalf("resolving: %v, %+v", err, s.selected)
			}
			res, err := r.selectObjects(ctx, s)
			if err != nil {
				t.Fatal(err)
			}
			if tc.wantReason != "" {
				if !res.Stop || !s.blocked() || s.selected.Reason != tc.wantReason {
					t.Fatalf("result %+v, Selected %+v; want the list stopped, %s", res, s.selected, tc.wantReason)
				}
				if diff := cmp.Diff(tc.wantMessage, s.selected.Message); diff != "" {
					t.Errorf("message (-want +got):\n%s", diff)
				}
				if requeued := res.RequeueAfter == UnknownKindRetry; requeued != tc.wantRequeue {
					t.Errorf("requeued after %s, want a requeue %t", res.RequeueAfter, tc.wantRequeue)
				}
				return
			}
			if res != steps.Continue {
				t.Fatalf("result %+v, Selected %+v", res, s.selected)
			}
			var got []string
			for _, o := range s.objects {
				entry := o.GetKind() + " " + o.GetNamespace() + "/" + o.GetName()
				if e := o.GetAnnotations()[v1alpha1.AnnotationEnvelope]; e != "" {
					entry += " [" + e + "]"
				}
				got = append(got, entry)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("objects (-want +got):\n%s", diff)
			}
		})
	}
}

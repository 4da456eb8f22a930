package addonfeature

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/event"

	"github.com/corral-dev/corral/internal/testing/builder"
)

func clusterAvailable(s metav1.ConditionStatus) metav1.Condition {
	return metav1.Condition{Type: clusterv1.ManagedClusterConditionAvailable, Status: s, Reason: "Test"}
}

func addonAvailable(s metav1.ConditionStatus) metav1.Condition {
	return metav1.Condition{Type: addonv1alpha1.ManagedClusterAddOnConditionAvailable, Status: s, Reason: "Test"}
}

func TestReconcile(t *testing.T) {
	deleted := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	up := builder.Cluster("c1").Label("env", "prod").Condition(clusterAvailable(metav1.ConditionTrue))
	cases := map[string]struct {
		cluster     *clusterv1.ManagedCluster
		addons      []client.Object
		wantLabels  map[string]string
		wantPatches int
	}{
		"an available addon labels the cluster available": {
			cluster:     up.Obj(),
			addons:      []client.Object{builder.AddOn("c1", "hello").Condition(addonAvailable(metav1.ConditionTrue)).Obj()},
			wantLabels:  map[string]string{"env": "prod", LabelKey("hello"): Available},
			wantPatches: 1,
		},
		"each addon by its Available condition: False unhealthy, Unknown and none unreachable": {
			cluster: up.Obj(),
			addons: []client.Object{
				builder.AddOn("c1", "sick").Condition(addonAvailable(metav1.ConditionFalse)).Obj(),
				builder.AddOn("c1", "lost").Condition(addonAvailable(metav1.ConditionUnknown)).Obj(),
				builder.AddOn("c1", "new").Obj(),
			},
			wantLabels:  map[string]string{"env": "prod", LabelKey("sick"): Unhealthy, LabelKey("lost"): Unreachable, LabelKey("new"): Unreachable},
			wantPatches: 1,
		},
		"a changed state changes the label": {
			cluster:     builder.Cluster("c1").Label(LabelKey("hello"), Available).Condition(clusterAvailable(metav1.ConditionTrue)).Obj(),
			addons:      []client.Object{builder.AddOn("c1", "hello").Condition(addonAvailable(metav1.ConditionFalse)).Obj()},
			wantLabels:  map[string]string{LabelKey("hello"): Unhealthy},
			wantPatches: 1,
		},
		"the label of an addon gone from the cluster is removed, other labels stay": {
			cluster: builder.Cluster("c1").Label("env", "prod").Label(LabelKey("gone"), Available).Label("feature.example.com/addon-gone", "x").
				Condition(clusterAvailable(metav1.ConditionTrue)).Obj(),
			addons:      []client.Object{builder.AddOn("c2", "gone").Condition(addonAvailable(metav1.ConditionTrue)).Obj()},
			wantLabels:  map[string]string{"env": "prod", "feature.example.com/addon-gone": "x"},
			wantPatches: 1,
		},
		"the label of an addon being deleted is removed": {
			cluster: builder.Cluster("c1").Label(LabelKey("hello"), Available).Condition(clusterAvailable(metav1.ConditionTrue)).Obj(),
			addons: []client.Object{builder.AddOn("c1", "hello").Condition(addonAvailable(metav1.ConditionTrue)).
				Finalizer("test/keep").Deleting(deleted).Obj()},
			wantPatches: 1,
		},
		"nothing changed: no patch": {
			cluster: builder.Cluster("c1").Label("env", "prod").Label(LabelKey("hello"), Available).Label(LabelKey("sick"), Unhealthy).
				Condition(clusterAvailable(metav1.ConditionTrue)).Obj(),
			addons: []client.Object{
				builder.AddOn("c1", "hello").Condition(addonAvailable(metav1.ConditionTrue)).Obj(),
				builder.AddOn("c1", "sick").Condition(addonAvailable(metav1.ConditionFalse)).Obj(),
			},
			wantLabels: map[string]string{"env": "prod", LabelKey("hello"): Available, LabelKey("sick"): Unhealthy},
		},
		"no addons and no addon labels: no patch": {
			cluster:    up.Obj(),
			wantLabels: map[string]string{"env": "prod"},
		},
		"a cluster with no Available condition yet is not labelled": {
			cluster: builder.Cluster("c1").Obj(),
			addons:  []client.Object{builder.AddOn("c1", "hello").Condition(addonAvailable(metav1.ConditionTrue)).Obj()},
		},
		"a cluster being deleted is not labelled": {
			cluster: builder.Cluster("c1").Label(LabelKey("hello"), Available).Condition(clusterAvailable(metav1.ConditionTrue)).
				Finalizer("test/keep").Deleting(deleted).Obj(),
			wantLabels: map[string]string{LabelKey("hello"): Available},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var patches []string
			c := fakeClient(t, func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
				data, err := patch.Data(obj)
				if err != nil {
					return err
				}
				patches = append(patches, string(data))
				return c.Patch(ctx, obj, patch, opts...)
			}, append(tc.addons, tc.cluster)...)
			r := &Reconciler{Client: c}
			if _, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(tc.cluster)}); err != nil {
				t.Fatalf("Reconcile: %v", err)
			}
			if len(patches) != tc.wantPatches {
				t.Errorf("patches = %q, want %d", patches, tc.wantPatches)
			}
			for _, p := range patches {
				if err := onlyLabels(p); err != "" {
					t.Errorf("patch %s: %s", p, err)
				}
			}
			got := &clusterv1.ManagedCluster{}
			if err := c.Get(context.Background(), client.ObjectKeyFromObject(tc.cluster), got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.wantLabels, got.Labels); diff != "" {
				t.Errorf("labels (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReconcileTwice checks that a second reconcile of a cluster whose
// labels are right writes nothing.
func TestReconcileTwice(t *testing.T) {
	patches := 0
	c := fakeClient(t, func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
		patches++
		return c.Patch(ctx, obj, patch, opts...)
	}, builder.Cluster("c1").Condition(clusterAvailable(metav1.ConditionTrue)).Obj(),
		builder.AddOn("c1", "hello").Condition(addonAvailable(metav1.ConditionTrue)).Obj())
	r := &Reconciler{Client: c}
	for range 2 {
		if _, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKey{Name: "c1"}}); err != nil {
			t.Fatalf("Reconcile: %v", err)
		}
	}
	if patches != 1 {
		t.Errorf("patches = %d, want 1", patches)
	}
}

// onlyLabels says what is wrong with a patch that should set nothing but
// metadata.labels.
func onlyLabels(patch string) string {
	var body map[string]map[string]json.RawMessage
	if err := json.Unmarshal([]byte(patch), &body); err != nil {
		return err.Error()
	}
	if len(body) != 1 || len(body["metadata"]) != 1 || body["metadata"]["labels"] == nil {
		return "touches more than metadata.labels"
	}
	return ""
}

func fakeClient(t *testing.T, patch func(context.Context, client.WithWatch, client.Object, client.Patch, ...client.PatchOption) error, objs ...client.Object) client.Client {
	t.Helper()
	s := runtime.NewScheme()
	if err := clusterv1.Install(s); err != nil {
		t.Fatal(err)
	}
	if err := addonv1alpha1.Install(s); err != nil {
		t.Fatal(err)
	}
	return fake.NewClientBuilder().WithScheme(s).WithObjects(objs...).
		WithStatusSubresource(&clusterv1.ManagedCluster{}, &addonv1alpha1.ManagedClusterAddOn{}).
		WithInterceptorFuncs(interceptor.Funcs{Patch: patch}).Build()
}

func TestClusterChanged(t *testing.T) {
	at := metav1.NewTime(time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC))
	cluster := func(env, hello string, conds ...metav1.Condition) *clusterv1.ManagedCluster {
		b := builder.Cluster("c1").Label("env", env).Condition(conds...)
		if hello != "" {
			b.Label(LabelKey("hello"), hello)
		}
		return b.Obj()
	}
	old := cluster("prod", Available, clusterAvailable(metav1.ConditionTrue))
	renewed := clusterAvailable(metav1.ConditionTrue)
	renewed.LastTransitionTime = at
	cases := map[string]struct {
		newMC *clusterv1.ManagedCluster
		want  bool
	}{
		"a status update":              {newMC: cluster("prod", Available, renewed, metav1.Condition{Type: "Other", Status: metav1.ConditionTrue})},
		"the cluster going Unknown":    {newMC: cluster("prod", Available, clusterAvailable(metav1.ConditionUnknown))},
		"another label":                {newMC: cluster("dev", Available, clusterAvailable(metav1.ConditionTrue))},
		"an addon label changed":       {newMC: cluster("prod", "x", clusterAvailable(metav1.ConditionTrue)), want: true},
		"an addon label removed":       {newMC: cluster("prod", "", clusterAvailable(metav1.ConditionTrue)), want: true},
		"the Available condition gone": {newMC: cluster("prod", Available), want: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := (clusterChanged{}).Update(event.UpdateEvent{ObjectOld: old, ObjectNew: tc.newMC}); got != tc.want {
				t.Errorf("Update = %t, want %t", got, tc.want)
			}
		})
	}
}

func TestAddonChanged(t *testing.T) {
	addon := func(conds ...metav1.Condition) *builder.AddOnBuilder {
		return builder.AddOn("c1", "hello").Condition(conds...)
	}
	old := addon(addonAvailable(metav1.ConditionTrue)).Obj()
	cases := map[string]struct {
		newMCA *addonv1alpha1.ManagedClusterAddOn
		want   bool
	}{
		"another condition": {newMCA: addon(addonAvailable(metav1.ConditionTrue),
			metav1.Condition{Type: addonv1alpha1.ManagedClusterAddOnConditionProgressing, Status: metav1.ConditionTrue}).Obj()},
		"Available False": {newMCA: addon(addonAvailable(metav1.ConditionFalse)).Obj(), want: true},
		"Available gone":  {newMCA: addon().Obj(), want: true},
		"deletion started": {newMCA: addon(addonAvailable(metav1.ConditionTrue)).Finalizer("test/keep").
			Deleting(time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)).Obj(), want: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := (addonChanged{}).Update(event.UpdateEvent{ObjectOld: old, ObjectNew: tc.newMCA}); got != tc.want {
				t.Errorf("Update = %t, want %t", got, tc.want)
			}
		})
	}
}

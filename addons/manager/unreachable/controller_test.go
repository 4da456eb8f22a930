package unreachable

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
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

const (
	leaseStopped = "ManagedClusterLeaseUpdateStopped"
	stoppedMsg   = "Registration agent stopped updating its lease."
)

func clusterAvailable(s metav1.ConditionStatus, reason, message string) metav1.Condition {
	return metav1.Condition{Type: clusterv1.ManagedClusterConditionAvailable, Status: s, Reason: reason, Message: message}
}

func addonAvailable(s metav1.ConditionStatus, reason, message string) metav1.Condition {
	return metav1.Condition{Type: addonv1alpha1.ManagedClusterAddOnConditionAvailable, Status: s, Reason: reason, Message: message}
}

func TestReconcile(t *testing.T) {
	lost := builder.Cluster("c1").Condition(clusterAvailable(metav1.ConditionUnknown, leaseStopped, stoppedMsg)).Obj()
	progressing := metav1.Condition{Type: addonv1alpha1.ManagedClusterAddOnConditionProgressing, Status: metav1.ConditionFalse, Reason: "Completed"}
	unknownAsCluster := addonAvailable(metav1.ConditionUnknown, leaseStopped, stoppedMsg)
	cases := map[string]struct {
		cluster     *clusterv1.ManagedCluster
		addons      []*addonv1alpha1.ManagedClusterAddOn
		want        map[string][]metav1.Condition // by namespace/name
		wantPatches int
	}{
		"an Unknown cluster's addons become Unknown with its reason and message, other conditions kept": {
			cluster: lost,
			addons: []*addonv1alpha1.ManagedClusterAddOn{
				builder.AddOn("c1", "hello").Condition(addonAvailable(metav1.ConditionTrue, "LeaseUpdated", "hello add-on is available."), progressing).Obj(),
				builder.AddOn("c1", "new").Obj(),
			},
			want: map[string][]metav1.Condition{
				"c1/hello": {unknownAsCluster, progressing},
				"c1/new":   {unknownAsCluster},
			},
			wantPatches: 2,
		},
		"an addon already Unknown for that reason is not written": {
			cluster:     lost,
			addons:      []*addonv1alpha1.ManagedClusterAddOn{builder.AddOn("c1", "hello").Condition(unknownAsCluster).Obj()},
			want:        map[string][]metav1.Condition{"c1/hello": {unknownAsCluster}},
			wantPatches: 0,
		},
		"another cluster's addons are left alone": {
			cluster: lost,
			addons:  []*addonv1alpha1.ManagedClusterAddOn{builder.AddOn("c2", "hello").Condition(addonAvailable(metav1.ConditionTrue, "LeaseUpdated", "")).Obj()},
			want:    map[string][]metav1.Condition{"c2/hello": {addonAvailable(metav1.ConditionTrue, "LeaseUpdated", "")}},
		},
		"a cluster with no reason of its own gives the addons ClusterUnknown": {
			cluster:     builder.Cluster("c1").Condition(clusterAvailable(metav1.ConditionUnknown, "", "")).Obj(),
			addons:      []*addonv1alpha1.ManagedClusterAddOn{builder.AddOn("c1", "hello").Obj()},
			want:        map[string][]metav1.Condition{"c1/hello": {addonAvailable(metav1.ConditionUnknown, ReasonClusterUnknown, "")}},
			wantPatches: 1,
		},
		"a False cluster's addons are left to their agents": {
			cluster: builder.Cluster("c1").Condition(clusterAvailable(metav1.ConditionFalse, "Down", "")).Obj(),
			addons:  []*addonv1alpha1.ManagedClusterAddOn{builder.AddOn("c1", "hello").Condition(addonAvailable(metav1.ConditionTrue, "LeaseUpdated", "")).Obj()},
			want:    map[string][]metav1.Condition{"c1/hello": {addonAvailable(metav1.ConditionTrue, "LeaseUpdated", "")}},
		},
		"a cluster with no Available condition is left alone": {
			cluster: builder.Cluster("c1").Obj(),
			addons:  []*addonv1alpha1.ManagedClusterAddOn{builder.AddOn("c1", "hello").Obj()},
			want:    map[string][]metav1.Condition{"c1/hello": nil},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			objs := []client.Object{tc.cluster}
			for _, a := range tc.addons {
				objs = append(objs, a)
			}
			patches := 0
			c := fakeClient(t, func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
				patches++
				return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
			}, objs...)
			r := &Reconciler{Client: c}
			if _, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(tc.cluster)}); err != nil {
				t.Fatalf("Reconcile: %v", err)
			}
			if patches != tc.wantPatches {
				t.Errorf("patches = %d, want %d", patches, tc.wantPatches)
			}
			got := map[string][]metav1.Condition{}
			for _, a := range tc.addons {
				mca := &addonv1alpha1.ManagedClusterAddOn{}
				if err := c.Get(context.Background(), client.ObjectKeyFromObject(a), mca); err != nil {
					t.Fatal(err)
				}
				got[a.Namespace+"/"+a.Name] = mca.Status.Conditions
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.IgnoreFields(metav1.Condition{}, "LastTransitionTime")); diff != "" {
				t.Errorf("addon conditions (-want +got):\n%s", diff)
			}
		})
	}
}

func fakeClient(t *testing.T, patch func(context.Context, client.Client, string, client.Object, client.Patch, ...client.SubResourcePatchOption) error, objs ...client.Object) client.Client {
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
		WithInterceptorFuncs(interceptor.Funcs{SubResourcePatch: patch}).Build()
}

func TestBecameUnknown(t *testing.T) {
	cluster := func(conds ...metav1.Condition) *clusterv1.ManagedCluster {
		return builder.Cluster("c1").Condition(conds...).Obj()
	}
	up := clusterAvailable(metav1.ConditionTrue, "ManagedClusterAvailable", "")
	lost := clusterAvailable(metav1.ConditionUnknown, leaseStopped, stoppedMsg)
	renewedUp := up
	renewedUp.LastTransitionTime = metav1.NewTime(time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC))
	cases := map[string]struct {
		oldMC, newMC *clusterv1.ManagedCluster
		want         bool
	}{
		"True to Unknown":                    {oldMC: cluster(up), newMC: cluster(lost), want: true},
		"no condition to Unknown":            {oldMC: cluster(), newMC: cluster(lost), want: true},
		"Unknown with another reason":        {oldMC: cluster(clusterAvailable(metav1.ConditionUnknown, "Other", "")), newMC: cluster(lost), want: true},
		"Unknown, another condition changed": {oldMC: cluster(lost), newMC: cluster(lost, metav1.Condition{Type: "Other", Status: metav1.ConditionTrue})},
		"a heartbeat":                        {oldMC: cluster(up), newMC: cluster(renewedUp)},
		"back from Unknown":                  {oldMC: cluster(lost), newMC: cluster(up)},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := (becameUnknown{}).Update(event.UpdateEvent{ObjectOld: tc.oldMC, ObjectNew: tc.newMC}); got != tc.want {
				t.Errorf("Update = %t, want %t", got, tc.want)
			}
		})
	}
	if !(becameUnknown{}).Create(event.CreateEvent{Object: cluster(lost)}) || (becameUnknown{}).Create(event.CreateEvent{Object: cluster(up)}) {
		t.Error("Create should pass an Unknown cluster only")
	}
}

func TestAvailabilityChanged(t *testing.T) {
	addon := func(status metav1.ConditionStatus) *addonv1alpha1.ManagedClusterAddOn {
		mca := builder.AddOn("c1", "work").Obj()
		if status != "" {
			mca.Status.Conditions = []metav1.Condition{{Type: addonv1alpha1.ManagedClusterAddOnConditionAvailable, Status: status, Reason: "R"}}
		}
		return mca
	}
	cases := map[string]struct {
		oldStatus, newStatus metav1.ConditionStatus
		want                 bool
	}{
		"Unknown written Available again":  {oldStatus: metav1.ConditionUnknown, newStatus: metav1.ConditionTrue, want: true},
		"first reported False":             {oldStatus: "", newStatus: metav1.ConditionFalse, want: true},
		"marked Unknown (this controller)": {oldStatus: metav1.ConditionTrue, newStatus: metav1.ConditionUnknown},
		"no change of Available":           {oldStatus: metav1.ConditionTrue, newStatus: metav1.ConditionTrue},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			e := event.UpdateEvent{ObjectOld: addon(tc.oldStatus), ObjectNew: addon(tc.newStatus)}
			if got := (availabilityChanged{}).Update(e); got != tc.want {
				t.Errorf("Update = %t, want %t", got, tc.want)
			}
		})
	}
}

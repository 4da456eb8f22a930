package taint

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/event"

	"github.com/corral-dev/corral/internal/fieldpatch"
	"github.com/corral-dev/corral/internal/testing/builder"
)

func TestDesired(t *testing.T) {
	now := metav1.NewTime(time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC))
	earlier := metav1.NewTime(now.Add(-time.Hour))
	available := func(s metav1.ConditionStatus) []metav1.Condition {
		return []metav1.Condition{{Type: clusterv1.ManagedClusterConditionAvailable, Status: s}}
	}
	unreachable := func(at metav1.Time) clusterv1.Taint {
		return clusterv1.Taint{Key: clusterv1.ManagedClusterTaintUnreachable, Effect: clusterv1.TaintEffectNoSelect, TimeAdded: at}
	}
	unavailable := func(at metav1.Time) clusterv1.Taint {
		return clusterv1.Taint{Key: clusterv1.ManagedClusterTaintUnavailable, Effect: clusterv1.TaintEffectNoSelect, TimeAdded: at}
	}
	user := clusterv1.Taint{Key: "team/maintenance", Effect: clusterv1.TaintEffectPreferNoSelect, TimeAdded: earlier}

	cases := map[string]struct {
		current    []clusterv1.Taint
		conditions []metav1.Condition
		want       []clusterv1.Taint
	}{
		"no Available condition: unreachable":   {want: []clusterv1.Taint{unreachable(now)}},
		"Available Unknown: unreachable":        {conditions: available(metav1.ConditionUnknown), want: []clusterv1.Taint{unreachable(now)}},
		"Available False: unavailable":          {conditions: available(metav1.ConditionFalse), want: []clusterv1.Taint{unavailable(now)}},
		"Available True: no availability taint": {conditions: available(metav1.ConditionTrue)},
		"recovery removes the taint, keeps the user's": {
			current:    []clusterv1.Taint{user, unreachable(earlier)},
			conditions: available(metav1.ConditionTrue),
			want:       []clusterv1.Taint{user},
		},
		"a taint that stays keeps its timeAdded": {
			current:    []clusterv1.Taint{unreachable(earlier)},
			conditions: available(metav1.ConditionUnknown),
			want:       []clusterv1.Taint{unreachable(earlier)},
		},
		"unreachable turning unavailable swaps the taint": {
			current:    []clusterv1.Taint{unreachable(earlier), user},
			conditions: available(metav1.ConditionFalse),
			want:       []clusterv1.Taint{user, unavailable(now)},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := Desired(tc.current, tc.conditions, now)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Desired() (-want +got):\n%s", diff)
			}
		})
	}
}

func fakeClient(t *testing.T, patch func(context.Context, client.WithWatch, client.Object, client.Patch, ...client.PatchOption) error, objs ...client.Object) client.Client {
	t.Helper()
	s := runtime.NewScheme()
	if err := clusterv1.Install(s); err != nil {
		t.Fatal(err)
	}
	return fake.NewClientBuilder().WithScheme(s).WithObjects(objs...).
		WithStatusSubresource(&clusterv1.ManagedCluster{}).
		WithInterceptorFuncs(interceptor.Funcs{Patch: patch}).Build()
}

// refuseJSONPatches answers every JSON patch as the API server does when
// its test fails.
func refuseJSONPatches(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	if patch.Type() == types.JSONPatchType {
		return apierrors.NewGenericServerResponse(http.StatusUnprocessableEntity, "", schema.GroupResource{}, "", "test failed", 0, false)
	}
	return c.Patch(ctx, obj, patch, opts...)
}

func TestPatchTaints(t *testing.T) {
	now := metav1.NewTime(time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC))
	unreachable := clusterv1.Taint{Key: clusterv1.ManagedClusterTaintUnreachable, Effect: clusterv1.TaintEffectNoSelect, TimeAdded: now}
	user := clusterv1.Taint{Key: "team/maintenance", Effect: clusterv1.TaintEffectPreferNoSelect, TimeAdded: now}
	cases := map[string]struct {
		patch func(context.Context, client.WithWatch, client.Object, client.Patch, ...client.PatchOption) error
		// changed is a taint someone adds after the controller read the cluster
		changed    *clusterv1.Taint
		wantTaints []clusterv1.Taint
	}{
		"the taints are set when they are as read": {
			patch:      fieldpatch.AsAPIServer,
			wantTaints: []clusterv1.Taint{unreachable},
		},
		"taints changed since they were read are kept, and decided again on the live cluster": {
			patch:      fieldpatch.AsAPIServer,
			changed:    &user,
			wantTaints: []clusterv1.Taint{user, unreachable},
		},
		"taints the test cannot match (stored in another form) are decided again on the live cluster": {
			patch:      refuseJSONPatches,
			wantTaints: []clusterv1.Taint{unreachable},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			c := fakeClient(t, tc.patch, &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: "c1"}})
			read := &clusterv1.ManagedCluster{}
			if err := c.Get(ctx, client.ObjectKey{Name: "c1"}, read); err != nil {
				t.Fatal(err)
			}
			if tc.changed != nil {
				other := read.DeepCopy()
				other.Spec.Taints = []clusterv1.Taint{*tc.changed}
				if err := c.Update(ctx, other); err != nil {
					t.Fatal(err)
				}
			}
			r := &Reconciler{Client: c, Clock: clocktesting.NewFakePassiveClock(now.Time)}

			err := r.patchTaints(ctx, read, []clusterv1.Taint{unreachable})
			if err != nil {
				t.Errorf("patchTaints() = %v", err)
			}
			got := &clusterv1.ManagedCluster{}
			if err := c.Get(ctx, client.ObjectKey{Name: "c1"}, got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.wantTaints, got.Spec.Taints); diff != "" {
				t.Errorf("taints (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAvailabilityOrTaintsChanged(t *testing.T) {
	mc := func(mutate func(*clusterv1.ManagedCluster)) *clusterv1.ManagedCluster {
		c := builder.Cluster("").Condition(metav1.Condition{Type: clusterv1.ManagedClusterConditionAvailable, Status: metav1.ConditionTrue}).Obj()
		if mutate != nil {
			mutate(c)
		}
		return c
	}
	cases := map[string]struct {
		new  *clusterv1.ManagedCluster
		want bool
	}{
		"availability changed": {new: mc(func(c *clusterv1.ManagedCluster) { c.Status.Conditions[0].Status = metav1.ConditionUnknown }), want: true},
		"availability removed": {new: mc(func(c *clusterv1.ManagedCluster) { c.Status.Conditions = nil }), want: true},
		"a taint added":        {new: mc(func(c *clusterv1.ManagedCluster) { c.Spec.Taints = []clusterv1.Taint{{Key: "k"}} }), want: true},
		"deletion started":     {new: mc(func(c *clusterv1.ManagedCluster) { c.DeletionTimestamp = &metav1.Time{Time: time.Now()} }), want: true},
		"a finalizer added":    {new: mc(func(c *clusterv1.ManagedCluster) { c.Finalizers = []string{"x/y"} })},
		"the cleanup finalizer added": {
			new: mc(func(c *clusterv1.ManagedCluster) { c.Finalizers = []string{clusterv1.ManagedClusterFinalizer} }), want: true,
		},
		"acceptance changed": {new: mc(func(c *clusterv1.ManagedCluster) { c.Spec.HubAcceptsClient = true })},
		"another condition set": {new: mc(func(c *clusterv1.ManagedCluster) {
			c.Status.Conditions = append(c.Status.Conditions, metav1.Condition{Type: "Joined"})
		})},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := (availabilityOrTaintsChanged{}).Update(event.UpdateEvent{ObjectOld: mc(nil), ObjectNew: tc.new}); got != tc.want {
				t.Errorf("Update() = %t, want %t", got, tc.want)
			}
		})
	}
}

func TestReconcile(t *testing.T) {
	finalized := func(mc *clusterv1.ManagedCluster) { mc.Finalizers = []string{clusterv1.ManagedClusterFinalizer} }
	cases := map[string]struct {
		mutate     func(*clusterv1.ManagedCluster)
		wantTaints []string
	}{
		"a cluster not taken in yet is left to the acceptance controller's first write": {},
		"a cluster taken in without availability is unreachable": {
			mutate: finalized, wantTaints: []string{clusterv1.ManagedClusterTaintUnreachable},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			mc := &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: "c1"}}
			if tc.mutate != nil {
				tc.mutate(mc)
			}
			c := fakeClient(t, fieldpatch.AsAPIServer, mc)
			r := &Reconciler{Client: c, Clock: clocktesting.NewFakePassiveClock(time.Now())}

			if _, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(mc)}); err != nil {
				t.Fatalf("Reconcile() = %v", err)
			}
			got := &clusterv1.ManagedCluster{}
			if err := c.Get(ctx, client.ObjectKeyFromObject(mc), got); err != nil {
				t.Fatal(err)
			}
			var keys []string
			for _, taint := range got.Spec.Taints {
				keys = append(keys, taint.Key)
			}
			if diff := cmp.Diff(tc.wantTaints, keys); diff != "" {
				t.Errorf("taints (-want +got):\n%s", diff)
			}
		})
	}
}

package clocksync

import (
	"context"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/workqueue"
	clocktesting "k8s.io/utils/clock/testing"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/corral-dev/corral/internal/testing/builder"
	"github.com/corral-dev/corral/registration/common"
)

var now = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)

// synced is a ClockSynced condition of status s.
func synced(s metav1.ConditionStatus) []metav1.Condition {
	return []metav1.Condition{{Type: clusterv1.ManagedClusterConditionClockSynced, Status: s, Reason: "Earlier"}}
}

// setup is a reconciler on a fake client holding cluster c1 (a 60 s lease,
// so a 300 s grace) with conditions, and its lease renewed at now+skew.
func setup(conditions []metav1.Condition, skew time.Duration) (*Reconciler, client.Client, *events.FakeRecorder) {
	s := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(s)
	_ = clusterv1.Install(s)
	mc := builder.Cluster("c1").Generation(2).Accepted().LeaseDurationSeconds(60).Condition(conditions...).Obj()
	l := builder.Lease("c1", common.LeaseName).RenewedAt(now.Add(skew)).Obj()
	c := fake.NewClientBuilder().WithScheme(s).WithObjects(mc, l).WithStatusSubresource(mc).Build()
	rec := events.NewFakeRecorder(10)
	return &Reconciler{Client: c, Recorder: rec, Clock: clocktesting.NewFakePassiveClock(now), GraceMultiplier: 5}, c, rec
}

func TestReconcile(t *testing.T) {
	cases := map[string]struct {
		conditions []metav1.Condition
		skew       time.Duration
		want       metav1.ConditionStatus
		wantReason string
		wantEvent  bool
	}{
		"renewed just now, first look: synced, quietly": {skew: -time.Second, want: metav1.ConditionTrue, wantReason: ReasonSynced},
		"renewal stamped ahead by more than the grace":  {skew: 301 * time.Second, want: metav1.ConditionFalse, wantReason: ReasonOutOfSync, wantEvent: true},
		"renewal stamped behind by more than the grace": {skew: -301 * time.Second, want: metav1.ConditionFalse, wantReason: ReasonOutOfSync, wantEvent: true},
		"ahead within the grace: synced":                {skew: 299 * time.Second, want: metav1.ConditionTrue, wantReason: ReasonSynced},
		"back in sync: says so":                         {conditions: synced(metav1.ConditionFalse), want: metav1.ConditionTrue, wantReason: ReasonSynced, wantEvent: true},
		"already out of sync: nothing written":          {conditions: synced(metav1.ConditionFalse), skew: time.Hour, want: metav1.ConditionFalse, wantReason: "Earlier"},
		"already synced: nothing written":               {conditions: synced(metav1.ConditionTrue), want: metav1.ConditionTrue, wantReason: "Earlier"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			r, c, rec := setup(tc.conditions, tc.skew)
			if _, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKey{Name: "c1"}}); err != nil {
				t.Fatalf("Reconcile() = %v", err)
			}
			got := &clusterv1.ManagedCluster{}
			if err := c.Get(ctx, client.ObjectKey{Name: "c1"}, got); err != nil {
				t.Fatal(err)
			}
			cond := meta.FindStatusCondition(got.Status.Conditions, clusterv1.ManagedClusterConditionClockSynced)
			if cond == nil || cond.Status != tc.want || cond.Reason != tc.wantReason {
				t.Errorf("ClockSynced = %+v, want %s with reason %s", cond, tc.want, tc.wantReason)
			}
			if gotEvent := len(rec.Events) > 0; gotEvent != tc.wantEvent {
				t.Errorf("event recorded: %t, want %t", gotEvent, tc.wantEvent)
			}
		})
	}
}

func TestOnRenewal(t *testing.T) {
	cases := map[string]struct {
		conditions []metav1.Condition
		old, new   *coordinationv1.Lease
		want       bool
	}{
		"a renewal that keeps the condition: nothing to do": {conditions: synced(metav1.ConditionTrue),
			old: builder.Lease("c1", common.LeaseName).RenewedAt(now.Add(-time.Minute)).Obj(),
			new: builder.Lease("c1", common.LeaseName).RenewedAt(now).Obj()},
		"a renewal far ahead of the hub": {conditions: synced(metav1.ConditionTrue),
			old: builder.Lease("c1", common.LeaseName).RenewedAt(now.Add(-time.Minute)).Obj(),
			new: builder.Lease("c1", common.LeaseName).RenewedAt(now.Add(time.Hour)).Obj(), want: true},
		"the first renewal of a cluster with no condition yet": {
			old: builder.Lease("c1", common.LeaseName).RenewedAt(now.Add(-time.Minute)).Obj(),
			new: builder.Lease("c1", common.LeaseName).RenewedAt(now).Obj(), want: true},
		"an update that is no renewal": {
			old: builder.Lease("c1", common.LeaseName).RenewedAt(now).Obj(),
			new: builder.Lease("c1", common.LeaseName).RenewedAt(now).Obj()},
		"another lease in the namespace": {
			old: builder.Lease("c1", "other").RenewedAt(now.Add(-time.Minute)).Obj(),
			new: builder.Lease("c1", "other").RenewedAt(now.Add(time.Hour)).Obj()},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r, _, _ := setup(tc.conditions, 0)
			q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]())
			defer q.ShutDown()
			r.onRenewal(context.Background(), event.UpdateEvent{ObjectOld: tc.old, ObjectNew: tc.new}, q)
			if got := q.Len() == 1; got != tc.want {
				t.Errorf("enqueued: %t, want %t", got, tc.want)
			}
		})
	}
}

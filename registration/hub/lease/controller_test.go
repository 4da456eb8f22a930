package lease

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
	clocktesting "k8s.io/utils/clock/testing"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/event"

	"github.com/corral-dev/corral/internal/testing/builder"
	"github.com/corral-dev/corral/registration/common"
	"github.com/corral-dev/corral/registration/hub/clocksync"
)

var now = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

func TestReconcile(t *testing.T) {
	accepted := metav1.Condition{Type: clusterv1.ManagedClusterConditionHubAccepted, Status: metav1.ConditionTrue, Reason: "HubClusterAdminAccepted"}
	availableTrue := metav1.Condition{Type: clusterv1.ManagedClusterConditionAvailable, Status: metav1.ConditionTrue, Reason: "ManagedClusterAvailable"}
	cases := map[string]struct {
		conditions    []metav1.Condition
		leaseSeconds  int32
		renewedAgo    *time.Duration // nil: no lease
		deleting      bool
		wantUnknown   bool
		wantRequeueIn time.Duration
		wantMade      bool // the lease, by the hub
	}{
		"fresh lease: comes back when it would expire": {
			conditions: []metav1.Condition{accepted, availableTrue}, leaseSeconds: 60, renewedAgo: ago(100 * time.Second),
			wantRequeueIn: 200 * time.Second,
		},
		"stale lease: Available Unknown, looked at again a grace later": {
			conditions: []metav1.Condition{accepted, availableTrue}, leaseSeconds: 60, renewedAgo: ago(301 * time.Second),
			wantUnknown: true, wantRequeueIn: 300 * time.Second,
		},
		"exactly at the grace: stale": {
			conditions: []metav1.Condition{accepted, availableTrue}, leaseSeconds: 60, renewedAgo: ago(300 * time.Second),
			wantUnknown: true, wantRequeueIn: 300 * time.Second,
		},
		"renewed in the future: looked at again a grace later at the latest": {
			conditions: []metav1.Condition{accepted, availableTrue}, leaseSeconds: 60, renewedAgo: ago(-time.Hour),
			wantRequeueIn: 300 * time.Second,
		},
		"no leaseDurationSeconds: 60 s is assumed": {
			conditions: []metav1.Condition{accepted, availableTrue}, renewedAgo: ago(299 * time.Second),
			wantRequeueIn: time.Second,
		},
		"a short lease duration: a short grace": {
			conditions: []metav1.Condition{accepted, availableTrue}, leaseSeconds: 2, renewedAgo: ago(11 * time.Second),
			wantUnknown: true, wantRequeueIn: 10 * time.Second,
		},
		"being deleted, stale lease: Available Unknown, which the deletion waits on": {
			conditions: []metav1.Condition{accepted, availableTrue}, leaseSeconds: 60, renewedAgo: ago(301 * time.Second), deleting: true,
			wantUnknown: true, wantRequeueIn: 300 * time.Second,
		},
		"not accepted: left alone however old the lease": {
			conditions: []metav1.Condition{availableTrue}, leaseSeconds: 60, renewedAgo: ago(time.Hour),
		},
		"no lease: made, renewed now, and looked at a grace later": {
			conditions: []metav1.Condition{accepted, availableTrue}, leaseSeconds: 60, wantRequeueIn: 300 * time.Second, wantMade: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			s := runtime.NewScheme()
			_ = clientgoscheme.AddToScheme(s)
			_ = clusterv1.Install(s)
			b := builder.Cluster("c1").Generation(3).Accepted().LeaseDurationSeconds(tc.leaseSeconds).Condition(tc.conditions...)
			if tc.deleting {
				b.Finalizer(clusterv1.ManagedClusterFinalizer).Deleting(now)
			}
			mc := b.Obj()
			objs := []client.Object{mc}
			if tc.renewedAgo != nil {
				objs = append(objs, builder.Lease("c1", common.LeaseName).RenewedAt(now.Add(-*tc.renewedAgo)).Obj())
			}
			c := fake.NewClientBuilder().WithScheme(s).WithObjects(objs...).WithStatusSubresource(mc).Build()
			r := &Reconciler{Client: c, Reader: c, Clock: clocktesting.NewFakePassiveClock(now), GraceMultiplier: DefaultGraceMultiplier}

			res, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(mc)})
			if err != nil {
				t.Fatalf("Reconcile() = %v", err)
			}
			if res.RequeueAfter != tc.wantRequeueIn {
				t.Errorf("RequeueAfter = %v, want %v", res.RequeueAfter, tc.wantRequeueIn)
			}
			got := &clusterv1.ManagedCluster{}
			if err := c.Get(ctx, client.ObjectKeyFromObject(mc), got); err != nil {
				t.Fatal(err)
			}
			cond := meta.FindStatusCondition(got.Status.Conditions, clusterv1.ManagedClusterConditionAvailable)
			unknown := cond != nil && cond.Status == metav1.ConditionUnknown && cond.Reason == ReasonLeaseUpdateStopped
			if unknown != tc.wantUnknown {
				t.Errorf("Available = %+v, want Unknown: %t", cond, tc.wantUnknown)
			}
			if unknown && cond.ObservedGeneration != got.Generation {
				t.Errorf("Available Unknown observed generation %d, want the cluster's %d", cond.ObservedGeneration, got.Generation)
			}
			if tc.wantMade {
				l := &coordinationv1.Lease{}
				if err := c.Get(ctx, client.ObjectKey{Namespace: "c1", Name: common.LeaseName}, l); err != nil {
					t.Fatalf("no lease made: %v", err)
				}
				if l.Spec.RenewTime == nil || !l.Spec.RenewTime.Time.Equal(now) || l.Labels[clusterv1.ClusterNameLabelKey] != "c1" {
					t.Errorf("lease made = %+v, want renewed now and labelled with its cluster", l)
				}
			}
		})
	}
}

func ago(d time.Duration) *time.Duration { return &d }

// TestRenewalsFoundAreJudgedForTheClock: a look that finds the lease
// renewed since the last has ClockSync judge the renewal by the window
// between the two looks; a look that finds it unchanged judges nothing.
func TestRenewalsFoundAreJudgedForTheClock(t *testing.T) {
	ctx := context.Background()
	s := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(s)
	_ = clusterv1.Install(s)
	mc := builder.Cluster("c1").Accepted().LeaseDurationSeconds(60).
		Condition(metav1.Condition{Type: clusterv1.ManagedClusterConditionHubAccepted, Status: metav1.ConditionTrue, Reason: "Accepted"}).Obj()
	l := builder.Lease("c1", common.LeaseName).RenewedAt(now).Obj()
	c := fake.NewClientBuilder().WithScheme(s).WithObjects(mc, l).WithStatusSubresource(mc).Build()
	clk := clocktesting.NewFakeClock(now)
	r := &Reconciler{Client: c, Reader: c, Clock: clk, ClockSync: &clocksync.Checker{Client: c, Recorder: events.NewFakeRecorder(10), Clock: clk}}
	renew := func(at time.Time) {
		t.Helper()
		got := &coordinationv1.Lease{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(l), got); err != nil {
			t.Fatal(err)
		}
		got.Spec.RenewTime = &metav1.MicroTime{Time: at}
		if err := c.Update(ctx, got); err != nil {
			t.Fatal(err)
		}
	}
	look := func(want metav1.ConditionStatus) ctrl.Result {
		t.Helper()
		res, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(mc)})
		if err != nil {
			t.Fatal(err)
		}
		got := &clusterv1.ManagedCluster{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(mc), got); err != nil {
			t.Fatal(err)
		}
		var status metav1.ConditionStatus
		if cond := meta.FindStatusCondition(got.Status.Conditions, clusterv1.ManagedClusterConditionClockSynced); cond != nil {
			status = cond.Status
		}
		if status != want {
			t.Errorf("at +%s: ClockSynced %q, want %q", clk.Now().Sub(now), status, want)
		}
		return res
	}
	look("") // the first look: when the renewal arrived is unknown
	clk.Step(30 * time.Second)
	renew(clk.Now())
	look(metav1.ConditionTrue)
	clk.Step(30 * time.Second)
	renew(clk.Now().Add(time.Hour)) // an agent an hour ahead
	look(metav1.ConditionFalse)
	clk.Step(30 * time.Second)
	look(metav1.ConditionFalse) // no renewal since: nothing judged
	renew(clk.Now())
	clk.Step(30 * time.Second)
	look(metav1.ConditionTrue)

	clk.Step(30 * time.Second)
	renew(clk.Now().Add(-400 * time.Second)) // an agent behind by more than the grace
	if res := look(metav1.ConditionFalse); res.RequeueAfter != time.Minute {
		t.Errorf("a renewed yet stale lease is looked at again after %s, want a lease period", res.RequeueAfter)
	}
}

func TestLeaseTermsChanged(t *testing.T) {
	mc := func(mutate func(*clusterv1.ManagedCluster)) *clusterv1.ManagedCluster {
		c := builder.Cluster("").LeaseDurationSeconds(60).
			Condition(metav1.Condition{Type: clusterv1.ManagedClusterConditionHubAccepted, Status: metav1.ConditionTrue}).Obj()
		if mutate != nil {
			mutate(c)
		}
		return c
	}
	setAvailable := func(s metav1.ConditionStatus) func(*clusterv1.ManagedCluster) {
		return func(c *clusterv1.ManagedCluster) {
			meta.SetStatusCondition(&c.Status.Conditions, metav1.Condition{Type: clusterv1.ManagedClusterConditionAvailable, Status: s})
		}
	}
	cases := map[string]struct {
		new  *clusterv1.ManagedCluster
		want bool
	}{
		"acceptance withdrawn": {new: mc(func(c *clusterv1.ManagedCluster) {
			c.Status.Conditions[0].Status = metav1.ConditionFalse
		}), want: true},
		"lease duration changed": {new: mc(func(c *clusterv1.ManagedCluster) { c.Spec.LeaseDurationSeconds = 10 }), want: true},
		"availability reported":  {new: mc(setAvailable(metav1.ConditionTrue)), want: true},
		"deletion started":       {new: mc(func(c *clusterv1.ManagedCluster) { c.DeletionTimestamp = &metav1.Time{Time: now} }), want: true},
		"a finalizer added":      {new: mc(func(c *clusterv1.ManagedCluster) { c.Finalizers = []string{"x/y"} })},
		"a taint added":          {new: mc(func(c *clusterv1.ManagedCluster) { c.Spec.Taints = []clusterv1.Taint{{Key: "k"}} })},
		"another condition joined": {new: mc(func(c *clusterv1.ManagedCluster) {
			meta.SetStatusCondition(&c.Status.Conditions, metav1.Condition{Type: "Joined", Status: metav1.ConditionTrue})
		})},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := (leaseTermsChanged{}).Update(event.UpdateEvent{ObjectOld: mc(nil), ObjectNew: tc.new}); got != tc.want {
				t.Errorf("Update() = %t, want %t", got, tc.want)
			}
		})
	}
}

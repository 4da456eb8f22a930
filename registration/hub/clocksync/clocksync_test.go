package clocksync

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/events"
	clocktesting "k8s.io/utils/clock/testing"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/corral-dev/corral/internal/testing/builder"
	"github.com/corral-dev/corral/registration/common"
)

var now = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)

const grace = 300 * time.Second

func TestStatus(t *testing.T) {
	lastLook := now.Add(-time.Minute)
	cases := map[string]struct {
		renewed, since time.Time
		want           metav1.ConditionStatus
	}{
		"stamped within the grace of the whole window":    {renewed: now.Add(-10 * time.Second), since: lastLook, want: metav1.ConditionTrue},
		"stamped ahead of now by more than the grace":     {renewed: now.Add(301 * time.Second), since: lastLook, want: metav1.ConditionFalse},
		"stamped behind the last look by more":            {renewed: lastLook.Add(-301 * time.Second), since: lastLook, want: metav1.ConditionFalse},
		"behind now by more, not the last look: untold":   {renewed: now.Add(-301 * time.Second), since: lastLook},
		"ahead of the last look by more, not now: untold": {renewed: lastLook.Add(301 * time.Second), since: lastLook},
		"no earlier look, stamped ahead: out of sync":     {renewed: now.Add(time.Hour), want: metav1.ConditionFalse},
		"no earlier look, stamped now: untold":            {renewed: now},
		"no earlier look, stamped long ago: untold":       {renewed: now.Add(-time.Hour)},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := Status(tc.renewed, tc.since, now, grace); got != tc.want {
				t.Errorf("Status() = %q, want %q", got, tc.want)
			}
		})
	}
}

// synced is a ClockSynced condition of status s.
func synced(s metav1.ConditionStatus) []metav1.Condition {
	return []metav1.Condition{{Type: clusterv1.ManagedClusterConditionClockSynced, Status: s, Reason: "Earlier"}}
}

func TestCheck(t *testing.T) {
	since := now.Add(-time.Minute)
	cases := map[string]struct {
		conditions []metav1.Condition
		skew       time.Duration // of the renewal from now
		want       metav1.ConditionStatus
		wantReason string
		wantEvent  bool
	}{
		"renewed just now, no condition yet: synced, quietly": {skew: -time.Second, want: metav1.ConditionTrue, wantReason: ReasonSynced},
		"renewal stamped ahead by more than the grace":        {skew: 301 * time.Second, want: metav1.ConditionFalse, wantReason: ReasonOutOfSync, wantEvent: true},
		"renewal stamped behind by more than the grace":       {skew: -time.Minute - 301*time.Second, want: metav1.ConditionFalse, wantReason: ReasonOutOfSync, wantEvent: true},
		"back in sync: says so":                               {conditions: synced(metav1.ConditionFalse), want: metav1.ConditionTrue, wantReason: ReasonSynced, wantEvent: true},
		"already out of sync: nothing written":                {conditions: synced(metav1.ConditionFalse), skew: time.Hour, want: metav1.ConditionFalse, wantReason: "Earlier"},
		"already synced: nothing written":                     {conditions: synced(metav1.ConditionTrue), want: metav1.ConditionTrue, wantReason: "Earlier"},
		"untold: nothing written":                             {conditions: synced(metav1.ConditionTrue), skew: -301 * time.Second, want: metav1.ConditionTrue, wantReason: "Earlier"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			s := runtime.NewScheme()
			_ = clientgoscheme.AddToScheme(s)
			_ = clusterv1.Install(s)
			mc := builder.Cluster("c1").Generation(2).Accepted().LeaseDurationSeconds(60).Condition(tc.conditions...).Obj()
			c := fake.NewClientBuilder().WithScheme(s).WithObjects(mc).WithStatusSubresource(mc).Build()
			rec := events.NewFakeRecorder(10)
			checker := &Checker{Client: c, Recorder: rec, Clock: clocktesting.NewFakePassiveClock(now)}
			lease := builder.Lease("c1", common.LeaseName).RenewedAt(now.Add(tc.skew)).Obj()
			if err := checker.Check(ctx, mc, lease, grace, since); err != nil {
				t.Fatalf("Check() = %v", err)
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
			if tc.want != "" && cond.Reason != "Earlier" && cond.ObservedGeneration != 2 {
				t.Errorf("observed generation %d, want the cluster's 2", cond.ObservedGeneration)
			}
		})
	}
}

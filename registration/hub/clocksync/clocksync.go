package clocksync

import (
	"context"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The condition's reasons, as OCM names them.
const (
	ReasonSynced     = "ManagedClusterClockSynced"
	ReasonOutOfSync  = "ManagedClusterClockOutOfSync"
	messageSynced    = "The managed cluster's clock agrees with the hub's."
	messageOutOfSync = "The agent's lease renewals are stamped further from the hub's clock than the lease's grace: " +
		"the hub may judge the cluster's availability wrongly. Synchronise the managed cluster's clock."
)

// Checker sets ManagedClusterConditionClockSynced.
type Checker struct {
	Client   client.Client
	Recorder events.EventRecorder
	Clock    clock.PassiveClock
}

// Status is what a renewal says of the agent's clock, given that it
// arrived between since and now: False when its time is further than
// grace from every moment between (ahead of now, or behind since, by
// more), True when it is within grace of every one, "" when the window
// is too wide to tell. With no earlier look (since zero) only a renewal
// stamped ahead tells.
func Status(renewed, since, now time.Time, grace time.Duration) metav1.ConditionStatus {
	switch {
	case renewed.After(now.Add(grace)) || !since.IsZero() && renewed.Before(since.Add(-grace)):
		return metav1.ConditionFalse
	case !since.IsZero() && !renewed.Before(now.Add(-grace)) && !renewed.After(since.Add(grace)):
		return metav1.ConditionTrue
	}
	return ""
}

// Check writes the condition a renewal of lease, which arrived since
// then, gives the cluster, when its status changes, with an event when
// the clock goes out of sync or comes back.
func (c *Checker) Check(ctx context.Context, cluster *clusterv1.ManagedCluster, lease *coordinationv1.Lease, grace time.Duration, since time.Time) error {
	if lease.Spec.RenewTime == nil || !cluster.DeletionTimestamp.IsZero() {
		return nil
	}
	status := Status(lease.Spec.RenewTime.Time, since, c.Clock.Now(), grace)
	old := meta.FindStatusCondition(cluster.Status.Conditions, clusterv1.ManagedClusterConditionClockSynced)
	if status == "" || old != nil && old.Status == status {
		return nil
	}
	cond := metav1.Condition{Type: clusterv1.ManagedClusterConditionClockSynced, Status: status,
		Reason: ReasonSynced, Message: messageSynced, ObservedGeneration: cluster.Generation}
	eventType := corev1.EventTypeNormal
	if status != metav1.ConditionTrue {
		cond.Reason, cond.Message, eventType = ReasonOutOfSync, messageOutOfSync, corev1.EventTypeWarning
	}
	original := cluster.DeepCopy()
	meta.SetStatusCondition(&cluster.Status.Conditions, cond)
	if err := c.Client.Status().Patch(ctx, cluster, client.MergeFromWithOptions(original, client.MergeFromWithOptimisticLock{})); err != nil {
		return err
	}
	ctrl.LoggerFrom(ctx).V(1).Info("Clock synced condition changed", "cluster", cluster.Name, "status", status)
	if status == metav1.ConditionFalse || old != nil {
		c.Recorder.Eventf(cluster, nil, eventType, cond.Reason, "ClockSync", cond.Message)
	}
	return nil
}

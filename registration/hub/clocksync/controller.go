package clocksync

import (
	"context"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/corral-dev/corral/internal/steps"
	"github.com/corral-dev/corral/registration/common"
	"github.com/corral-dev/corral/registration/hub/lease"
)

// The condition's reasons, as OCM names them.
const (
	ReasonSynced     = "ManagedClusterClockSynced"
	ReasonOutOfSync  = "ManagedClusterClockOutOfSync"
	messageSynced    = "The managed cluster's clock agrees with the hub's."
	messageOutOfSync = "The agent's lease renewals are stamped further from the hub's clock than the lease's grace: " +
		"the hub may judge the cluster's availability wrongly. Synchronise the managed cluster's clock."
)

// Reconciler sets ManagedClusterConditionClockSynced.
type Reconciler struct {
	Client   client.Client
	Recorder events.EventRecorder
	Clock    clock.PassiveClock
	// GraceMultiplier times leaseDurationSeconds is how far a renewal's
	// time may be from the hub's; 0 means lease.DefaultGraceMultiplier.
	GraceMultiplier int
}

// SetupWithManager registers the controller, with workers reconciles at once.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager, workers int) error {
	if r.Clock == nil {
		r.Clock = clock.RealClock{}
	}
	return ctrl.NewControllerManagedBy(mgr).
		Named("managedcluster-clocksync").
		Watches(&coordinationv1.Lease{}, handler.TypedFuncs[client.Object, reconcile.Request]{UpdateFunc: r.onRenewal}).
		WithOptions(controller.Options{MaxConcurrentReconciles: workers}).
		Complete(r)
}

// onRenewal enqueues the cluster of a renewed managed-cluster-lease when
// the renewal would change its condition: a healthy fleet's heartbeats
// cost a cache read each, and no reconcile.
func (r *Reconciler) onRenewal(ctx context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	oldLease, ok1 := e.ObjectOld.(*coordinationv1.Lease)
	newLease, ok2 := e.ObjectNew.(*coordinationv1.Lease)
	if !ok1 || !ok2 || newLease.Name != common.LeaseName || newLease.Spec.RenewTime == nil ||
		(oldLease.Spec.RenewTime != nil && oldLease.Spec.RenewTime.Equal(newLease.Spec.RenewTime)) {
		return
	}
	// Read only, so the cache's own copy: a deep copy of the cluster per
	// renewal was a tenth of what a renewal cost the hub.
	cluster := &clusterv1.ManagedCluster{}
	if err := r.Client.Get(ctx, types.NamespacedName{Name: newLease.Namespace}, cluster, client.UnsafeDisableDeepCopy); err != nil {
		return // no such cluster: not a cluster namespace's lease
	}
	if !meta.IsStatusConditionPresentAndEqual(cluster.Status.Conditions, clusterv1.ManagedClusterConditionClockSynced, r.status(cluster, newLease)) {
		q.Add(reconcile.Request{NamespacedName: types.NamespacedName{Name: cluster.Name}})
	}
}

// status is the condition's status the lease's last renewal gives.
func (r *Reconciler) status(cluster *clusterv1.ManagedCluster, l *coordinationv1.Lease) metav1.ConditionStatus {
	grace := lease.Grace(cluster, r.GraceMultiplier)
	skew := r.Clock.Since(l.Spec.RenewTime.Time)
	if skew < grace && -skew < grace {
		return metav1.ConditionTrue
	}
	return metav1.ConditionFalse
}

// Reconcile writes the condition the cluster's lease gives, if it differs.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	cluster := &clusterv1.ManagedCluster{}
	if err := r.Client.Get(ctx, req.NamespacedName, cluster); err != nil || !cluster.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	l := &coordinationv1.Lease{}
	if err := r.Client.Get(ctx, types.NamespacedName{Namespace: cluster.Name, Name: common.LeaseName}, l); err != nil || l.Spec.RenewTime == nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	return steps.AfterWrite(ctx, r.setCondition(ctx, cluster, r.status(cluster, l)))
}

// setCondition writes the condition with status, unless it has it, with
// an event when the clock goes out of sync or comes back.
func (r *Reconciler) setCondition(ctx context.Context, cluster *clusterv1.ManagedCluster, status metav1.ConditionStatus) error {
	old := meta.FindStatusCondition(cluster.Status.Conditions, clusterv1.ManagedClusterConditionClockSynced)
	if old != nil && old.Status == status {
		return nil
	}
	c := metav1.Condition{Type: clusterv1.ManagedClusterConditionClockSynced, Status: status,
		Reason: ReasonSynced, Message: messageSynced, ObservedGeneration: cluster.Generation}
	eventType := corev1.EventTypeNormal
	if status != metav1.ConditionTrue {
		c.Reason, c.Message, eventType = ReasonOutOfSync, messageOutOfSync, corev1.EventTypeWarning
	}
	original := cluster.DeepCopy()
	meta.SetStatusCondition(&cluster.Status.Conditions, c)
	if err := r.Client.Status().Patch(ctx, cluster, client.MergeFromWithOptions(original, client.MergeFromWithOptimisticLock{})); err != nil {
		return err
	}
	ctrl.LoggerFrom(ctx).V(1).Info("Clock synced condition changed", "cluster", cluster.Name, "status", status)
	if status == metav1.ConditionFalse || old != nil {
		r.Recorder.Eventf(cluster, nil, eventType, c.Reason, "ClockSync", c.Message)
	}
	return nil
}

package lease

import (
	"context"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/corral-dev/corral/registration/common"

	"github.com/corral-dev/corral/internal/steps"
)

// DefaultGraceMultiplier is OCM's: a lease may go unrenewed for five of
// its periods.
const DefaultGraceMultiplier = 5

// ReasonLeaseUpdateStopped is the Available=Unknown reason OCM uses.
const ReasonLeaseUpdateStopped = "ManagedClusterLeaseUpdateStopped"

// Reconciler marks clusters whose lease went stale.
type Reconciler struct {
	Client client.Client
	Clock  clock.PassiveClock
	// GraceMultiplier times leaseDurationSeconds is how stale a lease may
	// get; 0 means DefaultGraceMultiplier.
	GraceMultiplier int
}

// SetupWithManager registers the controller, with workers reconciles at once.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager, workers int) error {
	if r.Clock == nil {
		r.Clock = clock.RealClock{}
	}
	return ctrl.NewControllerManagedBy(mgr).
		Named("managedcluster-lease").
		For(&clusterv1.ManagedCluster{}, builder.WithPredicates(leaseTermsChanged{})).
		Watches(&coordinationv1.Lease{}, handler.EnqueueRequestsFromMapFunc(clusterOfLease),
			builder.WithPredicates(renewalsIgnored{})).
		WithOptions(controller.Options{MaxConcurrentReconciles: workers}).
		Complete(r)
}

// leaseTermsChanged passes the cluster updates that change when its lease
// expires or whether that matters: acceptance, leaseDurationSeconds,
// availability (a cluster back from Unknown is looked at again) and the
// start of a deletion. A finalizer, a taint or the agent's other
// conditions do not make it look again.
type leaseTermsChanged struct{ predicate.Funcs }

func (leaseTermsChanged) Update(e event.UpdateEvent) bool {
	oldMC, ok1 := e.ObjectOld.(*clusterv1.ManagedCluster)
	newMC, ok2 := e.ObjectNew.(*clusterv1.ManagedCluster)
	if !ok1 || !ok2 {
		return false
	}
	return oldMC.Spec.LeaseDurationSeconds != newMC.Spec.LeaseDurationSeconds ||
		oldMC.DeletionTimestamp.IsZero() != newMC.DeletionTimestamp.IsZero() ||
		common.ConditionStatus(oldMC, clusterv1.ManagedClusterConditionHubAccepted) != common.ConditionStatus(newMC, clusterv1.ManagedClusterConditionHubAccepted) ||
		common.ConditionStatus(oldMC, clusterv1.ManagedClusterConditionAvailable) != common.ConditionStatus(newMC, clusterv1.ManagedClusterConditionAvailable)
}

// renewalsIgnored passes a lease's creation and deletion, not its updates:
// a renewal only moves the expiry later, and the reconcile already
// scheduled for the old expiry finds the lease fresh and schedules the
// next. A thousand agents renewing every minute then cost the hub a
// reconcile per cluster per grace period, not one per renewal.
type renewalsIgnored struct{ predicate.Funcs }

func (renewalsIgnored) Update(event.UpdateEvent) bool { return false }

func clusterOfLease(_ context.Context, obj client.Object) []reconcile.Request {
	if obj.GetName() != common.LeaseName {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Name: obj.GetNamespace()}}}
}

// Reconcile sets Available=Unknown on an accepted cluster whose lease is
// stale, and otherwise comes back when it would be. A cluster being deleted
// is judged too: its deletion waits for its agent to finalize its works
// only while the agent heartbeats.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	cluster := &clusterv1.ManagedCluster{}
	if err := r.Client.Get(ctx, req.NamespacedName, cluster); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !meta.IsStatusConditionTrue(cluster.Status.Conditions, clusterv1.ManagedClusterConditionHubAccepted) {
		return ctrl.Result{}, nil
	}
	lease := &coordinationv1.Lease{}
	err := r.Client.Get(ctx, types.NamespacedName{Namespace: cluster.Name, Name: common.LeaseName}, lease)
	if apierrors.IsNotFound(err) {
		return ctrl.Result{}, nil // the acceptance controller creates it
	}
	if err != nil {
		return ctrl.Result{}, err
	}
	left := r.timeLeft(cluster, lease)
	if left > 0 {
		return ctrl.Result{RequeueAfter: left}, nil
	}
	return steps.AfterWrite(ctx, r.markUnknown(ctx, cluster))
}

// Grace is how long the cluster's lease may go unrenewed: its period
// times multiplier, DefaultGraceMultiplier when 0.
func Grace(cluster *clusterv1.ManagedCluster, multiplier int) time.Duration {
	if multiplier == 0 {
		multiplier = DefaultGraceMultiplier
	}
	return common.LeasePeriod(cluster.Spec.LeaseDurationSeconds) * time.Duration(multiplier)
}

// timeLeft is how long the lease stays fresh; zero or less means stale.
func (r *Reconciler) timeLeft(cluster *clusterv1.ManagedCluster, lease *coordinationv1.Lease) time.Duration {
	grace := Grace(cluster, r.GraceMultiplier)
	renewed := lease.CreationTimestamp.Time
	if lease.Spec.RenewTime != nil {
		renewed = lease.Spec.RenewTime.Time
	}
	return renewed.Add(grace).Sub(r.Clock.Now())
}

// markUnknown writes Available=Unknown unless it is already so.
func (r *Reconciler) markUnknown(ctx context.Context, cluster *clusterv1.ManagedCluster) error {
	original := cluster.DeepCopy()
	changed := meta.SetStatusCondition(&cluster.Status.Conditions, metav1.Condition{
		Type:               clusterv1.ManagedClusterConditionAvailable,
		Status:             metav1.ConditionUnknown,
		Reason:             ReasonLeaseUpdateStopped,
		Message:            "Registration agent stopped updating its lease.",
		ObservedGeneration: cluster.Generation,
	})
	if !changed {
		return nil
	}
	ctrl.LoggerFrom(ctx).V(1).Info("Lease is stale; availability unknown", "cluster", cluster.Name)
	return r.Client.Status().Patch(ctx, cluster, client.MergeFromWithOptions(original, client.MergeFromWithOptimisticLock{}))
}

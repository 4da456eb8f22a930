package lease

import (
	"context"
	"fmt"
	"sync"
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
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/corral-dev/corral/registration/common"
	"github.com/corral-dev/corral/registration/hub/clocksync"

	"github.com/corral-dev/corral/internal/steps"
)

// DefaultGraceMultiplier is OCM's: a lease may go unrenewed for five of
// its periods.
const DefaultGraceMultiplier = 5

// ReasonLeaseUpdateStopped is the Available=Unknown reason OCM uses.
const ReasonLeaseUpdateStopped = "ManagedClusterLeaseUpdateStopped"

// Reconciler keeps and judges each accepted cluster's lease.
type Reconciler struct {
	// Client reads ManagedClusters from the cache and writes.
	Client client.Client
	// Reader reads leases from the API server: the hub keeps no cache of
	// them (see the package doc); the manager's API reader when nil.
	Reader client.Reader
	Clock  clock.PassiveClock
	// GraceMultiplier times leaseDurationSeconds is how stale a lease may
	// get; 0 means DefaultGraceMultiplier.
	GraceMultiplier int
	// ClockSync judges the renewals each look finds; nil for none.
	ClockSync *clocksync.Checker

	looks sync.Map // cluster name → look: the last one
}

// look is what the controller last saw of a cluster's lease, and when.
type look struct {
	resourceVersion string
	at              time.Time
}

// SetupWithManager registers the controller, with workers reconciles at once.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager, workers int) error {
	if r.Clock == nil {
		r.Clock = clock.RealClock{}
	}
	if r.Reader == nil {
		r.Reader = mgr.GetAPIReader()
	}
	if r.ClockSync != nil && r.ClockSync.Clock == nil {
		r.ClockSync.Clock = r.Clock
	}
	return ctrl.NewControllerManagedBy(mgr).
		Named("managedcluster-lease").
		For(&clusterv1.ManagedCluster{}, builder.WithPredicates(leaseTermsChanged{})).
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

// Reconcile looks at an accepted cluster's lease: makes it when it is
// missing, marks the cluster Available=Unknown when it is stale, has
// ClockSync judge a renewal it finds, and comes back when the lease would
// go stale, or a grace period later at the latest.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	cluster := &clusterv1.ManagedCluster{}
	if err := r.Client.Get(ctx, req.NamespacedName, cluster); err != nil {
		if apierrors.IsNotFound(err) {
			r.looks.Delete(req.Name)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !meta.IsStatusConditionTrue(cluster.Status.Conditions, clusterv1.ManagedClusterConditionHubAccepted) {
		return ctrl.Result{}, nil
	}
	grace := Grace(cluster, r.GraceMultiplier)
	lease, err := r.read(ctx, cluster.Name, resourceVersionAny)
	if apierrors.IsNotFound(err) {
		return ctrl.Result{RequeueAfter: grace}, r.create(ctx, cluster.Name)
	}
	if err != nil {
		return ctrl.Result{}, err
	}
	left := r.timeLeft(cluster, lease)
	if left <= 0 {
		// The API server's watch cache may lag: read the lease itself
		// before judging the cluster gone.
		if lease, err = r.read(ctx, cluster.Name, ""); err != nil {
			return ctrl.Result{}, client.IgnoreNotFound(err)
		}
		left = r.timeLeft(cluster, lease)
	}
	renewed := r.see(cluster.Name, lease)
	next := grace
	if left > 0 {
		next = min(left, grace)
	}
	if renewed != nil && r.ClockSync != nil {
		if err := r.ClockSync.Check(ctx, cluster, lease, grace, *renewed); err != nil {
			// A conflict with the agent's or the acceptance's write is
			// a quiet retry, not a reconcile error.
			return steps.AfterWrite(ctx, err)
		}
		if left <= 0 {
			// Renewed, yet stale: a clock behind the hub's, told apart
			// from a gone agent by looking again a lease period later.
			next = common.LeasePeriod(cluster.Spec.LeaseDurationSeconds)
		}
	}
	if left > 0 {
		return ctrl.Result{RequeueAfter: next}, nil
	}
	res, err := steps.AfterWrite(ctx, r.markUnknown(ctx, cluster))
	if err == nil && res.RequeueAfter == 0 {
		res.RequeueAfter = next
	}
	return res, err
}

// resourceVersionAny reads from the API server's watch cache.
const resourceVersionAny = "0"

func (r *Reconciler) read(ctx context.Context, cluster, resourceVersion string) (*coordinationv1.Lease, error) {
	lease := &coordinationv1.Lease{}
	err := r.Reader.Get(ctx, types.NamespacedName{Namespace: cluster, Name: common.LeaseName}, lease,
		&client.GetOptions{Raw: &metav1.GetOptions{ResourceVersion: resourceVersion}})
	return lease, err
}

// create makes the cluster's lease, renewed now: the agent may only
// update it.
func (r *Reconciler) create(ctx context.Context, cluster string) error {
	if err := r.Client.Create(ctx, New(cluster, r.Clock.Now())); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating lease %s/%s: %w", cluster, common.LeaseName, err)
	}
	ctrl.LoggerFrom(ctx).V(1).Info("Made the cluster's lease", "cluster", cluster)
	return nil
}

// see records this look at the lease. When it was renewed since the
// last look, it returns the time of that look (the renewal arrived
// between then and now; the zero time when there was none before).
func (r *Reconciler) see(cluster string, lease *coordinationv1.Lease) *time.Time {
	now := look{resourceVersion: lease.ResourceVersion, at: r.Clock.Now()}
	last, seen := r.looks.Swap(cluster, now)
	if seen && last.(look).resourceVersion == lease.ResourceVersion {
		return nil
	}
	var since time.Time
	if seen {
		since = last.(look).at
	}
	return &since
}

// New is an accepted cluster's lease as the hub makes it, renewed at
// now.
func New(cluster string, now time.Time) *coordinationv1.Lease {
	renewed, holder := metav1.NewMicroTime(now), common.LeaseName
	return &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: common.LeaseName, Namespace: cluster, Labels: map[string]string{clusterv1.ClusterNameLabelKey: cluster}},
		Spec:       coordinationv1.LeaseSpec{HolderIdentity: &holder, RenewTime: &renewed},
	}
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

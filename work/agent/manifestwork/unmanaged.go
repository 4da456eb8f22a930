package manifestwork

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	workv1 "open-cluster-management.io/api/work/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/corral-dev/corral/internal/steps"
	"github.com/corral-dev/corral/work/agent/appliedwork"
)

// EvictionGracePeriodBound turns eviction off: with a grace period this
// long or longer no AppliedManifestWork is evicted, and the eviction of
// those that had started is called off (OCM's agent has the same bound).
const EvictionGracePeriodBound = 100 * 365 * 24 * time.Hour

// unmanaged evicts the AppliedManifestWorks this agent made for another
// hub: the agent joined another hub, or the hub's address changed, so the
// hub hash their names start with is no longer this hub's. As the api
// says (AppliedManifestWorkStatus.EvictionStartTime) such a record is
// evicted after the grace period even when this hub has a ManifestWork of
// the same name: that work has its own record, and the old one would
// otherwise count as an owner of what they share forever, so that
// deleting the work would leave it behind. Those of other agents (another
// cluster's agent on the same managed cluster) are theirs.
type unmanaged struct{ r *Reconciler }

func setupUnmanaged(hubMgr ctrl.Manager, managed cluster.Cluster, r *Reconciler) error {
	return ctrl.NewControllerManagedBy(hubMgr).
		Named("workagent-unmanaged-appliedmanifestwork").
		WatchesRawSource(source.Kind(managed.GetCache(), &workv1.AppliedManifestWork{},
			&handler.TypedEnqueueRequestForObject[*workv1.AppliedManifestWork]{},
			predicate.NewTypedPredicateFuncs(r.ofAnotherHub))).
		Complete(unmanaged{r: r})
}

// ofAnotherHub says whether amw is this agent's record of a work of
// another hub.
func (r *Reconciler) ofAnotherHub(amw *workv1.AppliedManifestWork) bool {
	_, thisHub := appliedwork.WorkName(r.opts.HubHash, amw.Name)
	return !thisHub && amw.Spec.AgentID == r.opts.AgentID
}

// Reconcile evicts one AppliedManifestWork of another hub.
func (u unmanaged) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	amw := &workv1.AppliedManifestWork{}
	err := u.r.managed.Get(ctx, req.NamespacedName, amw)
	if apierrors.IsNotFound(err) {
		return ctrl.Result{}, nil
	}
	if err != nil {
		return ctrl.Result{}, fmt.Errorf("reading AppliedManifestWork %s: %w", req.Name, err)
	}
	if !u.r.ofAnotherHub(amw) {
		return ctrl.Result{}, nil
	}
	return u.r.evict(ctx, amw, "AppliedManifestWork of another hub")
}

// evict releases what amw records (deleting what no other work applies)
// and then amw, once the eviction grace period has passed since its
// status.evictionStartTime, which it sets when amw has none; at once when
// amw is being deleted already (a cluster admin asking for what it
// applied to go). why says why amw is evicted.
func (r *Reconciler) evict(ctx context.Context, amw *workv1.AppliedManifestWork, why string) (ctrl.Result, error) {
	log := ctrl.LoggerFrom(ctx).WithValues("appliedManifestWork", amw.Name, "reason", why)
	if amw.DeletionTimestamp == nil {
		grace := r.opts.EvictionGracePeriod
		if grace >= EvictionGracePeriodBound {
			if amw.Status.EvictionStartTime == nil {
				return ctrl.Result{}, nil
			}
			log.V(1).Info("Eviction is turned off; calling off the eviction")
			return steps.AfterWrite(ctx, r.setEvictionStart(ctx, amw, nil))
		}
		now := r.opts.Clock.Now()
		if amw.Status.EvictionStartTime == nil {
			if err := r.setEvictionStart(ctx, amw, &metav1.Time{Time: now}); err != nil {
				return steps.AfterWrite(ctx, err)
			}
			log.V(1).Info("Evicting what the AppliedManifestWork applied after the grace period", "gracePeriod", grace)
			return ctrl.Result{RequeueAfter: grace}, nil
		}
		if left := amw.Status.EvictionStartTime.Add(grace).Sub(now); left > 0 {
			return ctrl.Result{RequeueAfter: left}, nil
		}
	}
	log.V(1).Info("Evicting the AppliedManifestWork")
	return steps.Run(ctx, &scope{}, steps.Step[*scope]{Name: "evict", Run: func(ctx context.Context, _ *scope) (steps.Result, error) {
		return r.releaseAll(ctx, amw.Name, nil, nil)
	}})
}

// setEvictionStart sets (or, nil, clears) amw's eviction start time.
func (r *Reconciler) setEvictionStart(ctx context.Context, amw *workv1.AppliedManifestWork, start *metav1.Time) error {
	amw.Status.EvictionStartTime = start
	if err := r.managed.Status().Update(ctx, amw); err != nil {
		return fmt.Errorf("setting the eviction start time of %s: %w", amw.Name, err)
	}
	return nil
}

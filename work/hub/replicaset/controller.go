package replicaset

import (
	"context"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	workv1 "open-cluster-management.io/api/work/v1"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/corral-dev/corral/internal/rollout"
	"github.com/corral-dev/corral/internal/steps"
)

// PlacementRefIndex is the cache index of ManifestWorkReplicaSets by the
// placements they name, as <namespace>/<placement>.
const PlacementRefIndex = "spec.placementRefs.name"

// TemplateHashAnnotation on a ManifestWork is the hash of the set's
// template it was made from: a work whose hash differs from the set's is
// out of date and waits for the rollout to reach its cluster.
const TemplateHashAnnotation = "work.corral.dev/template-hash"

// TemplateTimeAnnotation on a ManifestWork is when the set gave it the
// template of its TemplateHashAnnotation (RFC 3339, on the controller's
// clock): the rollout on its cluster started then.
const TemplateTimeAnnotation = "work.corral.dev/template-time"

// Reconciler keeps every ManifestWorkReplicaSet's ManifestWorks and status.
type Reconciler struct {
	Client client.Client
	// Live reads the API server itself (the manager's API reader unless
	// set): before a deleted set lets go, it lists its works there, so
	// that a work created moments ago, not yet in the cache, is deleted
	// with the others rather than left behind.
	Live client.Reader
	// Clock is the time rollouts are measured by; nil is the real clock.
	Clock clock.WithDelayedExecution

	recheck *rollout.Rechecker
}

// scope is what one reconcile works on.
type scope struct {
	set      *workv1alpha1.ManifestWorkReplicaSet
	original *workv1alpha1.ManifestWorkReplicaSet
	// works are the set's ManifestWorks in every cluster namespace.
	works []workv1.ManifestWork
	// hash is the hash of the set's template.
	hash string
	// now is the injected clock's time the rollout is decided at.
	now time.Time
	// placements is what the rollout found for each placement ref, in
	// spec order.
	placements []placementResult
	// rolloutErr is what went wrong writing works, for the status.
	rolloutErr error
}

// SetupWithManager registers PlacementRefIndex and the controller, with
// workers reconciles at once.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager, workers int) error {
	if r.Clock == nil {
		r.Clock = clock.RealClock{}
	}
	if r.Live == nil {
		r.Live = mgr.GetAPIReader()
	}
	r.recheck = rollout.NewRechecker(r.Clock)
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &workv1alpha1.ManifestWorkReplicaSet{}, PlacementRefIndex, indexByPlacement); err != nil {
		return fmt.Errorf("indexing ManifestWorkReplicaSets by placement: %w", err)
	}
	b := ctrl.NewControllerManagedBy(mgr).
		Named("manifestworkreplicaset").
		For(&workv1alpha1.ManifestWorkReplicaSet{}).
		Watches(&workv1.ManifestWork{}, handler.EnqueueRequestsFromMapFunc(setOfWork),
			builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool {
				return o.GetLabels()[workv1alpha1.ManifestWorkReplicaSetControllerNameLabelKey] != ""
			}))).
		WatchesRawSource(r.recheck.Source()).
		WithOptions(controller.Options{MaxConcurrentReconciles: workers})
	return rollout.WatchPlacements(b, r.setsNaming).Complete(r)
}

// indexByPlacement is the PlacementRefIndex function.
func indexByPlacement(obj client.Object) []string {
	set, ok := obj.(*workv1alpha1.ManifestWorkReplicaSet)
	if !ok {
		return nil
	}
	keys := make([]string, 0, len(set.Spec.PlacementRefs))
	for _, ref := range set.Spec.PlacementRefs {
		keys = append(keys, set.Namespace+"/"+ref.Name)
	}
	return keys
}

// SetKey is the value of the manifestworkreplicaset label on the set's
// works: <namespace>.<name>.
func SetKey(set *workv1alpha1.ManifestWorkReplicaSet) string {
	return set.Namespace + "." + set.Name
}

// setOfWork maps a work to the set its label names. A namespace has no
// dots, so the first one ends it.
func setOfWork(_ context.Context, obj client.Object) []reconcile.Request {
	ns, name, ok := strings.Cut(obj.GetLabels()[workv1alpha1.ManifestWorkReplicaSetControllerNameLabelKey], ".")
	if !ok || ns == "" || name == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: ns, Name: name}}}
}

// setsNaming lists the sets that name the placement.
func (r *Reconciler) setsNaming(ctx context.Context, namespace, placement string) []reconcile.Request {
	list := &workv1alpha1.ManifestWorkReplicaSetList{}
	if err := r.Client.List(ctx, list, client.InNamespace(namespace), client.MatchingFields{PlacementRefIndex: namespace + "/" + placement}); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "Listing the ManifestWorkReplicaSets of a placement", "placement", namespace+"/"+placement)
		return nil
	}
	reqs := make([]reconcile.Request, 0, len(list.Items))
	for _, s := range list.Items {
		reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: s.Namespace, Name: s.Name}})
	}
	return reqs
}

// Reconcile runs the steps for one set: deletion, or finalizer, works,
// rollout and status.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	set := &workv1alpha1.ManifestWorkReplicaSet{}
	if err := r.Client.Get(ctx, req.NamespacedName, set); err != nil {
		if apierrors.IsNotFound(err) {
			r.recheck.Forget(req.NamespacedName)
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, err
	}
	s := &scope{set: set, original: set.DeepCopy()}
	if !set.DeletionTimestamp.IsZero() {
		return steps.Run(ctx, s,
			steps.Step[*scope]{Name: "list works", Run: r.listWorks},
			steps.Step[*scope]{Name: "finalize", Run: r.finalize},
		)
	}
	return steps.Run(ctx, s,
		steps.Step[*scope]{Name: "add finalizer", Run: r.addFinalizer},
		steps.Step[*scope]{Name: "list works", Run: r.listWorks},
		steps.Step[*scope]{Name: "remove works of dropped placements", Run: r.removeDroppedPlacements},
		steps.Step[*scope]{Name: "roll out", Run: r.rollOut},
		steps.Step[*scope]{Name: "update status", Run: r.updateStatus},
	)
}

package ttl

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
	workv1 "open-cluster-management.io/api/work/v1"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/corral-dev/corral/internal/steps"
)

// Reconciler deletes ManifestWorks whose ttlSecondsAfterFinished has
// passed since they completed.
type Reconciler struct {
	Client client.Client
	// Clock; the real one when nil.
	Clock clock.PassiveClock
}

// SetupWithManager registers the controller.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Clock == nil {
		r.Clock = clock.RealClock{}
	}
	return ctrl.NewControllerManagedBy(mgr).
		Named("manifestwork-ttl").
		For(&workv1.ManifestWork{}, builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool {
			w, ok := o.(*workv1.ManifestWork)
			return ok && ttlOf(w) != nil
		}))).
		Complete(r)
}

// ttlOf is the work's TTL after it finished, nil when it has none this
// controller acts on.
func ttlOf(w *workv1.ManifestWork) *int64 {
	if w.Spec.DeleteOption == nil || w.DeletionTimestamp != nil {
		return nil
	}
	if _, ok := w.Labels[workv1alpha1.ManifestWorkReplicaSetControllerNameLabelKey]; ok {
		return nil
	}
	return w.Spec.DeleteOption.TTLSecondsAfterFinished
}

// expiry says whether w is due for deletion at now and, when it is not,
// how long until it is (0: not while it stays as it is).
func expiry(w *workv1.ManifestWork, now time.Time) (due bool, wait time.Duration) {
	ttl := ttlOf(w)
	complete := meta.FindStatusCondition(w.Status.Conditions, workv1.WorkComplete)
	if ttl == nil || complete == nil || complete.Status != metav1.ConditionTrue {
		return false, 0
	}
	left := complete.LastTransitionTime.Add(time.Duration(*ttl) * time.Second).Sub(now)
	if left <= 0 {
		return true, 0
	}
	return false, left
}

// Reconcile deletes the work when it is due, or looks again when it will be.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (ctrl.Result, error) {
	w := &workv1.ManifestWork{}
	if err := r.Client.Get(ctx, req.NamespacedName, w); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	due, wait := expiry(w, r.Clock.Now())
	if !due {
		return ctrl.Result{RequeueAfter: wait}, nil
	}
	ctrl.LoggerFrom(ctx).V(1).Info("Deleting a completed ManifestWork: its ttlSecondsAfterFinished has passed",
		"ttlSecondsAfterFinished", *ttlOf(w))
	// Only the work as read: one changed since (its TTL taken out, say)
	// or made anew under the name is decided again.
	err := r.Client.Delete(ctx, w, client.Preconditions{UID: &w.UID, ResourceVersion: &w.ResourceVersion})
	return steps.AfterWrite(ctx, client.IgnoreNotFound(err))
}

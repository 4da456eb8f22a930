package distribute

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/klog/v2"
	workv1 "open-cluster-management.io/api/work/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/corral-dev/corral/internal/steps"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

// addFinalizer puts the propagation's finalizer on first: its works are
// deleted (or orphaned) with it. It stops the list; the update brings the
// propagation back.
func (r *Reconciler) addFinalizer(ctx context.Context, s *scope) (steps.Result, error) {
	if controllerutil.ContainsFinalizer(s.p.obj, v1alpha1.Finalizer) {
		return steps.Continue, nil
	}
	patch := client.MergeFromWithOptions(s.original, client.MergeFromWithOptimisticLock{})
	controllerutil.AddFinalizer(s.p.obj, v1alpha1.Finalizer)
	if err := r.Client.Patch(ctx, s.p.obj, patch); err != nil {
		return steps.StopList, fmt.Errorf("adding finalizer %s: %w", v1alpha1.Finalizer, err)
	}
	ctrl.LoggerFrom(ctx).V(1).Info("Added the finalizer that cleans the propagation's ManifestWorks up with it")
	return steps.StopList, nil
}

// listWorks finds the propagation's works, in every cluster namespace, by
// its labels, in the cache.
func (r *Reconciler) listWorks(ctx context.Context, s *scope) (steps.Result, error) {
	works, err := s.p.works(ctx, r.Client)
	if err != nil {
		return steps.StopList, err
	}
	s.works = works
	return steps.Continue, nil
}

// finalize deletes (or orphans) the propagation's works, then removes the
// finalizer. It goes by the cache, and asks the API server (Live) only
// before letting the propagation go, so that a work created moments ago is
// not left behind.
func (r *Reconciler) finalize(ctx context.Context, s *scope) (steps.Result, error) {
	if !controllerutil.ContainsFinalizer(s.p.obj, v1alpha1.Finalizer) {
		return steps.StopList, nil
	}
	if err := r.deleteWorks(ctx, s.p, s.works); err != nil {
		return steps.StopList, err
	}
	live, err := s.p.works(ctx, r.Live)
	if err != nil {
		return steps.StopList, err
	}
	if err := r.deleteWorks(ctx, s.p, live); err != nil {
		return steps.StopList, err
	}
	patch := client.MergeFromWithOptions(s.original, client.MergeFromWithOptimisticLock{})
	controllerutil.RemoveFinalizer(s.p.obj, v1alpha1.Finalizer)
	if err := r.Client.Patch(ctx, s.p.obj, patch); client.IgnoreNotFound(err) != nil {
		return steps.StopList, fmt.Errorf("removing finalizer %s: %w", v1alpha1.Finalizer, err)
	}
	ctrl.LoggerFrom(ctx).V(1).Info("Cleaned the propagation's ManifestWorks up and removed its finalizer",
		"works", len(live), "deletionPolicy", s.p.policy.DeletionPolicy)
	return steps.StopList, nil
}

// deleteWorks deletes each of works as the propagation's deletionPolicy
// says.
func (r *Reconciler) deleteWorks(ctx context.Context, p propagation, works []workv1.ManifestWork) error {
	var errs []error
	for i := range works {
		if err := r.deleteWork(ctx, p, &works[i]); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// deleteWork deletes a work unless it is going already; with Orphan, it
// first gives the work deleteOption Orphan if it lacks it, so that the
// work agent leaves its objects on the cluster.
func (r *Reconciler) deleteWork(ctx context.Context, p propagation, w *workv1.ManifestWork) error {
	if !w.DeletionTimestamp.IsZero() {
		return nil
	}
	if want := deleteOption(p.policy.DeletionPolicy); want != nil && !equality.Semantic.DeepEqual(w.Spec.DeleteOption, want) {
		w = w.DeepCopy()
		w.Spec.DeleteOption = want
		if err := r.Client.Update(ctx, w); err != nil {
			if apierrors.IsNotFound(err) {
				return nil
			}
			return fmt.Errorf("orphaning ManifestWork %s/%s: %w", w.Namespace, w.Name, err)
		}
	}
	if err := r.Client.Delete(ctx, w, client.Preconditions{UID: &w.UID}); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("deleting ManifestWork %s/%s: %w", w.Namespace, w.Name, err)
	}
	ctrl.LoggerFrom(ctx).V(4).Info("Deleted a ManifestWork", "work", klog.KObj(w))
	return nil
}

// deleteOption is the delete option of works under policy: Orphan, or
// none (the work agent's default, Foreground deletion of the objects).
func deleteOption(policy v1alpha1.DeletionPolicy) *workv1.DeleteOption {
	if policy == v1alpha1.DeletionPolicyOrphan {
		return &workv1.DeleteOption{PropagationPolicy: workv1.DeletePropagationPolicyTypeOrphan}
	}
	return nil
}

package replicaset

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/klog/v2"
	workv1 "open-cluster-management.io/api/work/v1"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/corral-dev/corral/internal/steps"
)

// addFinalizer puts the set's finalizer on first: its works are deleted
// with it. It stops the list; the update brings the set back.
func (r *Reconciler) addFinalizer(ctx context.Context, s *scope) (steps.Result, error) {
	if controllerutil.ContainsFinalizer(s.set, workv1alpha1.ManifestWorkReplicaSetFinalizer) {
		return steps.Continue, nil
	}
	patch := client.MergeFromWithOptions(s.original, client.MergeFromWithOptimisticLock{})
	controllerutil.AddFinalizer(s.set, workv1alpha1.ManifestWorkReplicaSetFinalizer)
	if err := r.Client.Patch(ctx, s.set, patch); err != nil {
		return steps.StopList, fmt.Errorf("adding finalizer %s: %w", workv1alpha1.ManifestWorkReplicaSetFinalizer, err)
	}
	ctrl.LoggerFrom(ctx).V(1).Info("Added the finalizer that deletes the set's ManifestWorks with it")
	return steps.StopList, nil
}

// listWorks finds the set's works, in every cluster namespace, by its
// label, in the cache.
func (r *Reconciler) listWorks(ctx context.Context, s *scope) (steps.Result, error) {
	works, err := r.works(ctx, r.Client, s.set)
	if err != nil {
		return steps.StopList, err
	}
	s.works = works
	return steps.Continue, nil
}

// works lists a set's works through reader.
func (r *Reconciler) works(ctx context.Context, reader client.Reader, set *workv1alpha1.ManifestWorkReplicaSet) ([]workv1.ManifestWork, error) {
	list := &workv1.ManifestWorkList{}
	if err := reader.List(ctx, list, client.MatchingLabels{workv1alpha1.ManifestWorkReplicaSetControllerNameLabelKey: SetKey(set)}); err != nil {
		return nil, fmt.Errorf("listing the set's ManifestWorks: %w", err)
	}
	return list.Items, nil
}

// finalize deletes the set's works, then removes the finalizer: at once
// (Background, the default) or once the works are gone (Foreground).
// While works remain it goes by the cache; only before letting the set go
// does it ask the API server (Live), so that a work created moments ago,
// not yet in the cache, is deleted with the others rather than left
// behind, at the cost of one List per deleted set rather than one per
// reconcile.
func (r *Reconciler) finalize(ctx context.Context, s *scope) (steps.Result, error) {
	if !controllerutil.ContainsFinalizer(s.set, workv1alpha1.ManifestWorkReplicaSetFinalizer) {
		return steps.StopList, nil
	}
	if waiting, err := r.deleteWorks(ctx, s.set, s.works); waiting || err != nil {
		return steps.StopList, err
	}
	live, err := r.works(ctx, r.Live, s.set)
	if err != nil {
		return steps.StopList, err
	}
	if waiting, err := r.deleteWorks(ctx, s.set, live); waiting || err != nil {
		return steps.StopList, err
	}
	patch := client.MergeFromWithOptions(s.original, client.MergeFromWithOptimisticLock{})
	controllerutil.RemoveFinalizer(s.set, workv1alpha1.ManifestWorkReplicaSetFinalizer)
	if err := r.Client.Patch(ctx, s.set, patch); err != nil && !apierrors.IsNotFound(err) {
		return steps.StopList, fmt.Errorf("removing finalizer %s: %w", workv1alpha1.ManifestWorkReplicaSetFinalizer, err)
	}
	r.recheck.Forget(client.ObjectKeyFromObject(s.set))
	ctrl.LoggerFrom(ctx).V(1).Info("Deleted the set's ManifestWorks and removed its finalizer", "works", len(live))
	return steps.StopList, nil
}

// deleteWorks asks every one of works to go, and says whether the set
// must wait for them (Foreground, some remain).
func (r *Reconciler) deleteWorks(ctx context.Context, set *workv1alpha1.ManifestWorkReplicaSet, works []workv1.ManifestWork) (waiting bool, err error) {
	var errs []error
	for i := range works {
		if err := r.deleteWork(ctx, &works[i]); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return false, err
	}
	if set.Spec.CascadeDeletionPolicy == workv1alpha1.Foreground && len(works) > 0 {
		ctrl.LoggerFrom(ctx).V(1).Info("Waiting for the set's ManifestWorks to go (Foreground)", "works", len(works))
		return true, nil // each work's deletion brings the set back
	}
	return false, nil
}

// removeDroppedPlacements deletes the works of placements the set no
// longer names.
func (r *Reconciler) removeDroppedPlacements(ctx context.Context, s *scope) (steps.Result, error) {
	named := map[string]bool{}
	for _, ref := range s.set.Spec.PlacementRefs {
		named[ref.Name] = true
	}
	var errs []error
	kept := s.works[:0]
	for i := range s.works {
		w := &s.works[i]
		if named[w.Labels[workv1alpha1.ManifestWorkReplicaSetPlacementNameLabelKey]] {
			kept = append(kept, *w)
			continue
		}
		ctrl.LoggerFrom(ctx).V(1).Info("Deleting a ManifestWork of a placement the set no longer names", "work", klog.KObj(w),
			"placement", w.Labels[workv1alpha1.ManifestWorkReplicaSetPlacementNameLabelKey])
		if err := r.deleteWork(ctx, w); err != nil {
			errs = append(errs, err)
		}
	}
	s.works = kept
	return steps.Continue, errors.Join(errs...)
}

// deleteWork deletes a work unless it is already going.
func (r *Reconciler) deleteWork(ctx context.Context, w *workv1.ManifestWork) error {
	if !w.DeletionTimestamp.IsZero() {
		return nil
	}
	if err := r.Client.Delete(ctx, w, client.Preconditions{UID: &w.UID}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting ManifestWork %s/%s: %w", w.Namespace, w.Name, err)
	}
	ctrl.LoggerFrom(ctx).V(4).Info("Deleted a ManifestWork", "work", klog.KObj(w))
	return nil
}

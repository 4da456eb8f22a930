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
	"github.com/corral-dev/corral/propagation/hub/workindex"
	"github.com/corral-dev/corral/propagation/hub/worktrim"
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
	r.pace.wrote(client.ObjectKeyFromObject(s.original))
	ctrl.LoggerFrom(ctx).V(1).Info("Added the finalizer that cleans the propagation's ManifestWorks up with it")
	return steps.StopList, nil
}

// listWorks finds the propagation's works, in every cluster namespace, by
// its labels, in the cache.
func (r *Reconciler) listWorks(ctx context.Context, s *scope) (steps.Result, error) {
	works, err := workindex.List(ctx, r.Client, s.p.obj.GetNamespace(), s.p.obj.GetName(), false)
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

// deleteWork deletes a work unless it is going already; it first gives
// the work the delete option it lacks (deleteOption), so that the work
// agent leaves on the cluster what it must.
func (r *Reconciler) deleteWork(ctx context.Context, p propagation, w *workv1.ManifestWork) error {
	if !w.DeletionTimestamp.IsZero() {
		return nil
	}
	if want := p.deleteOption(); want != nil && !equality.Semantic.DeepEqual(w.Spec.DeleteOption, want) {
		// A patch of the delete option alone: the cache's copy of the
		// work may be trimmed of its manifests (worktrim), which an
		// update would write.
		changed := worktrim.Writable(w)
		changed.Spec.DeleteOption = want
		if err := r.Client.Patch(ctx, changed, client.MergeFromWithOptions(worktrim.Writable(w), client.MergeFromWithOptimisticLock{})); err != nil {
			if apierrors.IsNotFound(err) {
				return nil
			}
			return fmt.Errorf("orphaning ManifestWork %s/%s: %w", w.Namespace, w.Name, err)
		}
		w = changed
	}
	if err := r.Client.Delete(ctx, w, client.Preconditions{UID: &w.UID}); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("deleting ManifestWork %s/%s: %w", w.Namespace, w.Name, err)
	}
	ctrl.LoggerFrom(ctx).V(4).Info("Deleted a ManifestWork", "work", klog.KObj(w))
	return nil
}

// deleteOption is the delete option of p's works: Orphan under deletion
// policy Orphan; otherwise the work agent's default, Foreground deletion
// of the objects, except for a Propagation's own namespace. A
// Propagation's revision brings its namespace (the selector), and a work
// agent adopts a namespace the cluster had before it and deletes it with
// the last work holding it, everything in it included; the namespace is
// shared by whatever else runs there, so it is orphaned (SelectivelyOrphan)
// and stays on the cluster, empty of what the propagation delivered.
func (p propagation) deleteOption() *workv1.DeleteOption {
	if p.policy.DeletionPolicy == v1alpha1.DeletionPolicyOrphan {
		return &workv1.DeleteOption{PropagationPolicy: workv1.DeletePropagationPolicyTypeOrphan}
	}
	if ns := p.obj.GetNamespace(); ns != "" {
		return &workv1.DeleteOption{
			PropagationPolicy: workv1.DeletePropagationPolicyTypeSelectivelyOrphan,
			SelectivelyOrphan: &workv1.SelectivelyOrphan{OrphaningRules: []workv1.OrphaningRule{{Resource: "namespaces", Name: ns}}},
		}
	}
	return nil
}

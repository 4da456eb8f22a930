package manifestwork

import (
	"context"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	workv1 "open-cluster-management.io/api/work/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/corral-dev/corral/internal/steps"
	"github.com/corral-dev/corral/work/agent/appliedwork"
	"github.com/corral-dev/corral/work/agent/apply"
)

func (r *Reconciler) reconcileDelete(ctx context.Context, s *scope) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(s.work, workv1.ManifestWorkFinalizer) {
		return ctrl.Result{}, nil
	}
	r.setWaiting(s.work.Name, false)
	r.readers.set(s.work.Name, nil)
	r.statuses.forget(s.work.UID)
	return steps.Run(ctx, s,
		steps.Step[*scope]{Name: "release all", Run: func(ctx context.Context, s *scope) (steps.Result, error) {
			return r.releaseAll(ctx, appliedwork.Name(r.opts.HubHash, s.work.Name), s.work.Spec.DeleteOption, r.executorMayDelete(ctx, s.work))
		}},
		steps.Step[*scope]{Name: "finalizer", Run: r.removeFinalizer},
	)
}

// releaseAll lets go of everything the AppliedManifestWork named name
// records, as opt says, and keeps (orphans) what mayDelete, when given,
// says may not be deleted; then it deletes the AppliedManifestWork. It
// stops the list until that is done.
func (r *Reconciler) releaseAll(ctx context.Context, name string, opt *workv1.DeleteOption, mayDelete func(workv1.AppliedManifestResourceMeta) bool) (steps.Result, error) {
	amw := &workv1.AppliedManifestWork{}
	err := r.managed.Get(ctx, client.ObjectKey{Name: name}, amw)
	if apierrors.IsNotFound(err) {
		// The record of what the work applied may be too new for the
		// cache: letting the work go on the cache's word would leave
		// everything it applied behind. Only the API server may say there
		// is nothing to release.
		err = r.live.Get(ctx, client.ObjectKey{Name: name}, amw)
	}
	if apierrors.IsNotFound(err) {
		return steps.Continue, nil
	}
	if err != nil {
		return steps.StopList, fmt.Errorf("reading AppliedManifestWork %s: %w", name, err)
	}
	var left []workv1.AppliedManifestResourceMeta
	var errs []error
	for _, res := range amw.Status.AppliedResources {
		orphan := appliedwork.Orphaned(opt, res.ResourceIdentifier) || mayDelete != nil && !mayDelete(res)
		gone, err := appliedwork.Release(ctx, r.dynamic, res, amw.UID, orphan)
		if err != nil {
			errs = append(errs, err)
		}
		if !gone {
			left = append(left, res)
			continue
		}
		r.applier.Forget(apply.Key{GVR: appliedwork.GVR(res), Namespace: res.Namespace, Name: res.Name})
	}
	if err := r.recordApplied(ctx, amw, left); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return steps.Result{Stop: true, RequeueAfter: releaseRetry}, fmt.Errorf("%v", errs)
	}
	if len(left) > 0 {
		ctrl.LoggerFrom(ctx).V(1).Info("Waiting for the work's resources to be deleted", "left", len(left))
		return steps.Result{Stop: true, RequeueAfter: releaseRetry}, nil
	}
	if controllerutil.ContainsFinalizer(amw, workv1.AppliedManifestWorkFinalizer) {
		have := slices.Clone(amw.Finalizers)
		controllerutil.RemoveFinalizer(amw, workv1.AppliedManifestWorkFinalizer)
		if err := setFinalizers(ctx, r.managed, amw, have); err != nil && !apierrors.IsNotFound(err) {
			return steps.StopList, fmt.Errorf("removing the finalizer of %s: %w", name, err)
		}
	}
	uid := amw.UID
	if err := r.managed.Delete(ctx, amw, &client.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}}); err != nil && !apierrors.IsNotFound(err) {
		return steps.StopList, fmt.Errorf("deleting AppliedManifestWork %s: %w", name, err)
	}
	r.applied.forget(uid)
	ctrl.LoggerFrom(ctx).V(1).Info("Released everything the work applied", "appliedManifestWork", name)
	return steps.Continue, nil
}

func (r *Reconciler) removeFinalizer(ctx context.Context, s *scope) (steps.Result, error) {
	have := slices.Clone(s.work.Finalizers)
	controllerutil.RemoveFinalizer(s.work, workv1.ManifestWorkFinalizer)
	if err := setFinalizers(ctx, r.hub, s.work, have); err != nil && !apierrors.IsNotFound(err) {
		return steps.StopList, fmt.Errorf("removing the finalizer: %w", err)
	}
	return steps.Continue, nil
}

// reconcileVanished handles an AppliedManifestWork whose ManifestWork is
// not on the hub (and was not deleted through the agent): it is evicted
// (see evict), so that a hub that loses its works (restored from an old
// backup, say) does not empty the managed cluster at once. One another
// agent made (another cluster's agent on the same managed cluster) is left
// to that agent, as OCM's agent does.
func (r *Reconciler) reconcileVanished(ctx context.Context, work string) (ctrl.Result, error) {
	r.setWaiting(work, false)
	r.readers.set(work, nil)
	name := appliedwork.Name(r.opts.HubHash, work)
	amw := &workv1.AppliedManifestWork{}
	err := r.managed.Get(ctx, client.ObjectKey{Name: name}, amw)
	if apierrors.IsNotFound(err) {
		return ctrl.Result{}, nil
	}
	if err != nil {
		return ctrl.Result{}, fmt.Errorf("reading AppliedManifestWork %s: %w", name, err)
	}
	if amw.Spec.AgentID != r.opts.AgentID {
		return ctrl.Result{}, nil
	}
	return r.evict(ctx, amw, "ManifestWork gone from the hub")
}

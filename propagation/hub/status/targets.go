package status

import (
	"context"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/corral-dev/corral/internal/steps"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
	"github.com/corral-dev/corral/propagation/hub/revisionindex"
	workv1 "open-cluster-management.io/api/work/v1"
)

// checkEnabled stops the list for a propagation being deleted, one with
// statusAggregation Disabled, or one delivering no revision yet.
func (r *Reconciler) checkEnabled(ctx context.Context, s *scope) (steps.Result, error) {
	switch {
	case !s.obj.GetDeletionTimestamp().IsZero():
		return steps.StopList, nil
	case s.policy.StatusAggregation == v1alpha1.StatusAggregationDisabled:
		ctrl.LoggerFrom(ctx).V(4).Info("Status aggregation is disabled")
		return steps.StopList, nil
	case s.status.DeliveredRevision == 0:
		return steps.StopList, nil
	}
	return steps.Continue, nil
}

// readTargets finds the delivered revision and the objects of it whose
// status is aggregated: those of a supported kind with a template on the
// hub, not those out of an envelope. A revision not (yet) in the cache,
// or one without such objects, stops the list: the revision's or the
// propagation's next event brings it back.
func (r *Reconciler) readTargets(ctx context.Context, s *scope) (steps.Result, error) {
	objects, found, err := r.revisionObjects(ctx, s)
	if err != nil || !found {
		return steps.StopList, err
	}
	for _, m := range objects {
		if t, ok := targetOf(m); ok && !t.enveloped {
			s.targets = append(s.targets, t)
		}
	}
	if len(s.targets) == 0 {
		return steps.StopList, nil
	}
	return steps.Continue, nil
}

// revisionObjects are the objects of the propagation's delivered
// revision.
func (r *Reconciler) revisionObjects(ctx context.Context, s *scope) ([]workv1.Manifest, bool, error) {
	revs, err := revisionindex.List(ctx, r.Client, s.obj.GetNamespace(), s.obj.GetName())
	if err != nil {
		return nil, false, err
	}
	for _, rev := range revs {
		if rev.Spec.Revision == s.status.DeliveredRevision {
			return rev.Spec.Objects, true, nil
		}
	}
	return nil, false, nil
}

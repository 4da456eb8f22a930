package clusterhealth

import (
	"context"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/corral-dev/corral/health/api"
	"github.com/corral-dev/corral/internal/fieldpatch"
	"github.com/corral-dev/corral/internal/steps"
)

// Taints returns current with api.TaintUnhealthy when unhealthy and
// without it otherwise; other taints, and one that stays, keep their
// place and timeAdded.
func Taints(current []clusterv1.Taint, unhealthy bool, now metav1.Time) []clusterv1.Taint {
	i := slices.IndexFunc(current, func(t clusterv1.Taint) bool { return t.Key == api.TaintUnhealthy })
	switch {
	case unhealthy && i < 0:
		return append(slices.Clone(current), clusterv1.Taint{Key: api.TaintUnhealthy, Effect: clusterv1.TaintEffectNoSelect, TimeAdded: now})
	case !unhealthy && i >= 0:
		return slices.Delete(slices.Clone(current), i, i+1)
	}
	return current
}

// updateTaint puts the taint on while the condition is False and takes it
// off otherwise, guarding the taints it read (fieldpatch) so that other
// writers of the cluster do not make it retry.
func (r *Reconciler) updateTaint(ctx context.Context, s *scope) (steps.Result, error) {
	unhealthy := s.enabled && meta.IsStatusConditionFalse(s.cluster.Status.Conditions, api.ConditionHealthy)
	want := Taints(s.cluster.Spec.Taints, unhealthy, metav1.NewTime(r.Clock.Now()))
	if equality.Semantic.DeepEqual(want, s.cluster.Spec.Taints) {
		return steps.Continue, nil
	}
	ctrl.LoggerFrom(ctx).V(1).Info("Updating the unhealthy taint", "cluster", s.name, "unhealthy", unhealthy)
	patch, err := fieldpatch.Set("/spec/taints", s.cluster.Spec.Taints, want)
	if err != nil {
		return steps.StopList, err
	}
	if err := r.Client.Patch(ctx, s.cluster, patch); fieldpatch.Changed(err) {
		// Someone else changed the taints first: look again.
		return steps.Result{Stop: true, RequeueAfter: conflictRetry}, nil
	} else if err != nil {
		return steps.StopList, fmt.Errorf("writing cluster %s's taints: %w", s.name, err)
	}
	return steps.Continue, nil
}

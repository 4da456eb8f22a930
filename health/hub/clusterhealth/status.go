package clusterhealth

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/health/api"
	"github.com/corral-dev/corral/internal/fieldpatch"
	"github.com/corral-dev/corral/internal/steps"
)

// updateCondition writes the Healthy condition (removes it when the addon
// is disabled), with an Event when its status changes, and asks to look
// again when the report would go stale.
func (r *Reconciler) updateCondition(ctx context.Context, s *scope) (steps.Result, error) {
	original := s.cluster.DeepCopy()
	old := meta.FindStatusCondition(s.cluster.Status.Conditions, api.ConditionHealthy)
	oldStatus := metav1.ConditionStatus("")
	if old != nil {
		oldStatus = old.Status
	}
	var cond metav1.Condition
	if s.enabled {
		cond, s.stale = Evaluate(s.report, s.settings, r.Clock.Now())
		cond.ObservedGeneration = s.cluster.Generation
		if old != nil && old.Status == cond.Status && old.Reason == cond.Reason && old.Message == cond.Message {
			return steps.Result{RequeueAfter: s.stale}, nil
		}
		meta.SetStatusCondition(&s.cluster.Status.Conditions, cond)
	} else if !meta.RemoveStatusCondition(&s.cluster.Status.Conditions, api.ConditionHealthy) {
		return steps.Continue, nil
	}
	ctrl.LoggerFrom(ctx).V(1).Info("Updating the cluster's health", "cluster", s.name, "enabled", s.enabled, "status", cond.Status, "reason", cond.Reason)
	if err := r.Client.Status().Patch(ctx, s.cluster, client.MergeFromWithOptions(original, client.MergeFromWithOptimisticLock{})); err != nil {
		return steps.StopList, fmt.Errorf("writing cluster %s's %s condition: %w", s.name, api.ConditionHealthy, err)
	}
	if s.enabled && cond.Status != oldStatus && cond.Status != metav1.ConditionUnknown && r.Recorder != nil {
		eventType := corev1.EventTypeNormal
		if cond.Status == metav1.ConditionFalse {
			eventType = corev1.EventTypeWarning
		}
		r.Recorder.Eventf(s.cluster, nil, eventType, cond.Reason, "ProbeHealth", "%s", cond.Message)
	}
	return steps.Result{RequeueAfter: s.stale}, nil
}

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

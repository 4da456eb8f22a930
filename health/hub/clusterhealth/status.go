package clusterhealth

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/health/api"
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

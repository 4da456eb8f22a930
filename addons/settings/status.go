package settings

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/steps"
)

// updateStatus sets ConditionConfigValid on the addon.
func (r *Reconciler[T]) updateStatus(ctx context.Context, s *scope[T]) (steps.Result, error) {
	cond := metav1.Condition{
		Type: ConditionConfigValid, Status: metav1.ConditionTrue, Reason: ReasonConfigValid, ObservedGeneration: s.addon.Generation,
		Message: r.Addon.Describe(s.settings),
	}
	if s.reason != "" {
		cond.Status, cond.Reason, cond.Message = metav1.ConditionFalse, s.reason, s.message
	}
	if old := meta.FindStatusCondition(s.addon.Status.Conditions, ConditionConfigValid); old != nil &&
		old.Status == cond.Status && old.Reason == cond.Reason && old.Message == cond.Message && old.ObservedGeneration == cond.ObservedGeneration {
		return steps.Continue, nil
	}
	original := s.addon.DeepCopy()
	meta.SetStatusCondition(&s.addon.Status.Conditions, cond)
	if err := r.Client.Status().Patch(ctx, s.addon, client.MergeFromWithOptions(original, client.MergeFromWithOptimisticLock{})); err != nil {
		return steps.StopList, fmt.Errorf("writing the %s addon's %s condition: %w", r.Addon.Name, ConditionConfigValid, err)
	}
	return steps.Continue, nil
}

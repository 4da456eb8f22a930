package clustersetbinding

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/steps"
)

// Reasons of the Bound condition, as OCM sets them.
const (
	ReasonBound              = "ClusterSetBound"
	ReasonClusterSetNotFound = "ClusterSetNotFound"
)

// boundCondition is the Bound condition of a binding whose set exists, or
// not.
func boundCondition(b *clusterv1beta2.ManagedClusterSetBinding, setExists bool) metav1.Condition {
	set := b.Spec.ClusterSet
	if setExists {
		return metav1.Condition{
			Type: clusterv1beta2.ClusterSetBindingBoundType, Status: metav1.ConditionTrue, Reason: ReasonBound,
			Message:            fmt.Sprintf("Bound to ManagedClusterSet %s", set),
			ObservedGeneration: b.Generation,
		}
	}
	return metav1.Condition{
		Type: clusterv1beta2.ClusterSetBindingBoundType, Status: metav1.ConditionFalse, Reason: ReasonClusterSetNotFound,
		Message:            fmt.Sprintf("ManagedClusterSet %q does not exist: create it, or bind a set that exists", set),
		ObservedGeneration: b.Generation,
	}
}

// updateStatus writes the Bound condition, once, only if it changed, and
// records an event when its status flips.
func (r *Reconciler) updateStatus(ctx context.Context, s *scope) (steps.Result, error) {
	cond := boundCondition(s.binding, s.setExists)
	if !meta.SetStatusCondition(&s.binding.Status.Conditions, cond) {
		return steps.Continue, nil
	}
	if err := r.Client.Status().Patch(ctx, s.binding, client.MergeFromWithOptions(s.original, client.MergeFromWithOptimisticLock{}), client.FieldOwner(FieldOwner)); err != nil {
		return steps.Continue, fmt.Errorf("updating the status of %s/%s: %w", s.binding.Namespace, s.binding.Name, err)
	}
	old := meta.FindStatusCondition(s.original.Status.Conditions, cond.Type)
	if old != nil && old.Status == cond.Status {
		return steps.Continue, nil
	}
	ctrl.LoggerFrom(ctx).V(1).Info("ManagedClusterSetBinding bound changed", "binding", s.binding.Namespace+"/"+s.binding.Name, "bound", cond.Status)
	if r.Recorder != nil {
		eventType := corev1.EventTypeNormal
		if cond.Status != metav1.ConditionTrue {
			eventType = corev1.EventTypeWarning
		}
		r.Recorder.Eventf(s.binding, nil, eventType, cond.Reason, "Bind", "%s", cond.Message)
	}
	return steps.Continue, nil
}

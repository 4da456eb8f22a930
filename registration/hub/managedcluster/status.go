package managedcluster

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	steps "github.com/corral-dev/corral/internal/reconcile"
)

// Reasons of the HubAcceptedManagedCluster condition, as OCM sets them.
const (
	ReasonAccepted = "HubClusterAdminAccepted"
	ReasonDenied   = "HubClusterAdminDenied"
)

// acceptedCondition says what the hub decided: accepted, or denied once a
// decision existed. A cluster that was never accepted has no condition: it
// is still waiting for an admin.
func acceptedCondition(cluster *clusterv1.ManagedCluster) *metav1.Condition {
	if cluster.Spec.HubAcceptsClient {
		return &metav1.Condition{
			Type: clusterv1.ManagedClusterConditionHubAccepted, Status: metav1.ConditionTrue,
			Reason: ReasonAccepted, Message: "Accepted by hub cluster admin",
			ObservedGeneration: cluster.Generation,
		}
	}
	if meta.FindStatusCondition(cluster.Status.Conditions, clusterv1.ManagedClusterConditionHubAccepted) == nil {
		return nil
	}
	return &metav1.Condition{
		Type: clusterv1.ManagedClusterConditionHubAccepted, Status: metav1.ConditionFalse,
		Reason: ReasonDenied, Message: "Denied by hub cluster admin",
		ObservedGeneration: cluster.Generation,
	}
}

// updateStatus writes the condition, once, only if it changed, and records
// an event on a transition.
func (r *Reconciler) updateStatus(ctx context.Context, s *scope) (steps.Result, error) {
	cond := acceptedCondition(s.cluster)
	if cond == nil || !meta.SetStatusCondition(&s.cluster.Status.Conditions, *cond) {
		return steps.Continue, nil
	}
	if err := r.Client.Status().Patch(ctx, s.cluster, client.MergeFromWithOptions(s.original, client.MergeFromWithOptimisticLock{})); err != nil {
		return steps.Continue, err
	}
	old := meta.FindStatusCondition(s.original.Status.Conditions, cond.Type)
	if r.Recorder != nil && (old == nil || old.Status != cond.Status) {
		r.Recorder.Eventf(s.cluster, nil, eventType(cond), cond.Reason, "Acceptance", cond.Message)
	}
	return steps.Continue, nil
}

func eventType(cond *metav1.Condition) string {
	if cond.Status == metav1.ConditionTrue {
		return corev1.EventTypeNormal
	}
	return corev1.EventTypeWarning
}

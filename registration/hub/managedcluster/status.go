package managedcluster

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	steps "github.com/corral-dev/corral/internal/reconcile"
)

// Reasons of the HubAcceptedManagedCluster condition, as OCM sets them.
const (
	ReasonAccepted = "HubClusterAdminAccepted"
	ReasonDenied   = "HubClusterAdminDenied"
)

// AcceptedCondition says what the hub decided: accepted, or denied once a
// decision existed. A cluster that was never accepted has no condition: it
// is still waiting for an admin.
func AcceptedCondition(cluster *clusterv1.ManagedCluster) *metav1.Condition {
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
// an event on a transition. It is a server-side apply of this one
// condition (conditions are a map keyed by type): it cannot lose a race
// with the agent's conditions or with other writers of the cluster, so a
// busy hub does not redo a reconcile for a conflict.
func (r *Reconciler) updateStatus(ctx context.Context, s *scope) (steps.Result, error) {
	cond := AcceptedCondition(s.cluster)
	if cond == nil || !meta.SetStatusCondition(&s.cluster.Status.Conditions, *cond) {
		return steps.Continue, nil
	}
	applied := meta.FindStatusCondition(s.cluster.Status.Conditions, cond.Type)
	if err := r.Client.Status().Apply(ctx, ConditionApply(s.cluster.Name, applied), client.FieldOwner(FieldOwner), client.ForceOwnership); err != nil {
		return steps.Continue, err
	}
	old := meta.FindStatusCondition(s.original.Status.Conditions, cond.Type)
	if r.Recorder != nil && (old == nil || old.Status != cond.Status) {
		r.Recorder.Eventf(s.cluster, nil, eventType(cond), cond.Reason, "Acceptance", cond.Message)
	}
	return steps.Continue, nil
}

// ConditionApply is the apply configuration of one status condition of
// the named cluster.
func ConditionApply(cluster string, cond *metav1.Condition) runtime.ApplyConfiguration {
	u := &unstructured.Unstructured{Object: map[string]any{
		"metadata": map[string]any{"name": cluster},
		"status": map[string]any{"conditions": []any{map[string]any{
			"type": cond.Type, "status": string(cond.Status), "reason": cond.Reason, "message": cond.Message,
			"observedGeneration": cond.ObservedGeneration, "lastTransitionTime": cond.LastTransitionTime.UTC().Format(time.RFC3339),
		}}},
	}}
	u.SetAPIVersion(clusterv1.GroupVersion.String())
	u.SetKind("ManagedCluster")
	return client.ApplyConfigurationFromUnstructured(u)
}

func eventType(cond *metav1.Condition) string {
	if cond.Status == metav1.ConditionTrue {
		return corev1.EventTypeNormal
	}
	return corev1.EventTypeWarning
}

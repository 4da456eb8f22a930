package managedcluster

import (
	"context"
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/fieldpatch"
	"github.com/corral-dev/corral/internal/steps"
)

// Reasons of the HubAcceptedManagedCluster condition, as OCM sets them.
const (
	ReasonAccepted = "HubClusterAdminAccepted"
	ReasonDenied   = "HubClusterAdminDenied"
	// ReasonNotAllowed is corral's: an admin accepted the cluster, but its
	// name would take what is not its own (a reserved name, another's
	// namespace).
	ReasonNotAllowed = "ClusterNameNotAllowed"
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

// updateStatus writes the condition, once, only if it changed, and
// records a warning event when the cluster is denied. An acceptance has no
// event, as in OCM: the condition's lastTransitionTime says when, and a
// thousand clusters accepted at once are a thousand writes fewer.
func (r *Reconciler) updateStatus(ctx context.Context, s *scope) (steps.Result, error) {
	cond := AcceptedCondition(s.cluster)
	if s.refused != "" {
		cond = &metav1.Condition{Type: clusterv1.ManagedClusterConditionHubAccepted, Status: metav1.ConditionFalse,
			Reason: ReasonNotAllowed, Message: s.refused, ObservedGeneration: s.cluster.Generation}
	}
	if cond == nil || !meta.SetStatusCondition(&s.cluster.Status.Conditions, *cond) {
		return steps.Continue, nil
	}
	patch, err := ConditionsPatch(s.original, s.cluster.Status.Conditions)
	if err != nil {
		return steps.Continue, err
	}
	if err := r.Client.Status().Patch(ctx, s.cluster, patch); err != nil {
		return patchResult(ctx, s, err)
	}
	old := meta.FindStatusCondition(s.original.Status.Conditions, cond.Type)
	if r.Recorder != nil && cond.Status == metav1.ConditionFalse && (old == nil || old.Status != cond.Status) {
		r.Recorder.Eventf(s.cluster, nil, corev1.EventTypeWarning, cond.Reason, "Acceptance", cond.Message)
	}
	return steps.Continue, nil
}

// ConditionsPatch sets the status conditions of a cluster read as read to
// want, and fails rather than lose anything another writer (the agent)
// wrote since: the conditions are tested against what was read, or, for
// a cluster with no conditions yet (its status may not exist), the whole
// cluster's resourceVersion is. A JSON patch costs the API server less than
// a server-side apply of the one condition.
func ConditionsPatch(read *clusterv1.ManagedCluster, want []metav1.Condition) (client.Patch, error) {
	if len(read.Status.Conditions) > 0 {
		return fieldpatch.Set("/status/conditions", read.Status.Conditions, want)
	}
	raw, err := json.Marshal(map[string]any{
		"metadata": map[string]any{"resourceVersion": read.ResourceVersion},
		"status":   map[string]any{"conditions": want},
	})
	return client.RawPatch(types.MergePatchType, raw), err
}

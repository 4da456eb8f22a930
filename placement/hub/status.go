package hub

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	ctrl "sigs.k8s.io/controller-runtime"
)

// writeStatus updates the placement's status when the result changes it:
// the number selected, the decision groups and the PlacementSatisfied and
// PlacementMisconfigured conditions. A misconfigured placement keeps its
// decisions and their groups.
func (c *Controller) writeStatus(ctx context.Context, w *work) error {
	old := w.placement.Status
	status := *old.DeepCopy()
	if w.result.Misconfigured == nil {
		status.NumberOfSelectedClusters = int32(len(w.result.Selected)) //nolint:gosec // at most the number of clusters
		status.DecisionGroups = decisionGroups(w)
		if w.scoresChanged || status.LastScoreUpdateTime == nil && len(w.result.Selected) > 0 {
			t := metav1.NewTime(w.now)
			status.LastScoreUpdateTime = &t
		}
	}
	if status.DecisionGroups == nil {
		status.DecisionGroups = []clusterv1beta1.DecisionGroupStatus{}
	}
	for _, cond := range w.result.Conditions(w.placement.Generation) {
		cond.LastTransitionTime = metav1.NewTime(w.now)
		meta.SetStatusCondition(&status.Conditions, cond)
	}
	if equality.Semantic.DeepEqual(old, status) {
		return nil
	}
	// An update, not a patch: the API server spends less on it, and a
	// placement changed since it was scheduled is a conflict, scheduled
	// again.
	p := w.placement.DeepCopy()
	p.Status = status
	written, err := c.client.ClusterV1beta1().Placements(w.key.Namespace).UpdateStatus(ctx, p, metav1.UpdateOptions{})
	if err != nil {
		return fmt.Errorf("writing the placement's status: %w", err)
	}
	ctrl.LoggerFrom(ctx).V(1).Info("Placement scheduled", "selected", status.NumberOfSelectedClusters,
		"satisfied", meta.IsStatusConditionTrue(status.Conditions, clusterv1beta1.PlacementConditionSatisfied))
	c.state.mu.Lock()
	if e := c.state.placements[w.key]; e != nil && e.placement.UID == written.UID && newer(written.ResourceVersion, e.placement.ResourceVersion) {
		e.setPlacement(written)
	}
	c.state.mu.Unlock()
	return nil
}

// decisionGroups are the status's decision groups: each group's index,
// name, PlacementDecisions (those writeDecisions wrote) and number of
// clusters.
func decisionGroups(w *work) []clusterv1beta1.DecisionGroupStatus {
	var out []clusterv1beta1.DecisionGroupStatus
	for _, g := range w.result.Groups {
		gs := clusterv1beta1.DecisionGroupStatus{DecisionGroupIndex: int32(g.Index), DecisionGroupName: g.Name, //nolint:gosec // a handful
			ClustersCount: int32(len(g.Clusters)), Decisions: []string{}} //nolint:gosec // at most the number of clusters
		for _, pg := range w.pages {
			if pg.GroupIndex == g.Index {
				gs.Decisions = append(gs.Decisions, pg.Name)
			}
		}
		out = append(out, gs)
	}
	return out
}

package division

import (
	"fmt"

	placementapi "github.com/corral-dev/corral/placement/api"

	clusterv1 "open-cluster-management.io/api/cluster/v1"

	"github.com/corral-dev/corral/internal/clusterselector"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

// Weigher weighs clusters under a Divided policy, its weights'
// selectors compiled once (NewWeigher).
type Weigher struct {
	policy    *v1alpha1.ReplicaScheduling
	selectors []*clusterselector.Selector
}

// NewWeigher compiles the policy's weights; a selector that does not
// compile is an error naming it.
func NewWeigher(policy *v1alpha1.ReplicaScheduling, compiler *clusterselector.Compiler) (*Weigher, error) {
	w := &Weigher{policy: policy}
	for i, weight := range policy.Weights {
		sel, err := compiler.Compile(weight.ClusterSelector, fmt.Sprintf("spec.replicaScheduling.weights[%d].clusterSelector", i))
		if err != nil {
			return nil, err
		}
		w.selectors = append(w.selectors, sel)
	}
	return w, nil
}

// Weigh is each cluster's weight: by the first of the policy's weights
// whose selector selects the cluster (0 when none does); dynamically, by
// what the cluster can still run; or, with neither, all 0, which Divide
// reads as equal.
//
// Dynamic weights are the placement addon's resource-usage score of the
// resource (cpuAvailable or memAvailable), which runs from −100 (nothing
// free) to 100 (the placement agent's CPUForMaxScore or
// MemoryForMaxScore free) linearly, so score + 100 is in proportion to
// the free amount. When a cluster has no such score (the placement addon
// is not enabled there), every cluster weighs its allocatable amount
// instead (milli-CPU, or memory in MiB), so that all weights are of one
// unit.
func (w *Weigher) Weigh(clusters []*clusterv1.ManagedCluster, scores clusterselector.Scores) map[string]int64 {
	out := make(map[string]int64, len(clusters))
	for _, c := range clusters {
		out[c.Name] = 0
	}
	switch dynamic := w.policy.Dynamic; {
	case len(w.selectors) > 0:
		for _, c := range clusters {
			for i, sel := range w.selectors {
				if ok, _ := sel.Matches(c, false); ok {
					out[c.Name] = int64(w.policy.Weights[i].Weight)
					break
				}
			}
		}
	case dynamic != nil && !fromScores(dynamic.Resource, clusters, scores, out):
		for _, c := range clusters {
			out[c.Name] = allocatable(dynamic.Resource, c)
		}
	}
	return out
}

// fromScores fills weights from the clusters' resource-usage scores;
// false when a cluster has none.
func fromScores(resource string, clusters []*clusterv1.ManagedCluster, scores clusterselector.Scores, weights map[string]int64) bool {
	item := placementapi.ScoreCPU
	if resource == "memory" {
		item = placementapi.ScoreMemory
	}
	for _, c := range clusters {
		score := scores.Score(c.Name, placementapi.ScoreName)
		if score == nil {
			return false
		}
		found := false
		for _, s := range score.Status.Scores {
			if s.Name == item {
				weights[c.Name] = int64(min(max(s.Value, -100), 100)) + 100
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// allocatable is a cluster's allocatable CPU in millicores, or memory in
// MiB, from its status; 0 when it reports none.
func allocatable(resource string, c *clusterv1.ManagedCluster) int64 {
	if resource == "memory" {
		q := c.Status.Allocatable[clusterv1.ResourceMemory]
		return min(q.Value()>>20, MaxWeight)
	}
	q := c.Status.Allocatable[clusterv1.ResourceCPU]
	return min(q.MilliValue(), MaxWeight)
}

package rollout

import (
	"k8s.io/apimachinery/pkg/util/intstr"
	rolloutsdk "open-cluster-management.io/sdk-go/pkg/apis/cluster/v1alpha1"
)

// byGroup rolls the groups out one at a time, in order, adding the
// clusters to start to result; it says whether it stopped before the end.
// A group is finished when each of its clusters succeeded (and its
// minSuccessTime passed) or failed. A mandatory group tolerates no
// failure; any other group maxFailures of its own clusters (a number, or a
// percentage of the group's size, rounded up). More failures than a group
// tolerates, in any group, stop the rollout.
//
// It does not go past the first unfinished group, nor past a finished one
// while a cluster of these groups is still busy; it starts the clusters of
// the group it stops at that have not started.
func byGroup(groups []rolloutGroup, states map[string]rolloutsdk.ClusterRolloutStatus, maxFailures intstr.IntOrString, result *rolloutsdk.RolloutResult) bool {
	held := false
	surveys := make([]survey, len(groups))
	for i, g := range groups {
		tolerated := 0
		if !g.mandatory {
			tolerated = allowed(maxFailures, g.clusters.Len())
		}
		if surveys[i] = g.survey(states); surveys[i].failures > tolerated {
			// in any group, also one past where the rollout is: its
			// clusters started before (the decisions changed since)
			result.MaxFailureBreach = true
			return true
		}
		held = held || surveys[i].busy > 0
	}
	for _, sv := range surveys {
		result.ClustersToRollout = append(result.ClustersToRollout, sv.toStart...)
		if held || len(sv.toStart) > 0 {
			return true
		}
	}
	return false
}

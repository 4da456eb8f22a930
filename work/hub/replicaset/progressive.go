package replicaset

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/intstr"
	rolloutsdk "open-cluster-management.io/sdk-go/pkg/apis/cluster/v1alpha1"
)

// byCluster rolls the groups' clusters out a few at a time, by name,
// adding those to start to result: at most limit busy at once, as long as
// no more than maxFailures of them failed (a number, or a percentage of
// the total clusters, rounded up).
func byCluster(groups []rolloutGroup, total int, states map[string]rolloutsdk.ClusterRolloutStatus, maxFailures intstr.IntOrString, limit int,
	result *rolloutsdk.RolloutResult) {
	var (
		toStart         []rolloutsdk.ClusterRolloutStatus
		failures, inUse int
	)
	for _, g := range groups {
		starting, failed := g.survey(states)
		toStart, failures = append(toStart, starting...), failures+failed
		for c := range g.clusters {
			if st, ok := states[c]; ok && busy(st) {
				inUse++
			}
		}
	}
	if failures > allowed(maxFailures, total) {
		result.MaxFailureBreach = true
		return
	}
	slices.SortFunc(toStart, func(a, b rolloutsdk.ClusterRolloutStatus) int { return strings.Compare(a.ClusterName, b.ClusterName) })
	result.ClustersToRollout = append(result.ClustersToRollout, toStart[:min(len(toStart), max(limit-inUse, 0))]...)
}

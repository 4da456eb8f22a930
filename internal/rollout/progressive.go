package rollout

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
	var all survey
	for _, g := range groups {
		sv := g.survey(states)
		all.toStart, all.failures, all.busy = append(all.toStart, sv.toStart...), all.failures+sv.failures, all.busy+sv.busy
	}
	if all.failures > allowed(maxFailures, total) {
		result.MaxFailureBreach = true
		return
	}
	slices.SortFunc(all.toStart, func(a, b rolloutsdk.ClusterRolloutStatus) int { return strings.Compare(a.ClusterName, b.ClusterName) })
	result.ClustersToRollout = append(result.ClustersToRollout, all.toStart[:min(len(all.toStart), max(limit-all.busy, 0))]...)
}

package agent

import (
	"math"
	"slices"
	"strings"

	placementapi "github.com/corral-dev/corral/placement/api"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
)

const (
	// AddonName is the placement addon's name: its lease is named so.
	AddonName = "placement"
)

// The amounts of free resources that score the maximum, 100; no free
// resources scores the minimum, −100. They are fixed (not relative to other
// clusters) so that a score means the same on every cluster and does not
// change when another cluster does. They are those of OCM's
// resource-usage-collect addon, so Placements written for it keep their
// meaning.
var (
	// CPUForMaxScore is 100 cores.
	CPUForMaxScore = resource.MustParse("100")
	// MemoryForMaxScore is 1 TiB.
	MemoryForMaxScore = resource.MustParse("1Ti")
)

// HubRules are what the agent needs in its cluster namespace on the hub:
// its AddOnPlacementScores and their status.
var HubRules = []rbacv1.PolicyRule{
	{
		APIGroups: []string{clusterv1alpha1.GroupName},
		Resources: []string{"addonplacementscores"},
		Verbs:     []string{"get", "list", "watch", "create", "update", "patch"},
	},
	{
		APIGroups: []string{clusterv1alpha1.GroupName},
		Resources: []string{"addonplacementscores/status"},
		Verbs:     []string{"update", "patch"},
	},
}

// Available is what a cluster's schedulable nodes can still take, in
// milli-CPU and bytes.
type Available struct {
	MilliCPU    int64
	MemoryBytes int64
}

// Compute sums, over the nodes that take new pods (not unschedulable), each
// node's allocatable minus the requests of the pods bound to it that are
// not finished (not Succeeded or Failed), counted as the scheduler counts
// them (init containers, sidecars, overhead, pod-level resources). A node
// asked for more than it has counts as having nothing left, not less.
func Compute(nodes []*corev1.Node, pods []*corev1.Pod) Available {
	requested := map[string]corev1.ResourceList{}
	for _, p := range pods {
		if p.Spec.NodeName == "" || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		sum := requested[p.Spec.NodeName]
		if sum == nil {
			sum = corev1.ResourceList{}
			requested[p.Spec.NodeName] = sum
		}
		for name, q := range resourcehelper.PodRequests(p, resourcehelper.PodResourcesOptions{UseStatusResources: true}) {
			total := sum[name]
			total.Add(q)
			sum[name] = total
		}
	}
	var avail Available
	for _, n := range nodes {
		if n.Spec.Unschedulable {
			continue
		}
		req := requested[n.Name]
		avail.MilliCPU += max(0, n.Status.Allocatable.Cpu().MilliValue()-req.Cpu().MilliValue())
		avail.MemoryBytes += max(0, n.Status.Allocatable.Memory().Value()-req.Memory().Value())
	}
	return avail
}

// Scale maps an amount between 0 and full linearly onto the api's score
// range: 0 (or less) is −100, full (or more) is 100, rounded to the nearest
// integer.
func Scale(amount, full int64) int32 {
	if full <= 0 || amount >= full {
		return 100
	}
	if amount <= 0 {
		return -100
	}
	return int32(math.Round(200*float64(amount)/float64(full) - 100))
}

// Scores are a's scores, sorted by name.
func Scores(a Available) []clusterv1alpha1.AddOnPlacementScoreItem {
	items := []clusterv1alpha1.AddOnPlacementScoreItem{
		{Name: placementapi.ScoreCPU, Value: Scale(a.MilliCPU, CPUForMaxScore.MilliValue())},
		{Name: placementapi.ScoreMemory, Value: Scale(a.MemoryBytes, MemoryForMaxScore.Value())},
	}
	slices.SortFunc(items, func(x, y clusterv1alpha1.AddOnPlacementScoreItem) int { return strings.Compare(x.Name, y.Name) })
	return items
}

package placement

import (
	rbacv1 "k8s.io/api/rbac/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/corral-dev/corral/addons"
	"github.com/corral-dev/corral/placement/hub"
)

// AddonName is the placement addon's name: its ClusterManagementAddOn's
// and every ManagedClusterAddOn's.
const AddonName = "placement"

// Addon is the placement addon as the hub's addon manager, the agent's
// addon host and `corral addon` know it. Its hub half is the placement
// scheduler; its agent half (wired separately) publishes the cluster's
// AddOnPlacementScores in its cluster namespace, which is all its hub
// identity may write.
func Addon() addons.Addon {
	return addons.Addon{
		Name:        AddonName,
		Description: "schedules Placements onto clusters; publishes each cluster's resource scores",
		HubRules: []rbacv1.PolicyRule{
			{APIGroups: []string{clusterv1alpha1.GroupName}, Resources: []string{"addonplacementscores"}, Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete"}},
			{APIGroups: []string{clusterv1alpha1.GroupName}, Resources: []string{"addonplacementscores/status"}, Verbs: []string{"update", "patch"}},
			{APIGroups: []string{"", "events.k8s.io"}, Resources: []string{"events"}, Verbs: []string{"create", "patch", "update"}},
		},
		SetupHub: func(mgr ctrl.Manager) error { return hub.SetupWithManager(mgr, hub.Options{}) },
	}
}

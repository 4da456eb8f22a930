package placement

import (
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/corral-dev/corral/addons"
	"github.com/corral-dev/corral/placement/agent"
	"github.com/corral-dev/corral/placement/hub"
)

// AddonName is the placement addon's name: its ClusterManagementAddOn's,
// every ManagedClusterAddOn's and its agent's lease's.
const AddonName = agent.AddonName

// Addon is the placement addon as the hub's addon manager, the agent's
// addon host and `corral addon` know it. Its hub half is the placement
// scheduler; its agent half publishes the cluster's free CPU and memory
// as the AddOnPlacementScore resource-usage in its cluster namespace,
// which is all its hub identity may write.
func Addon() addons.Addon {
	return addons.Addon{
		Name:        AddonName,
		Description: "schedules Placements onto clusters; publishes each cluster's resource scores",
		HubRules:    agent.HubRules,
		SetupHub: func(mgr ctrl.Manager, env addons.HubEnv) error {
			return hub.SetupWithManager(mgr, hub.Options{Clock: env.Clock})
		},
		RunAgent: agent.Run,
	}
}

package propagation

import (
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/corral-dev/corral/addons"
	"github.com/corral-dev/corral/propagation/hub"
)

// AddonName is the propagation addon's name: its ClusterManagementAddOn's.
const AddonName = "propagation"

// Addon is the propagation addon as the hub's addon manager knows it: a
// hub half only (ManifestWorks are its transport, which any work agent
// applies), so it has no agent and no hub rules for one.
func Addon() addons.Addon {
	return addons.Addon{
		Name:        AddonName,
		Description: "delivers native hub objects to the clusters of OCM Placements as ManifestWorks, with revisions",
		SetupHub: func(mgr ctrl.Manager, _ addons.HubEnv) error {
			return hub.SetupWithManager(mgr, hub.Options{})
		},
	}
}

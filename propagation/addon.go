package propagation

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/corral-dev/corral/addons"
	"github.com/corral-dev/corral/propagation/hub"
	"github.com/corral-dev/corral/propagation/hub/webhook"
	registrationhub "github.com/corral-dev/corral/registration/hub"
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
			uncached, err := partlyCached(mgr)
			if err != nil {
				return err
			}
			return hub.SetupWithManager(mgr, hub.Options{Uncached: uncached})
		},
		// Served and registered only by a hub running this hub half.
		HubWebhooks: webhook.Webhooks,
		HubCache:    hub.CacheTransforms(),
	}
}

// partlyCached are the kinds the hub's cache holds only some objects of
// (registrationhub.CacheOptions: cluster namespaces, the clusters' RBAC
// and leases), which a propagation may select all the same: a user's
// Namespace is not in that cache.
func partlyCached(mgr ctrl.Manager) ([]schema.GroupKind, error) {
	var out []schema.GroupKind
	for obj := range registrationhub.CacheOptions().ByObject {
		gvk, err := apiutil.GVKForObject(obj, mgr.GetScheme())
		if err != nil {
			return nil, err
		}
		out = append(out, gvk.GroupKind())
	}
	return out, nil
}

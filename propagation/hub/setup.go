// Package hub is the propagation addon's hub half: the seam registering
// its controllers with the hub's manager. Each controller is a package of
// its own beside this one (selector, distribute, status; revision and
// aggregate hold the pure pieces they share).
package hub

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"
	workv1 "open-cluster-management.io/api/work/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/propagation/hub/distribute"
	"github.com/corral-dev/corral/propagation/hub/selector"
	"github.com/corral-dev/corral/propagation/hub/status"
	"github.com/corral-dev/corral/propagation/hub/worktrim"
)

// Options configure the propagation addon's hub half.
type Options struct {
	// Workers is how many propagations each controller reconciles at
	// once; 0 is each controller's default.
	Workers int
	// Uncached are kinds the hub's cache holds only some objects of: the
	// selector reads them from the API server.
	Uncached []schema.GroupKind
}

// CacheTransforms trim the propagations' ManifestWorks in the hub's
// shared cache (worktrim): addons.Addon.HubCache.
func CacheTransforms() map[client.Object]toolscache.TransformFunc {
	return map[client.Object]toolscache.TransformFunc{&workv1.ManifestWork{}: worktrim.Transform}
}

// SetupWithManager registers the hub half's controllers with mgr, which
// run while mgr leads: the selector, writing revisions of what the
// propagations select, and the distributor, delivering a revision to the
// clusters of the propagations' placements as ManifestWorks, with the
// status feedback rules of status.ManifestConfigs; and the status
// controller, writing the clusters' fed-back status of workloads into
// their templates' .status.
func SetupWithManager(mgr ctrl.Manager, opts Options) error {
	if err := selector.SetupWithManager(mgr, selector.Options{Workers: opts.Workers, Uncached: opts.Uncached}); err != nil {
		return err
	}
	if err := distribute.SetupWithManager(mgr, distribute.Options{Workers: opts.Workers, ManifestConfigs: status.ManifestConfigs}); err != nil {
		return err
	}
	return status.SetupWithManager(mgr, status.Options{Workers: opts.Workers})
}

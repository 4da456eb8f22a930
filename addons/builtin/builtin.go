// Package builtin lists corral's built-in addons: the ones `corral hub`
// runs the hub halves of, `corral agent` hosts the agent halves of, and
// `corral dev up --addons` enables (those with an agent half: a hub-only
// addon, propagation, serves every cluster from the hub). It is where each addon's two halves
// meet, so nothing else has to import both.
package builtin

import (
	"github.com/corral-dev/corral/addons"
	"github.com/corral-dev/corral/health"
	"github.com/corral-dev/corral/placement"
	"github.com/corral-dev/corral/propagation"
	"github.com/corral-dev/corral/properties"
	"github.com/corral-dev/corral/work"
)

// All returns the built-in addons, in the order they are listed and
// started.
func All() []addons.Addon {
	return []addons.Addon{
		work.Addon(),
		placement.Addon(),
		properties.Addon(),
		health.Addon(),
		propagation.Addon(),
	}
}

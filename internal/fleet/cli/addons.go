package cli

import "github.com/corral-dev/corral/addons"

// builtinAddons are the built-in addons `dev up --addons` knows. None yet:
// work, placement, health and properties join this list as they land.
func builtinAddons() []addons.Addon { return nil }

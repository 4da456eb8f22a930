package cli

import (
	"github.com/corral-dev/corral/addons"
	"github.com/corral-dev/corral/addons/builtin"
)

// builtinAddons are the built-in addons `dev up --addons` knows.
func builtinAddons() []addons.Addon { return builtin.All() }

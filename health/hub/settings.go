package hub

import (
	"github.com/corral-dev/corral/addons/settings"
	"github.com/corral-dev/corral/health/api"
)

// Settings is how the hub half resolves the addon's settings from its
// AddOnDeploymentConfig (addons/settings), and how `corral addon enable
// --config` checks one (Settings.Validate).
var Settings = settings.Addon[api.Settings]{
	Name: api.AddonName, ConfigName: api.ConfigName,
	Parse: api.ParseSettings, Defaults: api.DefaultSettings, Describe: api.Settings.Describe,
}

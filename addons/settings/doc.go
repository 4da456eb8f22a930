// Package settings resolves a built-in addon's settings for each cluster,
// the OCM way: it reads the AddOnDeploymentConfig the addon manager put in
// the addon's ManagedClusterAddOn's status.configReferences (none means
// the addon's defaults), parses its customizedVariables with the addon's
// own parser (Addon.Parse), and
//   - when they are valid, writes them into the addon's settings ConfigMap
//     (Addon.ConfigName, addons/configmapchannel) in the cluster namespace, for the
//     agent and for the addon's hub half, and sets the addon's
//     ConditionConfigValid True, its message saying what the settings do;
//   - when they are not, or the config is missing, sets
//     ConditionConfigValid False with a message saying what is wrong and
//     what to give instead, and leaves the last valid settings in place.
//
// Once the addon is disabled on a cluster (its ManagedClusterAddOn gone),
// it deletes the settings ConfigMap there: nothing of the addon stays.
//
// One controller runs per addon that has settings (health, properties);
// the addon's hub half registers it with Addon.SetupWithManager, which
// also gives it the cache of the addon's ConfigMaps that its own
// controllers read reports through. It watches that addon's
// ManagedClusterAddOns and AddOnDeploymentConfigs (mapped to the addons
// that use them); it writes the settings ConfigMaps and the addons'
// status.
//
// The agent side is a Follower: it watches the addon's settings ConfigMap
// in its cluster namespace, by name, as the agent's hub identity (get,
// list and watch of that ConfigMap only), keeps the last valid settings
// when it holds ones it cannot read (the defaults while there are none),
// and wakes the agent's wait under way when they change, so a new
// interval applies without a restart and the hub serves no read per
// round. Follower.Run is an agent's loop over them: a round, then a wait
// of the settings' interval (Rounds).
package settings

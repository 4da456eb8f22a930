// Package healthconfig resolves the health addon's settings for each
// cluster: it reads the AddOnDeploymentConfig the addon manager put in
// the health ManagedClusterAddOn's status.configReferences (none means
// the defaults), parses its customizedVariables (api.ParseSettings), and
//   - when they are valid, writes them into the ConfigMap api.ConfigName
//     in the cluster namespace, for the agent (probe interval, workloads)
//     and for clusterhealth (thresholds, staleness), and sets the addon's
//     ConditionConfigValid True;
//   - when they are not, or the config is missing, sets ConditionConfigValid
//     False with a message saying what is wrong and what to give instead,
//     and leaves the last valid settings in place.
//
// It watches health ManagedClusterAddOns and AddOnDeploymentConfigs
// (mapped to the addons that use them); it writes the settings ConfigMaps
// and the addons' status.
package healthconfig

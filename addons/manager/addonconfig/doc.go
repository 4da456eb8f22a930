// Package addonconfig gives each ManagedClusterAddOn the configs it is to
// run with, as OCM's addon manager does: status.configReferences lists, per
// config group and resource, the desired config — the
// ClusterManagementAddOn's default (supportedConfigs), replaced by the
// configs of the install-strategy placement that decides on the cluster
// (the last such placement wins), replaced by the ManagedClusterAddOn's own
// spec.configs — and sets the Configured condition. What is known of a
// config that stays (spec hash, last applied) is kept; the addon
// framework fills in spec hashes. Configs change everywhere at once (the
// rollout strategy All); progressive rollouts are not done.
//
// It watches ManagedClusterAddOns, ClusterManagementAddOns (mapped to their
// ManagedClusterAddOns) and Placements and PlacementDecisions (mapped to
// the ManagedClusterAddOns of the addons placed by them); it writes
// ManagedClusterAddOns' status.
package addonconfig

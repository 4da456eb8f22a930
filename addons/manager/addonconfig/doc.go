// Package addonconfig rolls addons' configs out to their clusters, as
// OCM's addon manager does.
//
// Each ManagedClusterAddOn is to run with, per config group and resource:
// the ClusterManagementAddOn's default (supportedConfigs), replaced by the
// configs of the last install-strategy placement that decides on its
// cluster, replaced by its own spec.configs. Each comes with the spec hash
// the addon framework wrote for it: in the ClusterManagementAddOn's status
// (defaultConfigReferences, installProgressions) for the first two, in the
// ManagedClusterAddOn's for its own. Writing them in the
// ManagedClusterAddOn's status.configReferences (desiredConfig, with the
// Configured condition) hands them to the addon; what is known of a
// config that stays (lastAppliedConfig, observed generation) is kept.
//
// An addon on a placement's clusters gets them when that placement's
// rolloutStrategy reaches it (internal/rollout): All at once, Progressive
// a few clusters at a time, ProgressivePerGroup a decision group at a
// time. An addon is Succeeded once each config's lastAppliedConfig is the
// desired one, Failed when its Progressing condition says it failed or
// does not support a config, and in progress otherwise, each since
// Progressing last changed to say so. A decided cluster whose addon is
// being deleted, or that is gone or going, is passed over; one whose
// addon is still to be made is waited for. Any other addon gets its
// configs at once. An addon with no configs at all is Configured at once.
//
// Each install progression of the ClusterManagementAddOn gets a
// Progressing condition: True until every addon on its placement's
// clusters that runs with the placement's configs applied them and is
// past its minSuccessTime, then False (Completed), when they become its
// lastAppliedConfig and lastKnownGoodConfig. A rollout strategy that
// cannot be followed makes it False (Failed) and nothing is rolled out
// there.
//
// It watches ClusterManagementAddOns, ManagedClusterAddOns (mapped to the
// addon of their name), and Placements and PlacementDecisions (mapped to
// the addons whose strategy names the placement); it writes
// ManagedClusterAddOns' and ClusterManagementAddOns' status.
package addonconfig

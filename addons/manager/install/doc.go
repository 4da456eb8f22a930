// Package install runs ClusterManagementAddOns' install strategies, as
// OCM's addon manager does. With `Manual` (the default) an addon is
// enabled on a cluster only by creating its ManagedClusterAddOn, and this
// controller creates none. With `Placements`, every cluster in the
// PlacementDecisions of each listed Placement (the decisions labelled
// cluster.open-cluster-management.io/placement=<placement> in the
// placement's namespace) gets a ManagedClusterAddOn, owned by the
// ClusterManagementAddOn and annotated as installed by the strategy; when
// a cluster leaves every placement, the ManagedClusterAddOn the strategy
// created there is deleted. One enabled by hand is never deleted here. A
// Placement that does not exist selects no cluster.
//
// It also keeps the ClusterManagementAddOn's status: a
// defaultconfigReference per supported config with a default, and an
// installProgression per placement with the configs that placement's
// clusters get (the defaults, overridden per config type by the
// placement's). The addon framework fills in their spec hashes.
//
// It watches ClusterManagementAddOns, ManagedClusterAddOns (mapped to the
// addon of their name), Placements and PlacementDecisions (mapped to the
// addons whose strategy names the placement); it writes
// ManagedClusterAddOns and ClusterManagementAddOns' status.
package install

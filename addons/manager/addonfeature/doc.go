// Package addonfeature labels each ManagedCluster with the state of the
// addons enabled on it, as OCM's addon feature discovery does, so that
// placements can select clusters by addon:
// feature.open-cluster-management.io/addon-<addon> is `available`,
// `unhealthy` or `unreachable` as the ManagedClusterAddOn's Available
// condition is True, False, or Unknown or missing. A label of that prefix
// whose addon is gone from the cluster (or is being deleted) is removed;
// every other label is left alone. A cluster being deleted, or with no
// Available condition of its own yet, is not labelled.
//
// It watches ManagedClusters (their creation, a change of their addon
// labels, and their Available condition appearing or going) and
// ManagedClusterAddOns (mapped to the cluster of their namespace: their
// creation, deletion, deletion starting and a change of their Available
// condition's status), so a cluster's heartbeat does not reconcile it. It
// writes ManagedClusters' labels: one merge patch per reconcile, only when
// a label changes.
package addonfeature

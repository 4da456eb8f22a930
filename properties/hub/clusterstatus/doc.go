// Package clusterstatus reflects the properties agent's report (the
// ConfigMap api.ReportName in the cluster namespace) into the
// ManagedCluster's status: version.kubernetes, capacity, allocatable and
// clusterClaims, bounded again (api.Bound) since the hub does not trust
// the agent to bound them. A cluster without the properties addon, or
// without a report yet, is left as it is.
//
// When claims were dropped it sets the addon's condition
// ConditionClaimsWithinLimits False (reason ClaimsTruncated, naming the
// claims) on the cluster's properties ManagedClusterAddOn and records an
// Event on the ManagedCluster, once per change.
//
// It watches ManagedClusters, the addon's reports (a cache of those
// ConfigMaps only) and the properties ManagedClusterAddOns; it writes
// ManagedClusters' status and the ManagedClusterAddOns' status.
package clusterstatus

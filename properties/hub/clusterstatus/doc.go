// Package clusterstatus reflects the properties agent's report (the
// ConfigMap api.ReportName in the cluster namespace) into the
// ManagedCluster's status: version.kubernetes, capacity, allocatable and
// clusterClaims, bounded again (api.Bound) since the hub does not trust
// the agent to bound them. A cluster without a report yet is left as it
// is. When the addon is disabled on a cluster, the properties it put there
// are removed (with an Event, ReasonPropertiesRemoved) and then its report:
// a report with no addon is what says they were the addon's, so a cluster
// whose properties come from elsewhere (OCM's registration agent) is never
// touched.
//
// When claims were dropped it sets the addon's condition
// ConditionClaimsWithinLimits False (reason ClaimsTruncated, naming the
// claims) on the cluster's properties ManagedClusterAddOn and records an
// Event on the ManagedCluster, once per change.
//
// It watches ManagedClusters, the addon's reports (a cache of those
// ConfigMaps only) and the properties ManagedClusterAddOns; it writes
// ManagedClusters' status and the ManagedClusterAddOns' status, and
// deletes a disabled addon's report.
package clusterstatus

// Package clusterhealth turns the health agent's report (the ConfigMap
// api.ReportName in the cluster namespace) into the ManagedCluster's
// api.ConditionHealthy condition and api.TaintUnhealthy taint, judged by
// the cluster's settings (api.ConfigName, which the addon's settings
// controller, addons/settings, writes; the defaults when there is none):
//   - True (reason Healthy) when the API server is live and ready, the
//     share of Ready nodes is at least minReadyNodeShare (a cluster with
//     no nodes passes) and every listed workload is Available;
//   - False when any check failed — the reason names the first that did
//     (APIServerNotLive, APIServerNotReady, NodesNotReady,
//     WorkloadsUnavailable) and the message every one — or when the last
//     report is older than staleAfter (ReportStale: the agent or the path
//     to the hub is down), by the hub's clock against the agent's probe
//     time, looked at again when the report would go stale;
//   - Unknown (NoReport) while the addon is enabled and has not reported.
//
// The taint (effect NoSelect) is on the cluster exactly while the
// condition is False, so placements move away from a sick cluster and
// come back when it recovers. An Event is recorded on each change of the
// condition's status. When the addon is disabled, the condition and the
// taint go.
//
// It watches ManagedClusters, the addon's ConfigMaps (a cache of those
// only) and health ManagedClusterAddOns; it writes ManagedClusters' status
// conditions and spec.taints.
package clusterhealth

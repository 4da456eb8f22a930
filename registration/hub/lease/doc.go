// Package lease tells the hub when a cluster's agent has gone quiet: an
// accepted cluster whose managed-cluster-lease has not been renewed for
// leaseDurationSeconds × the grace multiplier gets
// ManagedClusterConditionAvailable=Unknown. The agent itself reports
// availability while it renews; this controller only ever sets Unknown.
//
// It watches ManagedClusters and the creation and deletion of the leases
// labelled with a cluster name, and requeues each cluster for the moment
// its lease would expire: a renewal is seen then, not as it happens, so
// renewals cost the hub nothing in between. It writes the ManagedCluster's
// status. Time comes from an injected clock.
package lease

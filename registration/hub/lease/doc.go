// Package lease tells the hub when a cluster's agent has gone quiet: an
// accepted cluster whose managed-cluster-lease has not been renewed for
// leaseDurationSeconds × the grace multiplier gets
// ManagedClusterConditionAvailable=Unknown. The agent itself reports
// availability while it renews; this controller only ever sets Unknown.
// It also makes an accepted cluster's lease when it is missing (the
// agent may only update it), and hands the renewals it finds to
// clocksync.
//
// It watches ManagedClusters, and no leases: it reads a cluster's lease
// from the API server (its watch cache; the API server itself before it
// judges a lease stale) when the lease would go stale, and a grace
// period later at the latest, so that a renewal is seen then, not as it
// happens. Ten thousand agents renewing every minute would send the hub
// 167 watch events a second, each costing it about 0.7 ms of CPU
// (measured by the scale benchmark, test/benchmark/scale); read this way,
// they cost it one read per cluster per grace period (five minutes by
// default). A deleted lease is made again within a grace period. It
// writes the ManagedCluster's status and makes leases. Time comes from
// an injected clock.
package lease

// Package taint keeps the availability taints of a ManagedCluster in step
// with its ManagedClusterConditionAvailable condition, as OCM defines them:
// missing or Unknown → cluster.open-cluster-management.io/unreachable,
// False → cluster.open-cluster-management.io/unavailable, True → neither.
// Both have effect NoSelect and a timeAdded from an injected clock; other
// taints are left alone.
//
// It watches ManagedClusters (their status) and writes their spec.taints,
// guarded by the taints it read rather than the whole object's version.
package taint

// Package taint keeps the availability taints of a ManagedCluster in step
// with its ManagedClusterConditionAvailable condition, as OCM defines them:
// missing or Unknown → cluster.open-cluster-management.io/unreachable,
// False → cluster.open-cluster-management.io/unavailable, True → neither.
// Both have effect NoSelect and a timeAdded from an injected clock; other
// taints are left alone.
//
// A cluster the acceptance controller has not taken in yet (it has no
// cleanup finalizer) gets its first taint from that controller, in the same
// write as the finalizer; from then on the taints are this controller's.
//
// It watches ManagedClusters (their availability, taints and cleanup
// finalizer) and writes their spec.taints, guarded by the taints it read
// rather than the whole object's version.
package taint

// Package clustersetbinding owns the status of ManagedClusterSetBindings, as
// OCM defines it: the Bound condition is True (ClusterSetBound) while the
// ManagedClusterSet the binding names exists, and False (ClusterSetNotFound)
// while it does not. A binding is re-evaluated when it is created or its
// spec changes, and when a set it names appears or goes.
//
// Bindings are found by the set they name through a cache index on
// spec.clusterSet (ClusterSetIndex), which other hub controllers may use.
//
// It watches ManagedClusterSetBindings and ManagedClusterSets; it writes
// only the bindings' status.
package clustersetbinding

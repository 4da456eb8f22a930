// Package clocksync tells whether a managed cluster's clock agrees with
// the hub's, as OCM's ManagedClusterConditionClockSynced does. The hub
// judges a lease by the renewTime the agent writes on its own clock: an
// agent whose clock runs ahead stays Available after it stops, one whose
// clock runs behind looks gone while it heartbeats. When a renewal
// arrives, its renewTime should be close to the hub's now; further off
// than the lease's grace (leaseDurationSeconds × the grace multiplier) in
// either direction, the condition is False.
//
// It watches renewals of the clusters' managed-cluster-lease and, only
// when the condition's status would change, writes the ManagedCluster's
// status and a transition event. Time comes from an injected clock.
package clocksync

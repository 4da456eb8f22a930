// Package clocksync tells whether a managed cluster's clock agrees with
// the hub's, as OCM's ManagedClusterConditionClockSynced does. The hub
// judges a lease by the renewTime the agent writes on its own clock: an
// agent whose clock runs ahead stays Available after it stops, one whose
// clock runs behind looks gone while it heartbeats. A renewal's
// renewTime should be close to the hub's time when it arrived; further
// off than the lease's grace (leaseDurationSeconds × the grace
// multiplier) in either direction, the condition is False.
//
// It is no controller of its own: the lease controller, which reads each
// cluster's lease when it would go stale, hands it every renewal it finds
// with the time of its previous look (the renewal arrived in between),
// and Checker writes the ManagedCluster's status and a transition event
// only when the condition's status changes. Time comes from an injected
// clock.
package clocksync

// Package agent is the placement addon's agent half: it tells the hub's
// scheduler how much room a managed cluster has.
//
// It publishes the AddOnPlacementScore resource-usage in its cluster
// namespace on the hub (with the addon's own identity, which HubRules
// describe) holding two scores, cpuAvailable and memAvailable: what the
// cluster's schedulable nodes can still take — allocatable minus what the
// pods scheduled on them request, as the scheduler counts it — scaled to the
// api's −100…100 (Scale). Placements use them through an AddOn prioritizer
// (scoreCoordinate.addOn resourceName resource-usage).
//
// It watches the managed cluster's Nodes and Pods (informers) and
// recomputes on every change, but writes at most once per MinInterval and
// only when a score changed or the scores' validUntil (ValidFor after the
// write) is less than half of ValidFor away. It renews the addon's lease
// placement in its install namespace on the managed cluster, which the
// addon host reports as the addon's Available condition.
//
// It reads Nodes and Pods on the managed cluster and writes only the one
// AddOnPlacementScore on the hub (and its lease).
package agent

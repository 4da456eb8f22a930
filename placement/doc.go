// Package placement is the placement addon: the scheduler on the hub
// (placement/hub) and the resource scores a managed cluster publishes
// (placement/agent), with the semantics of
// open-cluster-management.io/api/cluster/v1beta1 Placement.
package placement

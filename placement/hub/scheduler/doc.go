// Package scheduler is the placement scheduler as a pure function:
// Schedule takes a Placement and a Snapshot of the hub (clusters, cluster
// sets and bindings, AddOnPlacementScores, the decisions placements hold)
// and returns which clusters it selects, in which decision groups, with
// the Placement's conditions — and, when asked, why: for every cluster
// which filter dropped it and what each prioritizer scored.
//
// It reads nothing but its arguments and writes nothing, so the hub's
// controller (placement/hub), `corral placement explain` and tests all
// call the same code. The semantics are those of
// open-cluster-management.io/api/cluster/v1beta1 Placement:
//
//   - candidates are the clusters of the ManagedClusterSets bound (a
//     ManagedClusterSetBinding with Bound True) to the placement's
//     namespace, restricted to spec.clusterSets when it is given;
//   - filters: the predicates (label, claim and CEL selectors, ORed), then
//     taints and tolerations (NoSelect, NoSelectIfNew; tolerationSeconds
//     counted from the taint's timeAdded, with a requeue when it runs out);
//     a cluster with a PreferNoSelect taint it does not tolerate passes but
//     is ranked after every other;
//   - prioritizers, Additive (Balance and Steady at weight 1 unless told
//     otherwise) or Exact: Balance, Steady, ResourceAllocatableCPU,
//     ResourceAllocatableMemory, Spread and AddOn scores (ignoring a score
//     whose validUntil has passed), each −100…100, times its weight;
//   - numberOfClusters of the best ranked, kept within spreadPolicy's
//     maxSkew; then decision groups and PlacementDecision pages of at most
//     100 clusters.
package scheduler

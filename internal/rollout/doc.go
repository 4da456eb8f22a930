// Package rollout decides which clusters a placement's rollout strategy
// (open-cluster-management.io/api/cluster/v1alpha1 RolloutStrategy: All,
// Progressive, ProgressivePerGroup) reaches now, from the placement's
// decision groups and the statuses of the clusters rolled out to so far,
// as the api's docs say; OCM's rollout helper (sdk-go's RolloutHandler)
// errs against them in places, which Placement.Decide's doc lists. It also
// validates a strategy's settings.
//
// ManifestWorkReplicaSets roll out their works with it, and addons their
// configs. It reads and writes nothing itself but through Decisions, a
// lister of PlacementDecisions for sdk-go's decision tracker.
package rollout

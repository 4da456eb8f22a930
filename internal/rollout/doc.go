// Package rollout decides which clusters a placement's rollout strategy
// (open-cluster-management.io/api/cluster/v1alpha1 RolloutStrategy: All,
// Progressive, ProgressivePerGroup) reaches now, from the placement's
// decision groups and the statuses of the clusters rolled out to so far,
// as the api's docs say; OCM's rollout helper (sdk-go's RolloutHandler)
// errs against them in places, which Placement.Decide's doc lists. It also
// validates a strategy's settings.
//
// ManifestWorkReplicaSets and propagations roll out their works with it,
// and addons their configs. What the two work controllers share is here
// too: ForPlacement (a placement's decisions, read through Decisions, a
// lister for sdk-go's decision tracker), WatchPlacements (the watches
// that bring an object back when its placements change), WorkStatus (a
// ManifestWork's rollout status since it was given what it carries) and
// Rechecker (an object brought back when the injected clock reaches a
// rollout deadline). It writes nothing.
package rollout

// Package hub is the placement addon's hub half: the scheduler controller
// that decides, for every Placement, which clusters it selects, and
// records them in PlacementDecisions and the Placement's status, as
// open-cluster-management.io/api/cluster/v1beta1 defines them. The
// decision itself is placement/hub/scheduler's pure function; this package
// feeds it and writes what it decides.
//
// It watches ManagedClusters, ManagedClusterSets, ManagedClusterSetBindings,
// Placements, PlacementDecisions and AddOnPlacementScores through its own
// informers (managed fields dropped), into an in-memory index that is the
// scheduler's snapshot: no API read is on the scheduling path. A change
// re-schedules only the placements it can affect (scheduler.Plan.Affected);
// a score change does so at once when it can change the clusters selected
// (scheduler.Result.Margin), and otherwise, for a cluster held, once the
// placement's scoreRateLimit allows its decisions' scores to be rewritten.
// A placement annotated with the api's PlacementDisableAnnotation "true"
// is left alone, its decisions too, until the annotation goes.
//
// It writes PlacementDecisions (created owned by their Placement, labelled
// with the placement and decision group, their status updated) and
// Placements' status, each only when what it holds differs.
package hub

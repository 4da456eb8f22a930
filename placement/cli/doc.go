// Package cli holds `corral placement`: create, get, delete and explain.
//
// create builds a Placement from flags (sets, label and claim selectors,
// number of clusters, built-in prioritizers, tolerations), checks the
// sets exist and are bound to its namespace, and says what it selects
// once the scheduler decided. get lists placements with the clusters of
// their PlacementDecisions. delete shows what deleting a placement does
// to what is delivered through it (ManifestWorkReplicaSets, addon install
// strategies) and asks first (internal/confirm).
//
// explain runs the placement scheduler (placement/hub/scheduler) over what
// the hub holds now and prints, for every cluster, which filter dropped
// it or what each prioritizer scored it and whether it was selected; with
// --what-if, for an edited Placement from a file, without writing
// anything, and with the clusters it would gain and lose. It only reads
// the hub.
//
// Every verb serves a team's user who may read only their namespace
// (docs/teams.md) with what they may read, and says in one line what more
// the full view needs.
package cli

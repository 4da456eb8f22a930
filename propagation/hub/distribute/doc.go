// Package distribute delivers what a Propagation or ClusterPropagation
// selected: it reads the revision to deliver (spec.revision, the pin, or
// else the newest (Cluster)PropagationRevision by number), the decisions of
// every Placement the propagation names, and rolls the revision out to the
// decided clusters as each placement ref's rollout strategy (All,
// Progressive, ProgressivePerGroup) allows, decided by internal/rollout as
// the ManifestWorkReplicaSet controller (work/hub/replicaset) does.
//
// It owns the ManifestWorks of propagations: per cluster, one work per part
// of the revision's manifests (revision.Split, revision.PartBudget), named
// by WorkName in the cluster's namespace and labelled
// apps.corral.dev/propagation, apps.corral.dev/propagation-namespace (for a
// Propagation) and apps.corral.dev/revision. A work of that name without
// these labels is someone else's and is never touched. A work is written
// only when it differs from what it should be; parts a revision no longer
// has are deleted. With deletionPolicy Orphan every work carries
// deleteOption Orphan, and is given it before it is deleted.
//
// A revision with override policies (spec.overrides) is rendered per
// cluster, from the cluster's ManagedCluster (override.Render): each
// cluster's works carry its own objects, and its status the rules
// applied. A rule that cannot apply on a cluster leaves that cluster's
// works as they are and fails it (OverrideFailed), which the rollout
// counts against maxFailures; a revision without overrides is split once
// for every cluster.
//
// A cluster that leaves every placement loses its works (with the delete
// option of the deletionPolicy). A pin to a revision that does not exist,
// a revision no ManifestWork can carry, or a placement that does not
// exist is a condition, and nothing on any cluster changes until it is
// fixed. The propagation's finalizer (apps.corral.dev/propagation-cleanup)
// makes deleting it delete (or orphan) its works first.
//
// It watches (Cluster)Propagations, their revisions, Placements (created
// and deleted), PlacementDecisions, the ManifestWorks labelled as theirs
// and the labels and claims of ManagedClusters, which overrides read; it writes ManifestWorks and the propagations' finalizer and the
// status fields of delivery: the Scheduled, Applied and Available
// conditions, currentRevision, deliveredRevision, objects, summary and
// clusters. The Selected condition is the selector controller's: status is
// written guarded by the resourceVersion read, so neither overwrites the
// other.
//
// Time-based rollout (minSuccessTime, progressDeadline) is read on the
// injected clock (Options.Clock), and the propagation is looked at again
// when that clock reaches the next deadline (rollout.Rechecker), so a
// test's fake clock drives it.
package distribute

// Package replicaset owns ManifestWorkReplicaSets, with the semantics of
// open-cluster-management.io/api/work/v1alpha1: for every placement a set
// names (spec.placementRefs), one ManifestWork named as the set in the
// namespace of each cluster the placement's PlacementDecisions select,
// created, updated and deleted as the decisions change and as the placement
// ref's rollout strategy (All, Progressive, ProgressivePerGroup) allows.
//
// The works it makes carry the labels
// work.open-cluster-management.io/manifestworkreplicaset=<namespace>.<name>
// and work.open-cluster-management.io/placementname=<placement>, by which it
// finds them again, and the TemplateHashAnnotation saying which template
// they were made from. A ManifestWork of the same name that does not carry
// the set's label is someone else's and is never touched. The set's
// finalizer (work.open-cluster-management.io/manifest-work-cleanup) makes
// deleting the set delete its works; with cascadeDeletionPolicy Foreground
// the set goes only once they are gone.
//
// Which clusters a strategy reaches is decided by internal/rollout, from
// the works' statuses (clusterStatus).
//
// Time-based rollout (minSuccessTime, progressDeadline) reads the injected
// clock, and the set is looked at again when that clock reaches the next
// deadline.
//
// It watches ManifestWorkReplicaSets, the ManifestWorks they own,
// Placements and PlacementDecisions; it writes ManifestWorks and the sets'
// finalizer and status.
package replicaset

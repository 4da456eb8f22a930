// Package selector owns what a (Cluster)Propagation selects: for each
// Propagation and ClusterPropagation it resolves the resource selectors
// through the hub's RESTMapper, lists the selected objects (a Namespace
// selected with NamespaceWithResources brings every namespaced object in
// it), drops what revision.Skipped names, cleans, sorts and hashes the
// rest, and when the hash differs from the newest revision's writes a new,
// immutable (Cluster)PropagationRevision numbered one more, then prunes
// the oldest beyond revisionHistoryLimit (never the newest nor the pinned
// one).
//
// Bad input (a kind the hub does not serve, a kind of the wrong scope, a
// selector matching nothing that may be delivered) is the Selected
// condition, False with a one-line message; the revisions stay as they
// were, so the last good one keeps running.
//
// It watches Propagations, ClusterPropagations and, through informers of
// the manager's cache started on demand, every kind some propagation
// selects (for a Namespace with its resources, every namespaced kind the
// hub serves): an event of such an object re-selects the propagations
// that select its kind. A kind the hub does not serve yet is looked at
// again every UnknownKindRetry.
//
// It writes (Cluster)PropagationRevisions and, in the propagations'
// status, the Selected condition, currentRevision and observedGeneration.
// deliveredRevision, objects, the clusters and the other conditions are
// the distributing controller's.
package selector

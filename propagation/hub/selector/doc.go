// Package selector owns what a (Cluster)Propagation selects: for each
// Propagation and ClusterPropagation it resolves the resource selectors
// through the hub's RESTMapper, lists the selected objects (a Namespace
// selected with NamespaceWithResources brings every namespaced object in
// it), drops what revision.Skipped names, opens envelopes, cleans, sorts
// and hashes the rest, and when the hash differs from the newest
// revision's writes a new, immutable (Cluster)PropagationRevision
// numbered one more, each object labelled apps.corral.dev/revision with
// that number (the hash is of the objects without it), then prunes the
// oldest beyond revisionHistoryLimit (never the newest nor the pinned
// one).
//
// A Propagation's revision also holds the Namespace of the Propagation
// (name, labels and annotations; nothing in it), first, so that its
// objects apply on a cluster that lacks it; not for the namespaces every
// cluster has (default, kube-system, kube-public, kube-node-lease). It
// alone is not labelled with the revision: the namespace's Propagations
// share it on a cluster.
//
// Envelopes: a selected ConfigMap labelled apps.corral.dev/envelope
// "true" is delivered as the objects in its data values (revision.Open),
// not as itself. Each such object carries the annotation
// apps.corral.dev/envelope: <namespace>/<name> of the ConfigMap
// (v1alpha1.AnnotationEnvelope), in the revision and on the clusters: it
// has no template on the hub, and the status controller must not
// aggregate it into a hub object of the same name. A Propagation's
// envelope may carry only namespaced objects of the Propagation's
// namespace (one without a namespace is put there): the namespace's users
// must not write cluster-scoped objects or other namespaces' on the
// clusters through it. A ClusterPropagation's envelope may carry anything.
//
// Bad input (a kind the hub does not serve, a kind of the wrong scope, a
// selector matching nothing that may be delivered, an envelope value that
// does not decode or carries what its propagation may not deliver, two
// objects of one kind, namespace and name) is the Selected condition,
// False with a one-line message; the revisions stay as they were, so the
// last good one keeps running.
//
// It watches Propagations, ClusterPropagations and, through informers of
// the manager's cache started on demand, every kind some propagation
// selects (for a Namespace with its resources, every namespaced kind the
// hub serves) and Namespaces: an event of such an object re-selects the
// propagations that select its kind (of a Namespace, also the
// Propagations in it). A kind the hub does not serve yet is looked at
// again every UnknownKindRetry.
//
// It writes (Cluster)PropagationRevisions and, in the propagations'
// status, the Selected condition and observedGeneration.
// currentRevision, deliveredRevision, objects, the clusters and the other
// conditions are the distributing controller's, which a new revision
// brings to the propagation.
package selector

// Package manifestwork is the work agent's ManifestWork controller.
//
// It owns the ManifestWorks in the cluster namespace on the hub (their
// finalizer and status) and their AppliedManifestWorks on the managed
// cluster. It watches ManifestWorks on the hub; on the managed cluster it
// watches AppliedManifestWorks, the CRDs (a manifest whose kind is not
// installed yet is retried when one appears) and, metadata only, every
// kind it has applied, so that an object changed or deleted there is put
// back without polling objects nobody changed.
//
// A reconcile of a live ManifestWork: add the finalizer, make sure its
// AppliedManifestWork exists, apply the manifests (Namespaces and CRDs
// first), let go of what the work no longer applies, read status
// feedback, and write the status once if it changed. A manifest that
// failed to apply for a reason on the managed cluster is tried again with
// the controller's backoff; one its conditionRules marked Complete is
// read, no longer written. A deleted ManifestWork: release what it applied
// (as its deleteOption says), then drop the AppliedManifestWork and the
// finalizer. A ManifestWork gone from the hub without that: its
// AppliedManifestWork is evicted after the grace period.
//
// A second controller, on the managed cluster's AppliedManifestWorks,
// evicts after the same grace period those this agent made for another
// hub (the agent joined another hub, or the hub's address changed: their
// names carry the old hub hash), as the api and OCM's agent do; the grace
// period starts with status.evictionStartTime. Evicting releases what only
// that record owns and drops its owner reference from what a work of this
// hub applies too. Either eviction is turned off by a grace period of
// EvictionGracePeriodBound or more, and AppliedManifestWorks of another
// agent ID are never touched.
//
// A work with an executor: each manifest is checked first with
// SubjectAccessReviews (for a clear per-manifest refusal), then written,
// and what the work drops let go of, through a client impersonating the
// executor's service account, so that the managed API server holds it to
// the executor's RBAC, escalation checks included. What a deleted work
// leaves is released by the agent itself, so that a grant revoked since
// cannot keep the work from going; but an object its executor may not
// delete now (asked again at that time) is only let go of, and kept. What
// a vanished work leaves is evicted by the agent (the executor is gone
// with the work). Works without an executor write with the agent's own
// client.
package manifestwork

// Package validation checks ManifestWorks and ManifestWorkReplicaSets as
// OCM's work webhook does, each problem in one line saying what to fix:
// manifests that are not Kubernetes objects (no apiVersion, kind or
// metadata.name, a generateName, a duplicate), a payload over
// MaxManifestsSize, an executor the writer may not act as (create
// SubjectAccessReview: verb execute-as on manifestworks in the work's
// namespace, named system:serviceaccount:<namespace>:<name>), and a
// ManifestWorkReplicaSet with no placementRefs or bad rollout values.
//
// The functions are used by the admission webhooks (Webhooks, served by the
// hub's webhook server) and by `corral work create` before it writes.
package validation

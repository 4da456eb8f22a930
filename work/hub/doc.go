// Package hub is the work addon's hub half: the ManifestWorkReplicaSet
// controller (replicaset), the deletion of completed ManifestWorks once
// their ttlSecondsAfterFinished has passed (ttl), and the admission
// validation of ManifestWorks and ManifestWorkReplicaSets (validation).
// SetupWithManager is the one seam the addon's SetupHub and the
// integration suites call.
package hub

// Package ttl deletes finished ManifestWorks, as
// open-cluster-management.io/api/work/v1 DeleteOption.TTLSecondsAfterFinished
// says: a ManifestWork whose Complete condition is True (the agent sets it
// once every manifest with a Complete conditionRule is complete) is deleted
// ttlSecondsAfterFinished after that condition's lastTransitionTime; 0 is
// at once, unset is never. A work a ManifestWorkReplicaSet made (its
// work.open-cluster-management.io/manifestworkreplicaset label) is the
// set's to keep and is left alone, as OCM's hub does.
//
// Time is the injected clock's, compared with the agent's wall-clock
// lastTransitionTime; a work not due yet is looked at again when it is.
//
// It watches ManifestWorks with a TTL and writes nothing but their
// deletion.
package ttl

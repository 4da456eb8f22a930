// Package apply applies one manifest to the managed cluster with the update
// strategy its ManifestWork gives it (Update, CreateOnly, ServerSideApply,
// ReadOnly) and says what became of it. Update follows OCM's update
// applier: outside metadata and status the object becomes the manifest
// (a field dropped from it is dropped), labels and annotations are merged.
// It owns no controller: the ManifestWork controller calls it. It
// remembers, per object, the resourceVersion it last wrote or checked, so
// that an object nobody changed is not read again, and a watch event for
// an object that changed is told apart from the echo of its own write.
//
// A work with an adoption policy (package work/adoption) has each
// manifest judged against the object on the cluster first (adopt, Diff):
// an object made by no work is taken over only as the policy says, a
// change made on the cluster is put back or left, and under ReportDiff
// nothing is written; the verdict, with the fields that differ, is the
// Result's, and a write is of the very version judged.
package apply

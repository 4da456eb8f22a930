// Package apply applies one manifest to the managed cluster with the update
// strategy its ManifestWork gives it (Update, CreateOnly, ServerSideApply,
// ReadOnly) and says what became of it. Update follows OCM's update
// applier: outside metadata and status the object becomes the manifest
// (a field dropped from it is dropped), labels and annotations are merged.
// It owns no controller: the ManifestWork controller calls it. It
// remembers, per object, the resourceVersion it last wrote or checked, so
// that an object nobody changed is not read again, and a watch event for
// an object that changed is told apart from the echo of its own write.
package apply

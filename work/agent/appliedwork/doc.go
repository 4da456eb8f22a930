// Package appliedwork keeps the AppliedManifestWorks on the managed
// cluster: one per ManifestWork of this hub, named <hub hash>-<work>,
// whose status.appliedResources lists what the agent applied for that
// work. It says how a resource leaves a work (Release): deleted when the
// work was its only owner, or kept with the work's owner reference
// removed when another work still applies it or the work's delete option
// orphans it. The controllers of work/agent/manifestwork evict, after the
// eviction grace period, the AppliedManifestWorks whose ManifestWork
// vanished from the hub without being deleted through the agent, and
// those of another hub.
package appliedwork

// Package cli is `corral work`: create, get and delete ManifestWorks on the
// hub — one per named cluster (--clusters), or a ManifestWorkReplicaSet that
// fans out to the clusters a Placement selects (--placement) — and show
// their per-cluster, per-resource status.
package cli

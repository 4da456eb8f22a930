// Package work is the work addon: ManifestWork delivery on the managed
// cluster (work/agent) and ManifestWorkReplicaSet fan-out on the hub
// (work/hub), with the semantics of open-cluster-management.io/api/work.
package work

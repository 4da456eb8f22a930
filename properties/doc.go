// Package properties is the properties addon: what each managed cluster
// is, on the hub.
//
// The agent half (properties/agent) collects the managed cluster's
// Kubernetes version, node count, capacity and allocatable (cpu, memory,
// pods and extended resources such as nvidia.com/gpu), platform and
// product, region and zones (the well-known topology labels of its
// nodes), writes the well-known ones as ClusterClaims on the managed
// cluster, and sends all of it, with the user's own ClusterClaims, to the
// hub as a report (addons/configmapchannel: a ConfigMap `properties-report` in the
// cluster namespace, the only place its hub identity may write). It
// writes at most once per interval, and only when something changed.
//
// The hub half (properties/hub) reflects the report into the
// ManagedCluster's status (version, capacity, allocatable,
// clusterClaims), as OCM's registration agent would, and keeps one
// ClusterProfile (sigs.k8s.io/cluster-inventory-api) per ManagedCluster in
// a configurable namespace (default open-cluster-management), with the
// properties and the ControlPlaneHealthy condition, deleted when the
// cluster goes.
//
// properties/api holds the names and the report both halves share.
package properties

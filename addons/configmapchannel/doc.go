// Package configmapchannel is the channel between a built-in addon's agent half and
// its hub half. An addon agent's hub identity may only touch its cluster
// namespace, never the cluster-scoped ManagedCluster, so the agent writes
// what it observed as JSON into a ConfigMap in that namespace (labelled
// LabelReport=<addon>) and the hub half, with the hub manager's client,
// reads it and reflects it onto the ManagedCluster. The same encoding
// carries settings the other way (the hub half resolving an addon's
// AddOnDeploymentConfig for its agent).
//
// Write creates or updates such a ConfigMap; Read decodes one; NewCache
// is a hub-side cache of one addon's labelled ConfigMaps only, so a hub
// half does not cache every ConfigMap of the hub; SetupClusterController
// registers a hub half's ManagedCluster controller following them, and
// ClusterAndAddon reads what such a controller reflects a report onto:
// the cluster, and the addon there (nil when it is not enabled).
package configmapchannel

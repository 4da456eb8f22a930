// Package hub is the properties addon's hub half: SetupWithManager
// installs the ClusterProfile CRD (vendored from
// sigs.k8s.io/cluster-inventory-api's config/crd/bases, the module version
// go.mod pins) and registers clusterstatus (the agent's report into the
// ManagedCluster's status) and clusterprofile (a ClusterProfile per
// ManagedCluster) with the hub's manager.
package hub

// Package hub is the properties addon's hub half: SetupWithManager
// installs the ClusterProfile CRD (vendored from
// sigs.k8s.io/cluster-inventory-api's config/crd/bases, the module version
// go.mod pins) and registers the addon's settings controller
// (addons/settings: the collection interval from the addon's
// AddOnDeploymentConfig, validated and handed to the agent, as Settings
// says), clusterstatus (the agent's report into the ManagedCluster's
// status) and clusterprofile (a ClusterProfile per ManagedCluster) with
// the hub's manager.
package hub

// Package api holds what the health addon's two halves, and readers of
// its verdict (the properties addon's ClusterProfiles, `corral get
// clusters`), share: the addon's name, the condition and taint it sets on
// a ManagedCluster, the report the agent sends, and the settings an
// AddOnDeploymentConfig may give it.
package api

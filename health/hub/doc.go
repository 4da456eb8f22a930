// Package hub is the health addon's hub half: SetupWithManager registers
// the addon's settings controller (addons/settings: the addon's
// AddOnDeploymentConfig resolved, validated and handed to the agent, as
// Settings says) and clusterhealth (the agent's report judged into
// the ManagedCluster's condition and taint) with the hub's manager.
package hub

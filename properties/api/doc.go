// Package api holds what the properties addon's two halves share: the
// addon's name, the report the agent sends the hub, the well-known claim
// names and the bounds on claims, and the settings an
// AddOnDeploymentConfig may give it (the collection interval).
package api

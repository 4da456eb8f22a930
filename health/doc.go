// Package health is the health addon: whether each managed cluster is
// well, on the hub.
//
// The agent half (health/agent) probes the managed cluster every
// interval, with jitter — the API server's /livez and /readyz, the share
// of Ready nodes, listed Deployments and DaemonSets — and reports into
// the ConfigMap `health-report` in its cluster namespace (addons/configmapchannel),
// the only place its hub identity may write.
//
// The hub half (health/hub), with the hub manager's client, resolves and
// validates the addon's AddOnDeploymentConfig for each cluster (a
// ConfigValid condition on the ManagedClusterAddOn; the valid settings
// in the ConfigMap `health-config` for the agent) and judges each report
// into the ManagedCluster's condition `health.corral.io/Healthy` and the
// taint `health.corral.io/unhealthy` (NoSelect) while it is False — also
// when the reports stop arriving for longer than staleAfter.
//
// Settings (customizedVariables of the AddOnDeploymentConfig):
// probeInterval (default 30s), staleAfter (default 3 probe intervals),
// minReadyNodeShare (default 0.5), workloads (Kind/namespace/name,…).
//
// health/api holds the names, report and settings both halves share.
package health

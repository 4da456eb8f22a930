// Package agent is the health addon's agent half. Every probe interval,
// with jitter, it probes the managed cluster — the API server's /livez
// and /readyz, the share of Ready nodes, and the listed Deployments and
// DaemonSets, which must be Available — all at once, within one timeout
// (the probe interval, 3s to 10s), so that a hung API server delays a
// report by one timeout rather than one per probe — and writes the report
// (api.Report) into the ConfigMap api.ReportName in its cluster namespace
// on the hub. The report is its heartbeat too: it writes when what it
// found changed, and otherwise at least every third of staleAfter, so
// the hub can tell a cluster that stopped reporting.
//
// Its settings are api.DefaultSettings, or those the hub half resolved
// from the addon's AddOnDeploymentConfig into the ConfigMap
// api.ConfigName in the cluster namespace. The agent watches that
// ConfigMap (addons/settings' Follower), so a new probe interval applies
// to the wait under way, without a restart, and the hub serves no read
// per round; settings it cannot read, or that api.Settings.Validate
// refuses, leave the last valid ones (the defaults until there are any).
//
// It reads the managed cluster, and on the hub, as the addon's own hub
// identity, writes one ConfigMap and watches another. Its clock is
// injected.
package agent

// Package agent is the health addon's agent half. Every probe interval,
// with jitter, it reads its settings (the ConfigMap api.ConfigName the hub
// half resolves from the addon's AddOnDeploymentConfig; defaults when
// there is none), probes the managed cluster — the API server's /livez
// and /readyz, the share of Ready nodes, and the listed Deployments and
// DaemonSets, which must be Available — all at once, within one timeout
// (the probe interval, 3s to 10s), so that a hung API server delays a
// report by one timeout rather than one per probe — and writes the report
// (api.Report) into the ConfigMap api.ReportName in its cluster namespace
// on the hub. The report is its heartbeat too: it writes when what it
// found changed, and otherwise at least every third of staleAfter, so
// the hub can tell a cluster that stopped reporting.
//
// It reads the managed cluster and writes one ConfigMap on the hub, as
// the addon's own hub identity. Its clock is injected.
package agent

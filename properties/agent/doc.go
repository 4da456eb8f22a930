// Package agent is the properties addon's agent half. Every interval
// (with jitter) it collects the managed cluster's properties (Collect: the
// API server's version, the nodes' count, summed capacity and allocatable,
// platform, product, region and zones), makes the well-known ones
// ClusterClaims on the managed cluster labelled api.LabelClaimOwner
// (creating, updating and deleting only those; the CRD is installed by
// the addon), lists the user's own ClusterClaims, bounds all claims
// (api.Bound) and writes the report (api.Report) into the ConfigMap
// api.ReportName in its cluster namespace on the hub — only when a
// property changed, so a quiet cluster writes nothing and a busy one at
// most once an interval.
//
// The interval is api.DefaultCollectInterval, or the collectInterval the
// hub half resolved from the addon's AddOnDeploymentConfig into the
// ConfigMap api.ConfigName in the cluster namespace. The agent watches
// that ConfigMap (addons/settings' Follower), so a change applies to the
// wait under way, without a restart; settings it cannot read leave the
// interval as it was.
//
// It reads Nodes and writes ClusterClaims on the managed cluster, and on
// the hub, as the addon's own hub identity, writes one ConfigMap and
// watches another. Its clock is injected.
package agent
